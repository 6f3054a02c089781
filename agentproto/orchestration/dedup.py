"""Duplicate requests, idempotency keys, singleton tasks and a TTL result cache.

Theory of operation
-------------------
In a distributed system the same request arrives more than once (seed 004 §6): a client times
out and *retries*, a user *double-clicks*, a queue *replays* a message after a crash. Each copy
that is executed again repeats its side effects — a second payment, a second e-mail. Two
different tools deal with repetition, and they are easy to confuse:

**Request deduplication** (idempotency keys, singleton tasks) answers *"have I already done
this very request?"*. The client attaches a key that names one *intent* (one payment the user
meant to make) and reuses it for every copy. The server keeps an :class:`IdempotencyStore`:

* first copy — reserve the key (state ``WORKING``) and execute (:attr:`Admission.EXECUTE`);
* a copy while the first is still running — attach it to the same task, do not start a second
  one (:attr:`Admission.ATTACH`: the *singleton task*);
* a copy after it finished — answer with the stored result (:attr:`Admission.REPLAY`);
* the same key with *different* parameters — refuse (:class:`KeyReuseError`): the key was
  reused for another intent, and replaying the old answer would be a lie.

The key must be reserved *before* the side effect; a store that records keys only after
finishing (``mode="record-after"``) lets two copies that overlap in time both execute — the
classic check-then-act race. Keys must also outlive the longest retry or replay window: a key
purged after ``key_ttl`` seconds no longer protects a late replay.

**Result caching** (:class:`TTLCache`) answers *"do I already know the answer to this
question?"*. It is keyed by the *input* (route and date), shared by everyone who asks the same
thing, and valid for ``ttl`` seconds — after which the answer may be *stale* (the truth changed
underneath it). Caching is for reads; a cache in front of a payment swallows a second, perfectly
legitimate payment with the same amount.

A2A v1.0 note: a client cannot choose a task id (ids are server-generated, spec §3.4.2), so the
seed's "same task id ⇒ run once" cannot be built on the task id. The spec lets a server
deduplicate ``SendMessage`` by ``messageId`` (§3.3.1, a MAY) and defines no idempotency-key
header; the key here plays the role of ``messageId``.

:func:`run_dedup` injects retries, double clicks and replays at chosen rates on the
:class:`~agentproto.orchestration.engine.Simulation` engine and counts side effects;
:func:`cache_experiment` measures hit rate and staleness of a TTL cache over a changing world,
and :func:`cache_analytic` gives the same numbers in closed form. Everything returns data; the
charts and the notebook's labs are in the course layer (``course/dedup.py``).
"""

from __future__ import annotations

import hashlib
import json
import math
import random
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from enum import Enum
from functools import cached_property, partial
from typing import Any, Literal

from agentproto.a2a.states import TaskState
from agentproto.clock import IdFactory
from agentproto.errors import AgentProtoError
from agentproto.orchestration.engine import Simulation

__all__ = [
    "IdempotencyError",
    "KeyReuseError",
    "Admission",
    "Decision",
    "Entry",
    "IdempotencyStore",
    "Request",
    "Response",
    "Effect",
    "Service",
    "FaultRates",
    "ClientPolicy",
    "DedupReport",
    "run_dedup",
    "fingerprint",
    "TTLCache",
    "CacheLookup",
    "CacheReport",
    "cache_experiment",
    "cache_analytic",
    "ttl_sweep",
    "MECHANISMS",
    "payments_through_cache",
]

INF = math.inf


# -- errors -----------------------------------------------------------------------------------
class IdempotencyError(AgentProtoError, ValueError):
    """Base class for refused duplicates."""

    rule = "idempotency"


class KeyReuseError(IdempotencyError):
    """The same idempotency key came back with different parameters."""

    rule = "idempotency-key-reused"


# -- requests -----------------------------------------------------------------------------------
def fingerprint(op: str, params: Mapping[str, Any]) -> str:
    """A short, stable hash of an operation and its parameters (canonical JSON, SHA-256)."""
    canonical = json.dumps(
        {"op": op, "params": dict(params)}, sort_keys=True, separators=(",", ":"), ensure_ascii=False
    )
    return hashlib.sha256(canonical.encode()).hexdigest()[:16]


@dataclass(frozen=True)
class Request:
    """One copy of a request as the server receives it.

    ``key`` is the idempotency key (``None``: the client sent none). ``intent`` names the user's
    intention for bookkeeping only — the server never reads it. ``copy`` says how this copy
    came to be: ``original``, ``retry``, ``double-click`` or ``replay``.
    """

    op: str
    params: Mapping[str, Any]
    key: str | None
    intent: str
    copy: Literal["original", "retry", "double-click", "replay"] = "original"

    @cached_property
    def fingerprint(self) -> str:
        return fingerprint(self.op, self.params)


@dataclass(frozen=True)
class Response:
    """What the server answered: the task that handled the request, and how."""

    task_id: str
    state: TaskState
    result: Any
    how: Literal["executed", "attached", "replayed"]


@dataclass(frozen=True)
class Effect:
    """One side effect that really happened (a charge, an e-mail)."""

    time: float
    op: str
    intent: str
    task_id: str
    copy: str


# -- the idempotency store -------------------------------------------------------------------------
class Decision(str, Enum):
    EXECUTE = "execute"  # first copy: run it
    ATTACH = "attach"  # same request still running: join that task (singleton task)
    REPLAY = "replay"  # already finished: answer with the stored result


@dataclass
class Entry:
    """What the store remembers about one key."""

    key: str
    fingerprint: str
    task_id: str
    state: TaskState
    created: float
    expires: float
    result: Any = None


@dataclass(frozen=True)
class Admission:
    decision: Decision
    entry: Entry | None

    EXECUTE = Decision.EXECUTE
    ATTACH = Decision.ATTACH
    REPLAY = Decision.REPLAY


class IdempotencyStore:
    """Key → :class:`Entry`, with a retention time.

    ``mode="reserve"`` (correct) records the key the moment a request is admitted;
    ``mode="record-after"`` (a common bug) records it only when the request finishes.

    >>> store = IdempotencyStore()
    >>> store.admit("k1", "fp", now=0.0, task_id="task-1").decision.value
    'execute'
    >>> store.admit("k1", "fp", now=0.1, task_id="task-2").decision.value  # still running
    'attach'
    >>> store.complete("k1", "receipt-1", now=0.5)
    >>> store.admit("k1", "fp", now=9.0, task_id="task-3").entry.result
    'receipt-1'
    """

    def __init__(self, *, ttl: float = INF, mode: Literal["reserve", "record-after"] = "reserve") -> None:
        if ttl <= 0:
            raise ValueError("key retention (ttl) must be positive")
        if mode not in ("reserve", "record-after"):
            raise ValueError(f"unknown mode {mode!r}")
        self.ttl = ttl
        self.mode = mode
        self.entries: dict[str, Entry] = {}
        self._running: dict[str, Entry] = {}  # record-after mode keeps in-flight work here, unseen

    def _live(self, key: str, now: float) -> Entry | None:
        entry = self.entries.get(key)
        if entry is not None and now >= entry.expires:
            del self.entries[key]  # retention over: the key is forgotten
            return None
        return entry

    def admit(self, key: str, fp: str, *, now: float, task_id: str) -> Admission:
        """Decide what to do with a request carrying ``key``; raises :class:`KeyReuseError`."""
        entry = self._live(key, now)
        if entry is not None:
            if entry.fingerprint != fp:
                raise KeyReuseError(
                    f"idempotency key {key!r} was first used for a different request "
                    f"(fingerprint {entry.fingerprint} ≠ {fp}); use a new key for a new intent"
                )
            if entry.state is TaskState.WORKING:
                return Admission(Decision.ATTACH, entry)
            return Admission(Decision.REPLAY, entry)
        fresh = Entry(key, fp, task_id, TaskState.WORKING, now, now + self.ttl)
        if self.mode == "reserve":
            self.entries[key] = fresh
        else:
            self._running[task_id] = fresh
        return Admission(Decision.EXECUTE, fresh)

    def complete(self, key: str, result: Any, *, now: float, task_id: str | None = None) -> None:
        """The request under ``key`` finished: remember its result until ``now + ttl``."""
        entry = self.entries.get(key) if self.mode == "reserve" else self._running.pop(task_id or "", None)
        if entry is None:
            if self.mode == "reserve":
                return  # purged while running; nothing to remember
            raise ValueError("record-after mode needs the task_id of the finishing request")
        entry.state, entry.result = TaskState.COMPLETED, result
        entry.expires = now + self.ttl
        self.entries[key] = entry

    def release(self, key: str) -> None:
        """Forget a reservation whose request failed *before* any side effect (safe to retry)."""
        entry = self.entries.get(key)
        if entry is not None and entry.state is TaskState.WORKING:
            del self.entries[key]

    def __len__(self) -> int:
        return len(self.entries)


# -- a side-effecting service ------------------------------------------------------------------------
class Service:
    """An endpoint whose work has a side effect (a payment), running on a :class:`Simulation`.

    ``store=None`` executes every copy it receives. With a store, copies are admitted as the
    store decides; attached copies are answered when the one running task finishes.
    """

    def __init__(
        self,
        sim: Simulation,
        *,
        store: IdempotencyStore | None = None,
        processing: float = 0.5,
        ids: Callable[[], str] | None = None,
    ) -> None:
        self.sim = sim
        self.store = store
        self.processing = processing
        self.ids = ids or IdFactory("task")
        self.effects: list[Effect] = []
        self.answers: Counter[str] = Counter()  # executed / attached / replayed / refused
        self._waiters: dict[str, list[Callable[[Response], None]]] = {}

    def receive(self, request: Request, respond: Callable[[Response], None]) -> None:
        """Handle one arriving copy; ``respond`` is called when (if) there is an answer."""
        now = self.sim.now
        if self.store is None or request.key is None:
            self._execute(request, self.ids(), respond)
            return
        try:
            adm = self.store.admit(request.key, request.fingerprint, now=now, task_id=self.ids())
        except KeyReuseError:
            self.answers["refused"] += 1
            return
        entry = adm.entry
        assert entry is not None
        if adm.decision is Decision.EXECUTE:
            self._execute(request, entry.task_id, respond)
        elif adm.decision is Decision.ATTACH:
            self.answers["attached"] += 1
            self._waiters.setdefault(entry.task_id, []).append(respond)
        else:
            self.answers["replayed"] += 1
            respond(Response(entry.task_id, entry.state, entry.result, "replayed"))

    def _execute(self, request: Request, task_id: str, respond: Callable[[Response], None]) -> None:
        self.answers["executed"] += 1

        def finish() -> None:
            now = self.sim.now
            self.effects.append(Effect(now, request.op, request.intent, task_id, request.copy))
            result = f"receipt for {request.intent}"
            if self.store is not None and request.key is not None:
                self.store.complete(request.key, result, now=now, task_id=task_id)
            respond(Response(task_id, TaskState.COMPLETED, result, "executed"))
            for waiter in self._waiters.pop(task_id, []):
                waiter(Response(task_id, TaskState.COMPLETED, result, "attached"))

        self.sim.schedule(self.processing, finish, label=f"execute {task_id}")

    def effects_per_intent(self) -> Counter[str]:
        return Counter(e.intent for e in self.effects)


# -- fault injection and clients ------------------------------------------------------------------------
@dataclass(frozen=True)
class FaultRates:
    """Probabilities, per request copy, of the things that create duplicates."""

    lost_response: float = 0.0  # the work happened but the answer never came back → retry
    lost_request: float = 0.0  # the request never arrived → retry (harmless, but retried)
    double_click: float = 0.0  # the user submits the same form twice
    replay: float = 0.0  # the infrastructure redelivers a delivered message later

    def __post_init__(self) -> None:
        for name in ("lost_response", "lost_request", "double_click", "replay"):
            p = getattr(self, name)
            if not 0.0 <= p <= 1.0:
                raise ValueError(f"{name} must be a probability in [0, 1], got {p}")


@dataclass(frozen=True)
class ClientPolicy:
    """How the client behaves: timeout, bounded retries with backoff, and key scope.

    ``key_scope="intent"``: one key per user intention, made when the form is shown and reused
    by every retry and by a double click (right). ``"attempt"``: a fresh key per send (wrong:
    every copy looks new to the server).
    """

    timeout: float = 2.0
    max_retries: int = 4
    backoff: float = 0.5
    key_scope: Literal["intent", "attempt"] = "intent"


@dataclass(frozen=True)
class DedupReport:
    """Side effects against intentions, plus how the duplicates were handled."""

    label: str
    intents: int
    copies_sent: int
    copies_delivered: int
    effects: int
    duplicate_effects: int  # effects beyond the first, per intent
    exactly_once: int  # intents with exactly one effect
    missing: int  # intents with no effect at all (every copy lost)
    client_gave_up: int  # flows that never got an answer
    answers: Mapping[str, int]

    def line(self) -> str:
        return (
            f"{self.label:<28} intents {self.intents:>4}  effects {self.effects:>4}  "
            f"duplicates {self.duplicate_effects:>3}  missing {self.missing:>2}  "
            f"exactly-once {self.exactly_once}/{self.intents}"
        )


class _Flow:
    """One client flow: the copies of one intention, sent until an answer comes back."""

    __slots__ = ("intent", "params", "key", "copy", "done", "attempt")

    def __init__(
        self, intent: str, params: Mapping[str, Any], key: str, copy: Literal["original", "double-click"]
    ) -> None:
        self.intent, self.params, self.key, self.copy = intent, params, key, copy
        self.done = False
        self.attempt = 0

    def on_answer(self, _resp: Response) -> None:
        """Any answer, even a late one, ends the flow."""
        self.done = True


class _Traffic:
    """The clients and the network of :func:`run_dedup`: flows that send, time out and retry;
    copies and answers that get lost; delivered copies that the infrastructure replays."""

    def __init__(
        self,
        sim: Simulation,
        service: Service,
        faults: FaultRates,
        client: ClientPolicy,
        *,
        latency: float,
        replay_delay: tuple[float, float],
    ) -> None:
        self.sim, self.rng, self.service = sim, sim.rng, service
        self.faults, self.client = faults, client
        self.latency, self.replay_delay = latency, replay_delay
        self.keys = IdFactory("key")
        self.stats: Counter[str] = Counter()

    def arrivals(self, intents: int, rate: float) -> None:
        """Schedule ``intents`` payments as a Poisson process (``rate``/s); some get a double click."""
        sim, rng = self.sim, self.rng
        t = 0.0
        for n in range(1, intents + 1):
            t += rng.expovariate(rate)
            intent = f"pay-{n}"
            params = {"amount": 10 + n % 7, "merchant": "coffee-shop", "customer": f"c{n % 13}"}
            key = self.keys()
            sim.at(t, partial(self.start_flow, intent, params, key, "original"))
            if rng.random() < self.faults.double_click:
                sim.at(
                    t + rng.uniform(0.05, 0.8), partial(self.start_flow, intent, params, key, "double-click")
                )

    def start_flow(
        self, intent: str, params: Mapping[str, Any], key: str, copy: Literal["original", "double-click"]
    ) -> None:
        """Begin one client flow for ``intent`` and send its first copy."""
        self.send(_Flow(intent, params, key, copy))

    def send(self, flow: _Flow) -> None:
        """Send the flow's next copy and arm its timeout: a retry, or giving up after the last one."""
        if flow.done:
            return
        flow.attempt += 1
        attempt = flow.attempt
        client = self.client
        k = flow.key if client.key_scope == "intent" else self.keys()
        req = Request("charge", flow.params, k, flow.intent, flow.copy if attempt == 1 else "retry")
        self.stats["sent"] += 1
        if self.rng.random() >= self.faults.lost_request:
            self.sim.schedule(self.latency, partial(self.deliver, req, flow.on_answer))
        if attempt <= client.max_retries:
            self.sim.schedule(client.timeout, partial(self._maybe_retry, flow, attempt))
        else:
            self.sim.schedule(client.timeout, partial(self._give_up, flow))

    def _maybe_retry(self, flow: _Flow, attempt: int) -> None:
        """Timeout: unless an answer came meanwhile, send again after exponential backoff."""
        if not flow.done:
            self.sim.schedule(self.client.backoff * 2 ** (attempt - 1), partial(self.send, flow))

    def _give_up(self, flow: _Flow) -> None:
        """Timeout of the last copy: a flow still unanswered counts as given up."""
        if not flow.done:
            self.stats["gave_up"] += 1

    def deliver(self, req: Request, reply_to: Callable[[Response], None] | None) -> None:
        """A copy reaches the service; a copy that is not itself a replay may be replayed later."""
        self.stats["delivered"] += 1
        self.service.receive(req, partial(self._respond, reply_to))
        rng = self.rng
        if req.copy != "replay" and rng.random() < self.faults.replay:
            replayed = Request(req.op, req.params, req.key, req.intent, "replay")
            self.sim.schedule(rng.uniform(*self.replay_delay), partial(self.deliver, replayed, None))

    def _respond(self, reply_to: Callable[[Response], None] | None, resp: Response) -> None:
        """Carry the service's answer back to the client, unless it is lost (replays have no client)."""
        if reply_to is not None and self.rng.random() >= self.faults.lost_response:
            self.sim.schedule(self.latency, partial(reply_to, resp))


def _dedup_report(label: str, intents: int, service: Service, stats: Mapping[str, int]) -> DedupReport:
    """Count the side effects per intention and the traffic into a :class:`DedupReport`."""
    per_intent = service.effects_per_intent()
    return DedupReport(
        label=label,
        intents=intents,
        copies_sent=stats["sent"],
        copies_delivered=stats["delivered"],
        effects=len(service.effects),
        duplicate_effects=sum(c - 1 for c in per_intent.values() if c > 1),
        exactly_once=sum(1 for c in per_intent.values() if c == 1),
        missing=intents - len(per_intent),
        client_gave_up=stats["gave_up"],
        answers=dict(service.answers),
    )


def run_dedup(
    intents: int = 200,
    faults: FaultRates = FaultRates(),
    *,
    idempotent: bool = True,
    store_mode: Literal["reserve", "record-after"] = "reserve",
    key_ttl: float = INF,
    client: ClientPolicy = ClientPolicy(),
    processing: float = 0.5,
    latency: float = 0.05,
    replay_delay: tuple[float, float] = (5.0, 60.0),
    rate: float = 1.0,
    seed: int = 0,
    label: str | None = None,
) -> DedupReport:
    """Simulate ``intents`` payments under ``faults`` and count the charges that happen.

    Each intention is one client flow (plus a second flow if the user double-clicks). A flow
    sends a copy, waits ``client.timeout`` for an answer and retries with exponential backoff
    up to ``client.max_retries`` times; any answer, even a late one, ends the flow. Delivered
    copies may be replayed by the infrastructure ``replay_delay`` seconds later.
    """
    sim = Simulation(seed=seed)
    store = IdempotencyStore(ttl=key_ttl, mode=store_mode) if idempotent else None
    service = Service(sim, store=store, processing=processing)
    traffic = _Traffic(sim, service, faults, client, latency=latency, replay_delay=replay_delay)
    traffic.arrivals(intents, rate)
    sim.run()
    name = label or (
        f"idempotent ({store_mode}, key per {client.key_scope})" if idempotent else "no idempotency"
    )
    return _dedup_report(name, intents, service, traffic.stats)


# -- the TTL result cache -----------------------------------------------------------------------------
@dataclass(frozen=True)
class CacheLookup:
    hit: bool
    value: Any = None
    age: float = 0.0


class TTLCache:
    """Answers keyed by input, each valid for ``ttl`` seconds after it was stored.

    >>> cache = TTLCache(ttl=600)
    >>> cache.get("PEK-SYX 2024-04-08", now=0).hit
    False
    >>> cache.put("PEK-SYX 2024-04-08", ["CA1357"], now=3)
    >>> cache.get("PEK-SYX 2024-04-08", now=10).value
    ['CA1357']
    >>> cache.get("PEK-SYX 2024-04-08", now=603).hit   # ten minutes later: expired
    False
    """

    def __init__(self, ttl: float) -> None:
        if ttl < 0:
            raise ValueError("ttl must be ≥ 0")
        self.ttl = ttl
        self._data: dict[Any, tuple[float, Any]] = {}
        self.hits = 0
        self.misses = 0

    def get(self, key: Any, *, now: float) -> CacheLookup:
        item = self._data.get(key)
        if item is not None and now - item[0] < self.ttl:
            self.hits += 1
            return CacheLookup(True, item[1], now - item[0])
        if item is not None:
            del self._data[key]
        self.misses += 1
        return CacheLookup(False)

    def put(self, key: Any, value: Any, *, now: float) -> None:
        self._data[key] = (now, value)

    @property
    def hit_rate(self) -> float:
        total = self.hits + self.misses
        return self.hits / total if total else 0.0


@dataclass(frozen=True)
class CacheReport:
    ttl: float
    queries: int
    hit_rate: float
    stale_rate: float  # fraction of all answers that were out of date
    backend_calls: int
    mean_latency: float  # seconds


def _zipf_weights(n: int, s: float) -> list[float]:
    raw = [1.0 / (k**s) for k in range(1, n + 1)]
    total = sum(raw)
    return [w / total for w in raw]


def cache_experiment(
    ttl: float,
    *,
    query_rate: float = 1.0,
    change_rate: float = 1 / 600,
    keys: int = 20,
    zipf: float = 1.0,
    duration: float = 3600.0,
    backend_time: float = 3.0,
    hit_time: float = 0.01,
    seed: int = 0,
) -> CacheReport:
    """Flight searches against a world whose answers change, through a :class:`TTLCache`.

    Queries arrive as a Poisson process (``query_rate``/s) over ``keys`` routes with Zipf
    popularity; each route's true answer changes as a Poisson process (``change_rate``/s). A hit
    costs ``hit_time``, a miss ``backend_time`` (the seed's 0.01 s and 3 s). An answer is stale
    when the route changed after the cached copy was fetched.
    """
    rng = random.Random(seed)
    weights = _zipf_weights(keys, zipf)
    cache = TTLCache(ttl)
    version = [0] * keys
    next_change = [rng.expovariate(change_rate) if change_rate > 0 else INF for _ in range(keys)]
    t, n, stale, backend, latency = 0.0, 0, 0, 0, 0.0
    routes = list(range(keys))
    while True:
        t += rng.expovariate(query_rate)
        if t >= duration:
            break
        n += 1
        k = rng.choices(routes, weights)[0]
        while next_change[k] <= t:  # the world moved on
            version[k] += 1
            next_change[k] += rng.expovariate(change_rate)
        found = cache.get(k, now=t)
        if found.hit:
            latency += hit_time
            stale += found.value != version[k]
        else:
            backend += 1
            latency += backend_time
            cache.put(k, version[k], now=t)
    return CacheReport(ttl, n, cache.hit_rate, stale / n if n else 0.0, backend, latency / n if n else 0.0)


def cache_analytic(
    ttl: float,
    *,
    query_rate: float = 1.0,
    change_rate: float = 1 / 600,
    keys: int = 20,
    zipf: float = 1.0,
) -> tuple[float, float]:
    """Closed-form (hit rate, stale rate) for :func:`cache_experiment`'s model.

    For one key queried at rate λ, a miss opens a window of ``ttl`` τ holding λτ hits on
    average, so the hit rate is λτ / (1 + λτ). A hit at age a is stale with probability
    1 − e^(−μa) for change rate μ; integrating over the window gives
    λ(τ − (1 − e^(−μτ))/μ) stale answers per 1 + λτ answers. Keys are weighted by popularity.
    """
    hits = stale = 0.0
    for w in _zipf_weights(keys, zipf):
        lam = query_rate * w
        per_cycle = 1 + lam * ttl
        hits += w * lam * ttl / per_cycle
        if change_rate > 0:
            stale += w * lam * (ttl - (1 - math.exp(-change_rate * ttl)) / change_rate) / per_cycle
    return hits, stale


def ttl_sweep(ttls: Sequence[float], **kwargs: Any) -> list[CacheReport]:
    """:func:`cache_experiment` at each TTL (same seed: the same queries and world changes)."""
    return [cache_experiment(ttl, **kwargs) for ttl in ttls]


# -- dedup vs cache, side by side ---------------------------------------------------------------------
#: The distinction notebook 14 draws, as data (mechanism → properties).
MECHANISMS: dict[str, dict[str, str]] = {
    "idempotency key / singleton task": {
        "keyed by": "one intention of one client (key made once, reused by every copy)",
        "answers": '"did I already do this very request?"',
        "lifetime": "at least the longest retry/replay window",
        "use for": "side effects: payments, e-mails, bookings",
        "misuse": "a fresh key per click or per retry protects nothing",
    },
    "result cache (TTL)": {
        "keyed by": "the input (route + date), shared by every client",
        "answers": '"do I already know the answer to this question?"',
        "lifetime": "as long as a stale answer is acceptable",
        "use for": "reads: searches, lookups, prices",
        "misuse": "in front of a payment it swallows a second, legitimate purchase",
    },
}


def payments_through_cache(purchases: Sequence[tuple[float, str, int]], ttl: float) -> list[bool]:
    """The misuse: payments answered by a result cache keyed by their *input*.

    ``purchases`` are (time, customer, amount) — each one a real, separate intention. A purchase
    whose (customer, amount) was charged less than ``ttl`` seconds ago is answered from the
    cache and never charged. Returns, per purchase, whether the card was charged.
    """
    cache = TTLCache(ttl)
    charged = []
    for t, customer, amount in purchases:
        hit = cache.get((customer, amount), now=t).hit
        if not hit:
            cache.put((customer, amount), f"receipt {customer} {amount}", now=t)
        charged.append(not hit)
    return charged

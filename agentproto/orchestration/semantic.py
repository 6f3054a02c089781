"""The semantic gap: how misunderstandings compound along a chain of agents, and a fix.

Theory of operation
-------------------
Every hand-over between agents is a re-interpretation. If each hop passes the user's intent on
correctly with probability ``p`` and a misunderstanding, once made, is never undone, a chain of
``n`` hops is right with probability ``p ** n`` (seed 004 §8: 0.9 → 81 % → 72.9 % → 65.6 %).
:func:`chain_accuracy`, :func:`accuracy_table`, :func:`hops_within` and
:func:`required_hop_accuracy` are that arithmetic.

The fix the seed proposes is an :class:`IntentEnvelope` carried hop to hop: the *original*
intent, the current interpretation, the assumptions made, and a confidence. Two things follow:

* **re-alignment** — a hop that can read the original request can notice that what it was
  handed drifted, and correct it (with probability ``realign``). Errors stop being permanent,
  and accuracy no longer decays to zero with chain length (:func:`envelope_accuracy`).
* **escalation** — a hop whose confidence is below a threshold asks a human, who fixes the
  interpretation with probability ``human_accuracy`` at a cost in human minutes.

The threshold only helps if confidence *separates* wrong hops from right ones.
:class:`ChainConfig.discrimination` (error visibility) is the chance that a misunderstanding
shows up as low confidence; at 0 a wrong hop is as sure of itself as a right one and escalations
are spent at random. That is *discrimination*, not *calibration*: calibration means that stated
confidence equals observed accuracy (of the hops that say 0.8, 80 % are right), and a perfectly
calibrated constant confidence discriminates nothing, so no threshold can use it. The model does
not need calibration; notebook 19's closed-form threshold does.

The envelope records each hop's confidence separately and does not accumulate it:
:meth:`IntentEnvelope.needs_human` looks at the last hop only, so it stays silent when every hop
is fairly sure but the chain as a whole is not. :attr:`IntentEnvelope.chain_confidence` is the
product of the recorded per-hop confidences (what pⁿ says of stated confidences, if they are
calibrated and independent and nothing was repaired) and
:meth:`IntentEnvelope.chain_needs_human` is the check on it. The product is a model: without
independence the recorded confidences only bound the chain's chance, between
:attr:`IntentEnvelope.chain_confidence_floor` (``1 − Σ(1 − cᵢ)``, Fréchet) and
:attr:`IntentEnvelope.chain_confidence_ceiling` (the weakest hop); the check can use either.
:func:`simulate_chain` is a Monte-Carlo of all of it (one seeded :class:`random.Random`, plain
Python); :func:`threshold_sweep` gives the end-to-end accuracy and the human load per request
as the threshold moves.
:func:`drift_walk` shows one concrete chain, word by word, for the notebook. Everything returns
data; the plots and notebook 16's lab are in the course layer (``course/semantic.py``).
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from agentproto.errors import AgentProtoError

__all__ = [
    "SemanticError",
    "EnvelopeError",
    "chain_accuracy",
    "accuracy_table",
    "hops_within",
    "required_hop_accuracy",
    "envelope_accuracy",
    "IntentEnvelope",
    "SEED_ENVELOPE",
    "ChainConfig",
    "ChainOutcome",
    "ENVELOPE_DEFAULTS",
    "simulate_chain",
    "threshold_sweep",
    "COMFORTABLE_TRIP",
    "drift_walk",
    "walk_table",
]


class SemanticError(AgentProtoError, ValueError):
    """Base class: parameters outside their meaning (a probability above 1, a negative chain)."""

    rule = "semantic"


class EnvelopeError(SemanticError):
    """An intent envelope that would mislead the next hop."""

    rule = "intent-envelope"


def _prob(name: str, value: float) -> float:
    if not 0.0 <= value <= 1.0 or math.isnan(value):
        raise SemanticError(f"{name} must be a probability in [0, 1], got {value}")
    return float(value)


# -- the arithmetic --------------------------------------------------------------------------
def chain_accuracy(p: float | Sequence[float], n: int | None = None) -> float:
    """End-to-end accuracy of a chain: ``p ** n``, or the product of per-hop accuracies.

    >>> round(chain_accuracy(0.9, 4), 4)
    0.6561
    >>> round(chain_accuracy([0.99, 0.9, 0.8]), 4)
    0.7128
    """
    if isinstance(p, Sequence):
        if n is not None:
            raise SemanticError("give either one p and n, or a list of per-hop accuracies")
        out = 1.0
        for i, q in enumerate(p):
            out *= _prob(f"p[{i}]", q)
        return out
    if n is None or n < 0:
        raise SemanticError(f"chain length must be a non-negative integer, got {n}")
    return _prob("p", p) ** n


def accuracy_table(p: float = 0.9, ns: Sequence[int] = range(1, 11)) -> list[tuple[int, float]]:
    """(n, p**n) rows — the seed's table for n = 1..4, extended."""
    return [(n, chain_accuracy(p, n)) for n in ns]


def hops_within(p: float, target: float) -> int:
    """The longest chain whose accuracy stays ≥ ``target`` (∞ is reported as a large int).

    >>> hops_within(0.9, 0.7)
    3
    """
    _prob("p", p)
    _prob("target", target)
    if target == 0 or p == 1:
        return 10**9
    if p == 0:
        return 0
    return math.floor(math.log(target) / math.log(p) + 1e-12)


def required_hop_accuracy(n: int, target: float) -> float:
    """Per-hop accuracy needed for ``n`` hops to reach ``target`` end to end: target^(1/n).

    >>> round(required_hop_accuracy(4, 0.9), 4)
    0.974
    """
    if n < 1:
        raise SemanticError("a chain has at least one hop")
    return float(_prob("target", target) ** (1 / n))


def envelope_accuracy(p: float, n: int, realign: float) -> float:
    """Exact accuracy when each hop can repair an inherited misunderstanding with probability
    ``realign`` (it sees the original intent) and then interprets correctly with probability
    ``p``: a two-state Markov chain, a_{k+1} = p·a_k + r·p·(1 − a_k), a_0 = 1.

    With ``realign = 0`` this is ``p ** n``; with ``realign > 0`` it levels off at
    r·p / (1 − p + r·p) instead of decaying to zero.
    """
    _prob("p", p)
    r = _prob("realign", realign)
    a = 1.0
    for _ in range(n):
        a = p * a + r * p * (1 - a)
    return a


# -- the envelope ------------------------------------------------------------------------------
@dataclass(frozen=True)
class IntentEnvelope:
    """What travels with a request from hop to hop (seed 004 §8's JSON, in A2A-style camelCase).

    In A2A it would ride in a ``Message``'s ``metadata`` or as a ``DataPart`` — the protocol
    transports it; it does not define it.
    """

    original_intent: str
    current_interpretation: str
    assumptions: tuple[str, ...] = ()
    confidence: float = 1.0  # the last hop's own confidence, not accumulated
    hops: tuple[str, ...] = ()
    #: each hop's own confidence, in hop order (one per entry of ``hops``; the last equals
    #: ``confidence``). A one-hop envelope may leave it out: it is then ``(confidence,)``.
    hop_confidences: tuple[float, ...] = ()

    def __post_init__(self) -> None:
        if not self.original_intent.strip():
            raise EnvelopeError("the original intent is the one thing the envelope must never lose")
        if not 0.0 <= self.confidence <= 1.0:
            raise EnvelopeError(f"confidence must be in [0, 1], got {self.confidence}")
        record = tuple(float(c) for c in self.hop_confidences)
        if not record and len(self.hops) == 1:
            record = (float(self.confidence),)
        if len(record) != len(self.hops):
            raise EnvelopeError(
                f"one confidence per hop: {len(self.hops)} hop(s) but {len(record)} confidence(s), "
                "so the next hop could not tell how sure the chain is"
            )
        if any(not 0.0 <= c <= 1.0 for c in record):
            raise EnvelopeError(f"every hop's confidence must be in [0, 1], got {list(record)}")
        if record and record[-1] != self.confidence:
            raise EnvelopeError(
                f"the last hop's confidence is the envelope's: {record[-1]} ≠ {self.confidence}"
            )
        object.__setattr__(self, "hop_confidences", record)

    @classmethod
    def start(cls, request: str) -> IntentEnvelope:
        """The envelope as the user hands it over: nothing interpreted yet."""
        return cls(request, request, (), 1.0, ())

    def hop(
        self, agent: str, interpretation: str, assumptions: Sequence[str] = (), confidence: float = 1.0
    ) -> IntentEnvelope:
        """The next hop's envelope: the original intent is copied, never rewritten; the hop's
        confidence replaces ``confidence`` and is appended to ``hop_confidences``."""
        return replace(
            self,
            current_interpretation=interpretation,
            assumptions=tuple(self.assumptions) + tuple(assumptions),
            confidence=confidence,
            hops=self.hops + (agent,),
            hop_confidences=self.hop_confidences + (confidence,),
        )

    def needs_human(self, threshold: float) -> bool:
        """True when the *last* hop is less sure than ``threshold``.

        A per-hop check: it does not see the hops before. Four hops at 0.85 each pass a 0.7
        threshold one by one while the chain as a whole is at 0.85⁴ ≈ 0.52 — use
        :meth:`chain_needs_human` for that.
        """
        return self.confidence < threshold

    @property
    def chain_confidence(self) -> float:
        """The product of the per-hop confidences (1.0 before any hop).

        If each hop's confidence is calibrated (it is right that often, given a correct input),
        the hops are independent and nobody repairs a slip, this is the chance the whole chain is
        still right — pⁿ applied to stated confidences. Re-alignment makes the real chance higher.

        >>> env = IntentEnvelope.start("trip").hop("a", "x", confidence=0.9).hop("b", "y", confidence=0.8)
        >>> round(env.chain_confidence, 2)
        0.72
        """
        return math.prod(self.hop_confidences)

    @property
    def chain_confidence_floor(self) -> float:
        """The lowest chance that every hop is right, whatever the dependence between the hops:
        ``max(0, 1 − Σ(1 − cᵢ))`` (the Fréchet / Bonferroni lower bound; 1.0 before any hop).

        Unlike :attr:`chain_confidence` it assumes nothing about independence — only that each
        ``cᵢ`` is that hop's chance of being right. Five hops at 0.9: 0.5, against a product of 0.59.
        """
        return max(0.0, 1.0 - sum(1.0 - c for c in self.hop_confidences))

    @property
    def chain_confidence_ceiling(self) -> float:
        """The highest chance that every hop is right under any dependence: the weakest hop's
        confidence (1.0 before any hop). A chain is never surer than its least sure hop."""
        return min(self.hop_confidences, default=1.0)

    def chain_needs_human(self, threshold: float, *, bound: str = "product") -> bool:
        """True when the accumulated confidence is below ``threshold`` — the check that fires when
        every hop is fairly sure but the chain as a whole is not.

        ``bound`` picks the number: ``"product"`` (:attr:`chain_confidence`, the independence
        model), ``"floor"`` (:attr:`chain_confidence_floor`, safe under any dependence, asks
        more often) or ``"ceiling"`` (:attr:`chain_confidence_ceiling`, the optimist's).
        """
        values = {
            "product": self.chain_confidence,
            "floor": self.chain_confidence_floor,
            "ceiling": self.chain_confidence_ceiling,
        }
        if bound not in values:
            raise EnvelopeError(f"bound must be one of {sorted(values)}, got {bound!r}")
        return values[bound] < threshold

    def to_dict(self) -> dict[str, Any]:
        return {
            "originalIntent": self.original_intent,
            "currentInterpretation": self.current_interpretation,
            "assumptions": list(self.assumptions),
            "confidence": self.confidence,
            "hops": list(self.hops),
            "hopConfidences": list(self.hop_confidences),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> IntentEnvelope:
        if "originalIntent" not in data:
            raise EnvelopeError("envelope without originalIntent: the next hop cannot re-align")
        return cls(
            data["originalIntent"],
            data.get("currentInterpretation", data["originalIntent"]),
            tuple(data.get("assumptions", ())),
            float(data.get("confidence", 1.0)),
            tuple(data.get("hops", ())),
            tuple(float(c) for c in data.get("hopConfidences", ())),
        )


#: The seed's example envelope, translated.
SEED_ENVELOPE = IntentEnvelope(
    original_intent="Arrange a comfortable trip for me",
    current_interpretation="budget 15,000 CNY, 3 days / 2 nights, business-travel style",
    assumptions=(
        "comfortable = business level",
        "trip = short domestic trip",
        "arrange = propose options, do not book",
    ),
    confidence=0.78,
    hops=("planner",),
)


# -- the Monte Carlo -----------------------------------------------------------------------------
#: The options that only mean something when hops carry an :class:`IntentEnvelope`, and their
#: defaults when they do.
ENVELOPE_DEFAULTS: dict[str, float] = {
    "realign": 0.5,
    "threshold": 0.0,
    "discrimination": 0.8,
    "human_accuracy": 0.98,
    "human_minutes": 3.0,
}


@dataclass(frozen=True)
class ChainConfig:
    """One chain of agents and how it copes with misunderstandings.

    ``p`` and ``n`` describe every chain. The other options describe what hops do with an
    intent envelope, so they need ``envelope=True``: set on a bare chain they would change
    nothing, and :class:`SemanticError` (a ``ValueError``) says so instead of ignoring them.
    With an envelope, options left at ``None`` take :data:`ENVELOPE_DEFAULTS`; on a bare chain
    they stay ``None``.

    ``discrimination`` is how visible a misunderstanding is: the chance that a hop that got the
    request wrong reports low confidence (draws it from the "unsure" distribution) instead of
    looking as sure as a hop that got it right. It is not calibration (stated confidence equal
    to observed accuracy), which this model neither needs nor measures.

    >>> ChainConfig(envelope=True).realign
    0.5
    >>> ChainConfig().realign is None
    True
    """

    p: float = 0.9  # chance a hop passes the intent on correctly
    n: int = 4  # number of hops (agents)
    envelope: bool = False  # do hops see the original intent and a confidence?
    realign: float | None = None  # chance a hop repairs an inherited misunderstanding
    threshold: float | None = None  # escalate when confidence < threshold
    discrimination: float | None = None  # chance a misunderstanding shows up as low confidence
    human_accuracy: float | None = None  # chance the human fixes the interpretation
    human_minutes: float | None = None  # per escalation

    def __post_init__(self) -> None:
        _prob("p", self.p)
        if self.n < 1:
            raise SemanticError("a chain has at least one hop")
        if not self.envelope:
            given = [name for name in ENVELOPE_DEFAULTS if getattr(self, name) is not None]
            if given:
                names = ", ".join(given)
                raise SemanticError(
                    f"{names} only appl{'ies' if len(given) == 1 else 'y'} to a chain with "
                    f"an "
                    f"intent envelope: pass envelope=True, or leave {names} out"
                )
            return
        for name, default in ENVELOPE_DEFAULTS.items():
            if getattr(self, name) is None:
                object.__setattr__(self, name, default)
        for name in ("realign", "discrimination", "human_accuracy"):
            _prob(name, getattr(self, name))
        if self.option("threshold") < 0:
            raise SemanticError("threshold must be ≥ 0")
        if self.option("human_minutes") < 0:
            raise SemanticError("human_minutes must be ≥ 0")

    def option(self, name: str) -> float:
        """An envelope option as a number: its value with an envelope, 0 on a bare chain (where
        nobody re-aligns or asks)."""
        if name not in ENVELOPE_DEFAULTS:
            raise SemanticError(f"{name!r} is not an envelope option ({', '.join(ENVELOPE_DEFAULTS)})")
        value = getattr(self, name)
        return 0.0 if value is None else float(value)


@dataclass(frozen=True)
class ChainOutcome:
    config: ChainConfig
    trials: int
    accuracy: float  # fraction of requests executed as the user meant
    escalations_per_request: float
    human_minutes_per_request: float
    per_hop_accuracy: tuple[float, ...] = field(default=())  # after each hop

    def line(self) -> str:
        return (
            f"accuracy {self.accuracy:.1%}, {self.escalations_per_request:.2f} escalations and "
            f"{self.human_minutes_per_request:.1f} human minutes per request"
        )


# Confidence distributions: a hop that understood is usually sure (Beta(8, 2), mean 0.8); a
# hop whose misunderstanding "shows" is usually unsure (Beta(2, 5), mean 0.29).
_SURE = (8, 2)
_UNSURE = (2, 5)


def _beta_cdf(x: float, a: int, b: int) -> float:
    """P(X ≤ x) for X ~ Beta(a, b) with whole-number ``a`` and ``b``: the chance that at least
    ``a`` of ``a + b − 1`` uniform draws fall below ``x`` (a binomial tail)."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    n = a + b - 1
    return sum(math.comb(n, j) * x**j * (1 - x) ** (n - j) for j in range(a, n + 1))


def _simulate(
    config: ChainConfig, thresholds: Sequence[float], trials: int, seed: int
) -> tuple[list[float], list[float], list[list[float]]]:
    """Run the chain once per threshold on *common random numbers* (the same draws for every
    threshold), so curves are smooth and a point equals its single-threshold run.

    Each hop draws five uniform numbers per request from one seeded :class:`random.Random`:
    does it repair an inherited misunderstanding, does it interpret correctly, its confidence,
    does a misunderstanding show, does the human fix it. A confidence is drawn by inversion,
    ``c = F⁻¹(u)`` for the Beta CDF ``F``, so "ask when c < t" is exactly "ask when u < F(t)":
    the inverse is never needed, only ``F`` at each threshold.

    Returns accuracy per threshold, mean escalations per threshold, accuracy after each hop
    (thresholds × hops).
    """
    rng = random.Random(seed)
    draw = rng.random
    use_envelope = config.envelope
    realign, discrimination, human = (
        config.option(k) for k in ("realign", "discrimination", "human_accuracy")
    )
    cuts = [(_beta_cdf(t, *_SURE), _beta_cdf(t, *_UNSURE)) for t in thresholds]
    ok = [[True] * trials for _ in cuts]
    asked = [0] * len(cuts)
    after: list[list[float]] = [[] for _ in cuts]
    for _hop in range(config.n):
        repair = [draw() < realign for _ in range(trials)]
        right = [draw() < config.p for _ in range(trials)]
        u = [draw() for _ in range(trials)]
        shows = [draw() < discrimination for _ in range(trials)]
        fixed = [draw() < human for _ in range(trials)]
        for i, (cut_sure, cut_unsure) in enumerate(cuts):
            if use_envelope:
                # re-read the original intent and repair, then this hop's own interpretation
                row = [(o or rp) and rt for o, rp, rt in zip(ok[i], repair, right)]
                # a wrong hop whose misunderstanding shows is unsure; everyone else is sure
                ask = [x < (cut_sure if (o or not sh) else cut_unsure) for o, sh, x in zip(row, shows, u)]
                asked[i] += sum(ask)
                row = [fx if a else o for o, a, fx in zip(row, ask, fixed)]
            else:  # no envelope: an inherited misunderstanding is permanent, and nobody asks
                row = [o and rt for o, rt in zip(ok[i], right)]
            ok[i] = row
            after[i].append(sum(row) / trials)
    return [sum(row) / trials for row in ok], [a / trials for a in asked], after


def simulate_chain(config: ChainConfig, *, trials: int = 4000, seed: int = 0) -> ChainOutcome:
    """Push ``trials`` requests through the chain; count right answers and human escalations.

    A bare chain (no envelope) carries no confidence, so nobody is ever asked.
    """
    if trials < 1:
        raise SemanticError("simulate at least one request")
    acc, esc, after = _simulate(config, [config.option("threshold")], trials, seed)
    e = esc[0]
    return ChainOutcome(config, trials, acc[0], e, e * config.option("human_minutes"), tuple(after[0]))


def threshold_sweep(
    config: ChainConfig, thresholds: Sequence[float], *, trials: int = 4000, seed: int = 0
) -> list[ChainOutcome]:
    """:func:`simulate_chain` at each threshold, on the same random draws.

    Asking needs a confidence, so the sweep turns the envelope on (with the defaults of
    :data:`ENVELOPE_DEFAULTS` for options ``config`` leaves unset)."""
    if trials < 1:
        raise SemanticError("simulate at least one request")
    cfg = replace(config, envelope=True)
    acc, esc, after = _simulate(cfg, thresholds, trials, seed)
    minutes = cfg.option("human_minutes")
    return [
        ChainOutcome(replace(cfg, threshold=float(t)), trials, a, e, e * minutes, tuple(row))
        for t, a, e, row in zip(thresholds, acc, esc, after)
    ]


# -- one concrete chain ----------------------------------------------------------------------------
#: "Arrange a comfortable trip": each word, what the user meant (first) and plausible misreadings.
COMFORTABLE_TRIP: dict[str, tuple[str, ...]] = {
    "comfortable": (
        "quiet hotel, window seat",
        "business class",
        "five-star resort",
        "cheapest direct flight",
    ),
    "trip": ("3 days in Sanya", "a week abroad", "a weekend nearby", "a business trip"),
    "arrange": ("propose options", "book everything now", "just look up prices", "book and pay"),
}


def drift_walk(
    aspects: Mapping[str, Sequence[str]] = COMFORTABLE_TRIP,
    *,
    p_word: float = 0.9,
    n: int = 4,
    envelope: bool = False,
    realign: float | None = None,
    seed: int = 0,
) -> list[dict[str, Any]]:
    """One chain, word by word: at each hop every word keeps its reading with ``p_word`` or
    drifts to a misreading; with ``envelope`` a drifted word is repaired from the original with
    probability ``realign`` (default 0.5; without an envelope there is nothing to repair from,
    and giving ``realign`` raises :class:`SemanticError`).

    Returns one row per hop: ``{"hop", **readings, "right": bool}``. With k ambiguous words a
    hop is right only if all k readings are, so its accuracy is ``p_word ** k`` — the seed's
    "every word carries uncertainty".
    """
    _prob("p_word", p_word)
    if not envelope and realign is not None:
        raise SemanticError(
            "realign only applies with an intent envelope: pass envelope=True, or leave realign out"
        )
    repair = _prob("realign", ENVELOPE_DEFAULTS["realign"] if realign is None else realign)
    rng = random.Random(seed)
    meant = {w: options[0] for w, options in aspects.items()}
    current = dict(meant)
    rows = []
    for hop in range(1, n + 1):
        for word, options in aspects.items():
            if envelope and current[word] != meant[word] and rng.random() < repair:
                current[word] = meant[word]
            if rng.random() >= p_word:
                current[word] = rng.choice([o for o in options if o != current[word]])
        rows.append({"hop": hop, **current, "right": current == meant})
    return rows


def walk_table(rows: Sequence[Mapping[str, Any]]) -> str:
    """:func:`drift_walk` rows as a fixed-width text table (✓/✗ per hop)."""
    if not rows:
        return "(no hops)"
    words = [k for k in rows[0] if k not in ("hop", "right")]
    widths = {w: max(len(w), *(len(str(r[w])) for r in rows)) for w in words}
    head = "hop  " + "  ".join(f"{w:<{widths[w]}}" for w in words) + "  as meant?"
    lines = [head, "-" * len(head)]
    for r in rows:
        lines.append(
            f"{r['hop']:>3}  "
            + "  ".join(f"{str(r[w]):<{widths[w]}}" for w in words)
            + f"  {'✓' if r['right'] else '✗'}"
        )
    return "\n".join(lines)

"""When a human should step in: four triggers as policy rules, a cost model, a review queue.

Theory of operation
-------------------
Seed 004 §12 names four situations in which an agent must stop and ask a person:

1. **permission or capability boundary** — the next step needs a right the agent was not given
   (A2A ``AUTH_REQUIRED``: a grant only someone outside can give), or the only way forward is a
   detour that may leave the user's goal (``INPUT_REQUIRED``: a question about intent, not an
   authorization). The two halves wait for different things, so they are two rules,
   ``permission_boundary`` and ``off_goal_detour``;
2. **deadlock** — agents wait on each other and only outside information breaks the cycle
   (:mod:`agentproto.orchestration.deadlock`);
3. **irreversible, high-stakes action** — deleting data, paying, mass e-mail, deploying: asked
   *however confident* the agent is;
4. **low confidence** — the agent is not sure enough for the stakes.

Each rule is a :class:`HitlRule` — data: a name, a test, the A2A state the task moves to and the
AG-UI interrupt ``reason`` to use (five rules for the four triggers). A :class:`HitlPolicy`
evaluates its rules in order and returns a :class:`HitlDecision` that names the rule that fired
(and any others that would have), so every "ask a human" can be explained and audited.

Asking is not free. :class:`CostModel` prices the two ways to lose: errors that slip through
(``cost_per_error``) and human minutes spent reviewing. :func:`cost_curve` sweeps the confidence
threshold and finds the **sweet spot** — the threshold with the lowest total — and
:meth:`CostModel.break_even_confidence` gives it in closed form for a calibrated agent: review an
action when ``P(error) × catch_rate × cost_per_error > review cost``. :func:`review_queue` adds
what the cost curve hides: one human is a queue, and as the offered load (arrivals × minutes per
review) nears and passes 100 % the wait explodes.

The actual "ask a human" on the wire is an **AG-UI interrupt**: the run ends with
``RUN_FINISHED`` whose ``outcome`` is ``{"type": "interrupt", "interrupts": [...]}``
(spec 1.1 ``basic/patterns/interrupt-resume``). Each interrupt's ``reason`` follows the AG-UI
interrupts page ("Reason taxonomy"): ``tool_call`` when the action is a proposed tool call,
otherwise the rule's core (``input_required``, ``confirmation``) or namespaced
(``agentproto:permission``, ``agentproto:review``) reason. :func:`ask_human_event` builds that
event as a plain wire dict from the decisions; notebook 06 shows the full round trip (the resumed run and
:mod:`agentproto.agui.interrupts`).

Everything here returns data; the cost and queue charts and notebook 19's lab are in
the course layer (``course/hitl.py``).
"""

from __future__ import annotations

import bisect
import math
import random
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import Any

from agentproto.a2a.states import TaskState
from agentproto.errors import AgentProtoError
from agentproto.orchestration.deadlock import DeadlockRun
from agentproto.orchestration.engine import Simulation
from agentproto.orchestration.waitgraph import format_cycle
from agentproto.resources import load_json_source

__all__ = [
    "HitlError",
    "PolicyError",
    "EmptyInterruptError",
    "HitlVerdict",
    "Action",
    "HitlDecision",
    "HitlRule",
    "RULES",
    "HitlPolicy",
    "decide",
    "decision_table",
    "load_actions",
    "actions_from_deadlock",
    "REASON_NAMESPACE",
    "KIT_PERMISSION",
    "KIT_REVIEW",
    "TOOL_CALL_REASON",
    "interrupt_reason_for",
    "interrupt_for",
    "ask_human_event",
    "CostModel",
    "calibrated_accuracy",
    "sample_confidences",
    "CostCurve",
    "cost_curve",
    "QueueStats",
    "review_queue",
]


# -- errors ------------------------------------------------------------------------------------
class HitlError(AgentProtoError):
    """Base class of this module's errors."""

    rule = "hitl"


class PolicyError(HitlError, ValueError):
    """A policy or cost-model parameter is out of range."""

    rule = "hitl.policy"


class EmptyInterruptError(HitlError, ValueError):
    """An interrupt outcome needs at least one interrupt (AG-UI schema: ``interrupts`` minItems 1)."""

    rule = "agui.interrupt-outcome.min-one"


# -- actions and decisions ----------------------------------------------------------------------------
class HitlVerdict(str, Enum):
    PROCEED = "proceed"
    ASK = "ask a human"


@dataclass(frozen=True)
class Action:
    """Something an agent is about to do.

    ``confidence`` is the agent's own estimate that the action is right (0..1); ``stakes`` is
    what a mistake would cost (in the policy's money unit); ``needs`` is the permission scope
    the action requires (``None``: none); ``off_goal`` marks a detour that may leave the user's
    goal; ``deadlock`` is the cycle the action is stuck on, if any; ``need`` is what it waits for.
    """

    name: str
    confidence: float = 1.0
    irreversible: bool = False
    stakes: float = 0.0
    needs: str | None = None
    off_goal: bool = False
    deadlock: tuple[str, ...] = ()
    need: str = ""
    domain: str = ""
    tool_call_id: str | None = None

    def __post_init__(self) -> None:
        if not 0.0 <= self.confidence <= 1.0:
            raise PolicyError(f"confidence of {self.name!r} must be in [0, 1], got {self.confidence}")
        if self.stakes < 0:
            raise PolicyError(f"stakes of {self.name!r} must be ≥ 0, got {self.stakes}")

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Action:
        known = {f for f in cls.__dataclass_fields__}
        unknown = set(data) - known
        if unknown:
            raise PolicyError(f"unknown action field(s) {sorted(unknown)}; known: {sorted(known)}")
        values = dict(data)
        if "deadlock" in values:
            values["deadlock"] = tuple(values["deadlock"])
        return cls(**values)


@dataclass(frozen=True)
class HitlDecision:
    """The policy's answer for one action: proceed, or ask — and which rule said so."""

    verdict: HitlVerdict
    rule: str | None
    reason: str
    state: TaskState
    also: tuple[str, ...] = ()

    @property
    def asks(self) -> bool:
        return self.verdict is HitlVerdict.ASK


@dataclass(frozen=True)
class HitlRule:
    """One trigger: ``test(action, policy)`` returns the reason it fires, or ``None``."""

    name: str
    trigger: str
    test: Callable[[Action, HitlPolicy], str | None]
    state: TaskState
    interrupt_reason: str


#: The kit's namespace for custom interrupt reasons (AG-UI interrupts page, "Custom reasons":
#: "<framework>:<name>"; the ``core:`` prefix is reserved for the spec).
REASON_NAMESPACE = "agentproto"
KIT_PERMISSION = f"{REASON_NAMESPACE}:permission"
KIT_REVIEW = f"{REASON_NAMESPACE}:review"
#: The spec's core reason for an interrupt bound to a tool call (``toolCallId`` must be set).
TOOL_CALL_REASON = "tool_call"


def _permission(action: Action, policy: HitlPolicy) -> str | None:
    if action.needs is not None and action.needs not in policy.granted:
        return f"needs the '{action.needs}' permission, which this agent was not granted"
    return None


def _detour(action: Action, policy: HitlPolicy) -> str | None:
    if action.off_goal:
        return "the only way forward is a detour that may leave the user's goal"
    return None


def _deadlock(action: Action, policy: HitlPolicy) -> str | None:
    if action.deadlock:
        what = f" a default for {action.need}" if action.need else " outside information"
        return f"stuck on the cycle {format_cycle(action.deadlock)}; needs{what}"
    return None


def _irreversible(action: Action, policy: HitlPolicy) -> str | None:
    if action.irreversible and action.stakes >= policy.stakes_limit:
        return (
            f"irreversible and high-stakes ({action.stakes:,.0f} ≥ {policy.stakes_limit:,.0f}): "
            "confirm whatever the confidence"
        )
    return None


def _low_confidence(action: Action, policy: HitlPolicy) -> str | None:
    threshold = policy.threshold_for(action)
    if action.confidence < threshold:
        return f"confidence {action.confidence:.0%} is below the {threshold:.0%} threshold"
    return None


#: The four triggers of seed 004 §12 as five rules, in the order a policy checks them. Trigger 1
#: is two rules because its halves wait for different things: a missing grant
#: (``permission_boundary`` → ``AUTH_REQUIRED``; A2A v1.0.1 §7.6, In-Task Authorization) and a
#: detour that may leave the user's goal (``off_goal_detour`` → ``INPUT_REQUIRED``: the person is
#: asked what they meant, not for a credential). Permission first (asking to *confirm* something
#: the agent may not do is moot), then the detour, then deadlock (it cannot go on at all), then
#: irreversible stakes (asked however confident), then low confidence.
#:
#: The irreversible approvals go to ``INPUT_REQUIRED`` by the kit's choice: §7.6 names "human
#: approval before a destructive action" among its examples of in-task authorization, so
#: ``AUTH_REQUIRED`` would fit them too. The kit keeps ``AUTH_REQUIRED`` for a missing grant,
#: whose credential §7.6.1 has the agent receive out of band unless an in-band way was
#: negotiated, and asks every other question as ordinary input on the task.
#:
#: ``interrupt_reason`` is the reason for a *free-standing* question. The AG-UI interrupts page
#: (docs/concepts/interrupts, "Reason taxonomy") defines three core values — ``tool_call`` (bound
#: to a tool call, ``toolCallId`` set), ``input_required`` and ``confirmation`` (a yes/no "not
#: bound to a tool") — and asks agents to namespace any other reason as ``<framework>:<name>``,
#: with ``core:`` reserved. The kit's own two are therefore ``agentproto:permission`` and
#: ``agentproto:review``. An action bound to a tool call is asked with ``tool_call`` whatever
#: rule fired (see :func:`interrupt_reason_for`).
RULES: tuple[HitlRule, ...] = (
    HitlRule(
        "permission_boundary",
        "permission boundary (missing grant)",
        _permission,
        TaskState.AUTH_REQUIRED,
        KIT_PERMISSION,
    ),
    HitlRule(
        "off_goal_detour",
        "capability boundary (detour)",
        _detour,
        TaskState.INPUT_REQUIRED,
        "confirmation",
    ),
    HitlRule(
        "deadlock", "deadlock the agents cannot break", _deadlock, TaskState.INPUT_REQUIRED, "input_required"
    ),
    HitlRule(
        "irreversible_high_risk",
        "irreversible, high-stakes action",
        _irreversible,
        TaskState.INPUT_REQUIRED,
        "confirmation",
    ),
    HitlRule(
        "low_confidence",
        "confidence below the threshold",
        _low_confidence,
        TaskState.INPUT_REQUIRED,
        KIT_REVIEW,
    ),
)


@dataclass(frozen=True)
class HitlPolicy:
    """When to ask: a confidence threshold (optionally per domain), a stakes limit for
    irreversible actions, the permissions granted, and the rules in order."""

    confidence_threshold: float = 0.8
    stakes_limit: float = 1000.0
    granted: frozenset[str] = frozenset()
    thresholds: Mapping[str, float] = field(default_factory=dict)
    rules: tuple[HitlRule, ...] = RULES

    def __post_init__(self) -> None:
        for name, t in {"confidence_threshold": self.confidence_threshold, **self.thresholds}.items():
            if not 0.0 <= t <= 1.0:
                raise PolicyError(f"threshold {name!r} must be in [0, 1], got {t}")
        if self.stakes_limit < 0:
            raise PolicyError(f"stakes_limit must be ≥ 0, got {self.stakes_limit}")
        if not self.rules:
            raise PolicyError("a policy needs at least one rule")
        object.__setattr__(self, "granted", frozenset(self.granted))

    def threshold_for(self, action: Action) -> float:
        """The domain's own threshold if it has one, else the default."""
        return self.thresholds.get(action.domain, self.confidence_threshold)

    def decide(self, action: Action) -> HitlDecision:
        fired = [(rule, why) for rule in self.rules if (why := rule.test(action, self)) is not None]
        if not fired:
            return HitlDecision(
                HitlVerdict.PROCEED,
                None,
                "no trigger fired: the agent proceeds on its own",
                TaskState.WORKING,
            )
        (rule, why), rest = fired[0], fired[1:]
        return HitlDecision(HitlVerdict.ASK, rule.name, why, rule.state, tuple(r.name for r, _ in rest))

    def rule(self, name: str) -> HitlRule:
        for r in self.rules:
            if r.name == name:
                return r
        raise PolicyError(f"no rule named {name!r}")


def decide(action: Action, policy: HitlPolicy | None = None) -> HitlDecision:
    """Shorthand for ``policy.decide(action)`` with the default :class:`HitlPolicy`."""
    return (policy or HitlPolicy()).decide(action)


def decision_table(actions: Iterable[Action], policy: HitlPolicy | None = None, width: int = 110) -> str:
    """One line per action: verdict, the rule that fired, the A2A state, the reason."""
    policy = policy or HitlPolicy()
    rows = [(a, policy.decide(a)) for a in actions]
    name_w = max([len(a.name) for a, _ in rows] + [6])
    lines = [f"{'action':<{name_w}}  {'verdict':<11}  {'rule':<22}  {'A2A state':<15}  reason"]
    for a, d in rows:
        line = (
            f"{a.name:<{name_w}}  {d.verdict.value:<11}  {d.rule or '—':<22}  {d.state.short:<15}  "
            f"{d.reason}" + (f" (also: {', '.join(d.also)})" if d.also else "")
        )
        lines.append(line if len(line) <= width else line[: width - 1] + "…")
    return "\n".join(lines)


def load_actions(source: str | Path = "hitl_actions") -> list[Action]:
    """Read a JSON list of actions: a packaged scenario by name (``"hitl_actions"``) or a file."""
    data = load_json_source(source)
    return [Action.from_dict(item) for item in data["actions"]]


def actions_from_deadlock(run: DeadlockRun) -> list[Action]:
    """The escalations of a deadlock run (:class:`~agentproto.orchestration.deadlock.DeadlockRun`)
    as actions for the policy — each one trips the ``deadlock`` rule."""
    return [
        Action(name=f"{e.task}: wait for {e.waits_for}", deadlock=tuple(e.cycle), need=e.need)
        for e in run.escalations
    ]


# -- the AG-UI interrupt -------------------------------------------------------------------------------
def _schema(rule: str, action: Action) -> dict[str, Any]:
    if action.tool_call_id is not None:
        # bound to a proposed call: approve, deny, or approve with edits (interrupts page,
        # "Approve with edits": ``editedArgs`` is the capability signal)
        from agentproto.agui.interrupts import APPROVAL_RESPONSE_SCHEMA

        return dict(APPROVAL_RESPONSE_SCHEMA)
    if rule in ("irreversible_high_risk", "off_goal_detour"):
        # a free-standing yes/no: no arguments to edit ("confirmation": boolean default)
        return {
            "type": "object",
            "additionalProperties": False,
            "required": ["approved"],
            "properties": {"approved": {"type": "boolean"}, "comment": {"type": "string"}},
        }
    if rule == "deadlock":
        what = f"a default {action.need or 'value'} to go on with"
        return {
            "type": "object",
            "additionalProperties": False,
            "required": ["default"],
            "properties": {"default": {"type": "string", "description": what}},
        }
    if rule == "permission_boundary":
        return {
            "type": "object",
            "additionalProperties": False,
            "required": ["granted"],
            "properties": {"granted": {"type": "boolean"}, "comment": {"type": "string"}},
        }
    return {
        "type": "object",
        "additionalProperties": False,
        "required": ["approved"],
        "properties": {"approved": {"type": "boolean"}, "correction": {"type": "string"}},
    }


def interrupt_reason_for(action: Action, rule: HitlRule) -> str:
    """The AG-UI ``reason`` for asking about ``action`` under ``rule``.

    An action bound to a tool call (``tool_call_id`` set) is the core value ``tool_call`` — "bound
    to a specific tool call awaiting decision", ``toolCallId`` set — whichever rule fired; the
    rule and the A2A state stay in ``metadata``. Otherwise the rule's own free-standing reason:
    ``input_required``, ``confirmation``, or the namespaced ``agentproto:permission`` /
    ``agentproto:review`` (AG-UI interrupts page, "Reason taxonomy").
    """
    return TOOL_CALL_REASON if action.tool_call_id is not None else rule.interrupt_reason


def interrupt_for(
    action: Action,
    decision: HitlDecision,
    interrupt_id: str,
    *,
    policy: HitlPolicy | None = None,
    expires_at: str | None = None,
) -> dict[str, Any]:
    """One AG-UI ``Interrupt`` (wire dict) asking a person about ``action``.

    ``reason`` is a required open string (spec 1.1 ``basic/patterns/interrupt-resume``); its value
    comes from :func:`interrupt_reason_for`: ``tool_call`` when the action names a tool call,
    else the rule's core (``input_required``, ``confirmation``) or namespaced
    (``agentproto:permission``, ``agentproto:review``) reason. For unknown reasons a client "must
    not error" (interrupts page, "Client routing"). ``responseSchema`` tells the UI what form to
    draw; ``metadata`` records the rule so the answer can be audited.
    """
    if not decision.asks or decision.rule is None:
        raise PolicyError(f"{action.name!r} needs no human: the policy said {decision.verdict.value}")
    rule = (policy or HitlPolicy()).rule(decision.rule)
    item: dict[str, Any] = {
        "id": interrupt_id,
        "reason": interrupt_reason_for(action, rule),
        "message": f"{action.name}: {decision.reason}",
        "responseSchema": _schema(rule.name, action),
        "metadata": {"rule": rule.name, "a2aState": decision.state.value},
    }
    if action.tool_call_id is not None:
        item["toolCallId"] = action.tool_call_id
    if expires_at is not None:
        item["expiresAt"] = expires_at
    return item


def ask_human_event(
    asks: Sequence[tuple[Action, HitlDecision]],
    *,
    thread_id: str,
    run_id: str,
    ids: Callable[[], str],
    policy: HitlPolicy | None = None,
    expires_at: str | None = None,
) -> dict[str, Any]:
    """The AG-UI event that asks a human: ``RUN_FINISHED`` with an interrupt outcome.

    A plain wire dict::

        {"type": "RUN_FINISHED", "threadId": ..., "runId": ...,
         "outcome": {"type": "interrupt", "interrupts": [{"id": ..., "reason": ..., ...}, ...]}}

    An interrupting run is a *closed* run: the answers travel in a new run on the same thread
    (``RunAgentInput.resume``, one entry per interrupt). Only actions whose decision asks are
    included; ``ids`` mints one unique interrupt id each. Raises :class:`EmptyInterruptError`
    when nothing asks — an interrupt outcome must carry at least one interrupt, and a run with
    nothing to ask simply finishes with success. Production code also emits the state and
    messages snapshots first: see :func:`agentproto.agui.interrupts.finish_with_interrupts`.
    """
    interrupts = [interrupt_for(a, d, ids(), policy=policy, expires_at=expires_at) for a, d in asks if d.asks]
    if not interrupts:
        raise EmptyInterruptError(
            "nothing to ask: an interrupt outcome needs at least one interrupt "
            "(finish the run with success instead)"
        )
    return {
        "type": "RUN_FINISHED",
        "threadId": thread_id,
        "runId": run_id,
        "outcome": {"type": "interrupt", "interrupts": interrupts},
    }


# -- the cost of asking --------------------------------------------------------------------------------
@dataclass(frozen=True)
class CostModel:
    """What errors and reviews cost.

    ``cost_per_error``: money lost when a wrong action goes through; ``minutes_per_review``: a
    person's time per escalation; ``cost_per_minute``: what that time costs; ``catch_rate``: the
    share of wrong actions a reviewer actually catches (people are not perfect either).
    """

    cost_per_error: float = 30.0
    minutes_per_review: float = 5.0
    cost_per_minute: float = 1.0
    catch_rate: float = 0.9

    def __post_init__(self) -> None:
        if self.cost_per_error < 0 or self.minutes_per_review < 0 or self.cost_per_minute < 0:
            raise PolicyError("costs and minutes must be ≥ 0")
        if not 0.0 <= self.catch_rate <= 1.0:
            raise PolicyError(f"catch_rate must be in [0, 1], got {self.catch_rate}")

    @property
    def review_cost(self) -> float:
        return self.minutes_per_review * self.cost_per_minute

    def break_even_confidence(self) -> float:
        """For a calibrated agent, ask a human below this confidence.

        A review is worth it when the error it prevents is worth more than it costs:
        ``(1 − c) × catch_rate × cost_per_error > review_cost``, i.e.
        ``c < 1 − review_cost / (catch_rate × cost_per_error)`` (clamped to [0, 1]).
        """
        value = self.catch_rate * self.cost_per_error
        if value <= 0:
            return 0.0
        return min(1.0, max(0.0, 1.0 - self.review_cost / value))


def calibrated_accuracy(confidence: float, temperature: float = 1.0) -> float:
    """How often an agent stating ``confidence`` is actually right.

    ``temperature`` 1 is a calibrated agent; above 1 it is *overconfident* (its stated odds are
    too extreme: true log-odds = stated log-odds / temperature), below 1 underconfident.
    """
    if temperature <= 0:
        raise PolicyError("temperature must be > 0")
    c = min(max(confidence, 1e-9), 1 - 1e-9)
    logit = math.log(c / (1 - c)) / temperature
    return 1.0 / (1.0 + math.exp(-logit))


def sample_confidences(n: int = 1000, *, seed: int = 0, a: float = 9.0, b: float = 1.0) -> list[float]:
    """``n`` stated confidences from a Beta(a, b) distribution. The default Beta(9, 1) makes most
    actions look easy (mean 0.9) and is easy to check by hand: P(confidence < t) = t⁹."""
    rng = random.Random(seed)
    return [rng.betavariate(a, b) for _ in range(n)]


@dataclass(frozen=True)
class CostCurve:
    """Per-threshold totals, normalised per 1,000 actions."""

    thresholds: tuple[float, ...]
    escalated: tuple[float, ...]  # share of actions sent to a human
    errors: tuple[float, ...]  # errors slipping through, per 1,000 actions
    minutes: tuple[float, ...]  # human minutes, per 1,000 actions
    error_cost: tuple[float, ...]
    human_cost: tuple[float, ...]
    total: tuple[float, ...]

    def sweet_spot(self) -> tuple[float, float]:
        """(threshold, total cost) with the lowest total; the lowest such threshold on ties."""
        i = min(range(len(self.total)), key=lambda k: (round(self.total[k], 9), k))
        return self.thresholds[i], self.total[i]

    def at(self, threshold: float) -> dict[str, float]:
        """The row for the threshold nearest to ``threshold``."""
        i = min(range(len(self.thresholds)), key=lambda k: abs(self.thresholds[k] - threshold))
        return {
            "threshold": self.thresholds[i],
            "escalated": self.escalated[i],
            "errors": self.errors[i],
            "minutes": self.minutes[i],
            "error_cost": self.error_cost[i],
            "human_cost": self.human_cost[i],
            "total": self.total[i],
        }


def cost_curve(
    confidences: Sequence[float],
    model: CostModel | None = None,
    *,
    thresholds: Sequence[float] | None = None,
    temperature: float = 1.0,
) -> CostCurve:
    """Expected cost of each confidence threshold (ask a human when confidence < threshold).

    Uses expected values — each action's error probability from :func:`calibrated_accuracy` —
    so the curve is smooth and exact for the given sample.
    """
    model = model or CostModel()
    if not confidences:
        raise PolicyError("need at least one confidence")
    grid = tuple(thresholds) if thresholds is not None else tuple(round(k / 100, 2) for k in range(101))
    conf = sorted(confidences)
    p_err = [1.0 - calibrated_accuracy(c, temperature) for c in conf]
    prefix = [0.0]
    for p in p_err:
        prefix.append(prefix[-1] + p)
    total_err = prefix[-1]
    scale = 1000.0 / len(conf)
    rows: dict[str, list[float]] = {
        k: [] for k in ("escalated", "errors", "minutes", "error_cost", "human_cost", "total")
    }
    for t in grid:
        k = bisect.bisect_left(conf, t)  # actions with confidence < t are escalated
        errors = ((total_err - prefix[k]) + prefix[k] * (1 - model.catch_rate)) * scale
        minutes = k * model.minutes_per_review * scale
        e_cost, h_cost = errors * model.cost_per_error, minutes * model.cost_per_minute
        for key, v in (
            ("escalated", k / len(conf)),
            ("errors", errors),
            ("minutes", minutes),
            ("error_cost", e_cost),
            ("human_cost", h_cost),
            ("total", e_cost + h_cost),
        ):
            rows[key].append(v)
    return CostCurve(
        grid,
        *(tuple(rows[k]) for k in ("escalated", "errors", "minutes", "error_cost", "human_cost", "total")),
    )


# -- the human is a queue ----------------------------------------------------------------------------
@dataclass(frozen=True)
class QueueStats:
    threshold: float
    escalated: int
    #: escalations per minute × minutes per review ÷ reviewers. Not a utilisation (the busy
    #: fraction, at most 100 %): above 1 questions arrive faster than the reviewers answer them.
    offered_load: float
    mean_wait: float  # minutes an escalated action waits for a reviewer
    p95_wait: float
    max_wait: float


def review_queue(
    threshold: float,
    *,
    rate: float = 1.0,
    minutes: float = 240.0,
    reviewers: int = 1,
    model: CostModel | None = None,
    seed: int = 0,
    confidence: tuple[float, float] = (9.0, 1.0),
) -> QueueStats:
    """Simulate ``minutes`` of agent actions arriving at ``rate`` per minute (Poisson); those with
    confidence below ``threshold`` queue for ``reviewers`` people who take
    ``model.minutes_per_review`` each (exponential). Returns how long escalations wait."""
    model = model or CostModel()
    if rate <= 0 or minutes <= 0 or reviewers < 1:
        raise PolicyError("rate and minutes must be > 0 and there must be at least one reviewer")
    sim = Simulation(seed=seed)
    rng = sim.rng
    free = [0.0] * reviewers  # when each reviewer is next free
    waits: list[float] = []

    def arrive() -> None:
        if rng.betavariate(*confidence) < threshold:
            k = min(range(reviewers), key=lambda r: free[r])
            start = max(sim.now, free[k])
            service = rng.expovariate(1.0 / model.minutes_per_review) if model.minutes_per_review > 0 else 0.0
            free[k] = start + service
            waits.append(start - sim.now)
        nxt = rng.expovariate(rate)
        if sim.now + nxt <= minutes:
            sim.schedule(nxt, arrive)

    sim.schedule(rng.expovariate(rate), arrive)
    sim.run()
    waits.sort()
    escalated = len(waits)
    offered = (escalated / minutes) * model.minutes_per_review / reviewers
    return QueueStats(
        threshold,
        escalated,
        offered,
        sum(waits) / escalated if escalated else 0.0,
        waits[min(escalated - 1, int(0.95 * escalated))] if escalated else 0.0,
        waits[-1] if escalated else 0.0,
    )

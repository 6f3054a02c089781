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

The threshold only helps if confidence *means* something. :class:`ChainConfig.calibration` is
the chance that a misunderstanding shows up as low confidence; at 0 a wrong hop is as sure of
itself as a right one and escalations are spent at random. :func:`simulate_chain` is a
vectorised Monte-Carlo of all of it (seeded NumPy generator); :func:`threshold_sweep` gives the
end-to-end accuracy and the human load per request as the threshold moves.
:func:`drift_walk` shows one concrete chain, word by word, for the notebook.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

__all__ = [
    "SemanticError", "EnvelopeError", "chain_accuracy", "accuracy_table", "hops_within",
    "required_hop_accuracy", "envelope_accuracy", "IntentEnvelope", "SEED_ENVELOPE", "ChainConfig",
    "ChainOutcome", "simulate_chain", "threshold_sweep", "COMFORTABLE_TRIP", "drift_walk", "walk_table",
    "plot_accuracy_vs_hops", "plot_threshold_tradeoff",
]


class SemanticError(ValueError):
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
    return _prob("target", target) ** (1 / n)


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
    confidence: float = 1.0
    hops: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if not self.original_intent.strip():
            raise EnvelopeError("the original intent is the one thing the envelope must never lose")
        if not 0.0 <= self.confidence <= 1.0:
            raise EnvelopeError(f"confidence must be in [0, 1], got {self.confidence}")

    @classmethod
    def start(cls, request: str) -> IntentEnvelope:
        """The envelope as the user hands it over: nothing interpreted yet."""
        return cls(request, request, (), 1.0, ())

    def hop(self, agent: str, interpretation: str, assumptions: Sequence[str] = (),
            confidence: float = 1.0) -> IntentEnvelope:
        """The next hop's envelope: the original intent is copied, never rewritten."""
        return replace(self, current_interpretation=interpretation,
                       assumptions=tuple(self.assumptions) + tuple(assumptions),
                       confidence=confidence, hops=self.hops + (agent,))

    def needs_human(self, threshold: float) -> bool:
        """True when this hop is less sure than ``threshold`` — time to ask."""
        return self.confidence < threshold

    def to_dict(self) -> dict[str, Any]:
        return {"originalIntent": self.original_intent, "currentInterpretation": self.current_interpretation,
                "assumptions": list(self.assumptions), "confidence": self.confidence, "hops": list(self.hops)}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> IntentEnvelope:
        if "originalIntent" not in data:
            raise EnvelopeError("envelope without originalIntent: the next hop cannot re-align")
        return cls(data["originalIntent"], data.get("currentInterpretation", data["originalIntent"]),
                   tuple(data.get("assumptions", ())), float(data.get("confidence", 1.0)),
                   tuple(data.get("hops", ())))


#: The seed's example envelope, translated.
SEED_ENVELOPE = IntentEnvelope(
    original_intent="Arrange a comfortable trip for me",
    current_interpretation="budget 15,000 CNY, 3 days / 2 nights, business-travel style",
    assumptions=("comfortable = business level", "trip = short domestic trip",
                 "arrange = propose options, do not book"),
    confidence=0.78,
    hops=("planner",),
)


# -- the Monte Carlo -----------------------------------------------------------------------------
@dataclass(frozen=True)
class ChainConfig:
    """One chain of agents and how it copes with misunderstandings."""

    p: float = 0.9               # chance a hop passes the intent on correctly
    n: int = 4                   # number of hops (agents)
    envelope: bool = False       # do hops see the original intent and a confidence?
    realign: float = 0.5         # chance a hop repairs an inherited misunderstanding (envelope)
    threshold: float = 0.0       # escalate when confidence < threshold (envelope)
    calibration: float = 0.8     # chance a misunderstanding shows up as low confidence
    human_accuracy: float = 0.98
    human_minutes: float = 3.0   # per escalation

    def __post_init__(self) -> None:
        for name in ("p", "realign", "calibration", "human_accuracy"):
            _prob(name, getattr(self, name))
        if self.n < 1:
            raise SemanticError("a chain has at least one hop")
        if self.threshold < 0:
            raise SemanticError("threshold must be ≥ 0")


@dataclass(frozen=True)
class ChainOutcome:
    config: ChainConfig
    trials: int
    accuracy: float                  # fraction of requests executed as the user meant
    escalations_per_request: float
    human_minutes_per_request: float
    per_hop_accuracy: tuple[float, ...] = field(default=())  # after each hop

    def line(self) -> str:
        return (f"accuracy {self.accuracy:.1%}, {self.escalations_per_request:.2f} escalations and "
                f"{self.human_minutes_per_request:.1f} human minutes per request")


# Confidence distributions: a hop that understood is usually sure (Beta(8, 2), mean 0.8); a
# hop whose misunderstanding "shows" is usually unsure (Beta(2, 5), mean 0.29).
_SURE = (8.0, 2.0)
_UNSURE = (2.0, 5.0)


def _simulate(config: ChainConfig, thresholds: Sequence[float], trials: int, seed: int
              ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Run the chain once per threshold on *common random numbers* (the same draws for every
    threshold), so curves are smooth and a point equals its single-threshold run.

    Returns accuracy per threshold, mean escalations per threshold, accuracy after each hop
    (thresholds × hops).
    """
    rng = np.random.default_rng(seed)
    ts = np.asarray(thresholds, dtype=float)[:, None]
    use_envelope = config.envelope
    ok = np.ones((len(ts), trials), dtype=bool)
    escalations = np.zeros((len(ts), trials), dtype=np.int64)
    after = np.empty((len(ts), config.n))
    for hop in range(config.n):
        repair = rng.random(trials) < config.realign
        right = rng.random(trials) < config.p
        sure = rng.beta(*_SURE, trials)
        unsure = rng.beta(*_UNSURE, trials)
        shows = rng.random(trials) < config.calibration
        fixed = rng.random(trials) < config.human_accuracy
        if use_envelope:
            ok |= repair                                   # re-read the original intent, repair
        ok &= right                                        # this hop's own interpretation
        if use_envelope:
            confidence = np.where(ok | ~shows, sure, unsure)
            ask = confidence < ts                          # thresholds × trials
            escalations += ask
            ok = np.where(ask, fixed, ok)
        after[:, hop] = ok.mean(axis=1)
    return ok.mean(axis=1), escalations.mean(axis=1), after


def simulate_chain(config: ChainConfig, *, trials: int = 4000, seed: int = 0) -> ChainOutcome:
    """Push ``trials`` requests through the chain; count right answers and human escalations.

    Without an envelope no confidence travels, so the threshold is ignored (nobody can ask).
    """
    acc, esc, after = _simulate(config, [config.threshold if config.envelope else 0.0], trials, seed)
    e = float(esc[0])
    return ChainOutcome(config, trials, float(acc[0]), e, e * config.human_minutes,
                        tuple(float(a) for a in after[0]))


def threshold_sweep(config: ChainConfig, thresholds: Sequence[float], *, trials: int = 4000,
                    seed: int = 0) -> list[ChainOutcome]:
    """:func:`simulate_chain` at each threshold (envelope on), on the same random draws."""
    cfg = replace(config, envelope=True)
    acc, esc, after = _simulate(cfg, thresholds, trials, seed)
    return [ChainOutcome(replace(cfg, threshold=float(t)), trials, float(a), float(e),
                         float(e) * cfg.human_minutes, tuple(float(x) for x in row))
            for t, a, e, row in zip(thresholds, acc, esc, after)]


# -- one concrete chain ----------------------------------------------------------------------------
#: "Arrange a comfortable trip": each word, what the user meant (first) and plausible misreadings.
COMFORTABLE_TRIP: dict[str, tuple[str, ...]] = {
    "comfortable": ("quiet hotel, window seat", "business class", "five-star resort", "cheapest direct flight"),
    "trip": ("3 days in Sanya", "a week abroad", "a weekend nearby", "a business trip"),
    "arrange": ("propose options", "book everything now", "just look up prices", "book and pay"),
}


def drift_walk(aspects: Mapping[str, Sequence[str]] = COMFORTABLE_TRIP, *, p_word: float = 0.9,
               n: int = 4, envelope: bool = False, realign: float = 0.5, seed: int = 0
               ) -> list[dict[str, Any]]:
    """One chain, word by word: at each hop every word keeps its reading with ``p_word`` or
    drifts to a misreading; with ``envelope`` a drifted word may be repaired from the original.

    Returns one row per hop: ``{"hop", **readings, "right": bool}``. With k ambiguous words a
    hop is right only if all k readings are, so its accuracy is ``p_word ** k`` — the seed's
    "every word carries uncertainty".
    """
    _prob("p_word", p_word)
    rng = random.Random(seed)
    meant = {w: options[0] for w, options in aspects.items()}
    current = dict(meant)
    rows = []
    for hop in range(1, n + 1):
        for word, options in aspects.items():
            if envelope and current[word] != meant[word] and rng.random() < realign:
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
        lines.append(f"{r['hop']:>3}  " + "  ".join(f"{str(r[w]):<{widths[w]}}" for w in words)
                     + f"  {'✓' if r['right'] else '✗'}")
    return "\n".join(lines)


# -- plots ---------------------------------------------------------------------------------------------
def plot_accuracy_vs_hops(p: float = 0.9, n_max: int = 10, ax: Any = None, *, realign: float | None = None,
                          simulated: Sequence[float] | None = None) -> Any:
    """``p ** n`` against n, the seed's four points marked; optionally the envelope curve."""
    if ax is None:
        import matplotlib.pyplot as plt

        _, ax = plt.subplots()
    from agentproto.course.plots import PALETTE

    ns = list(range(1, n_max + 1))
    ax.plot(ns, [chain_accuracy(p, n) for n in ns], "-o", color=PALETTE["bad"], label=f"no envelope: {p:g}ⁿ")
    if realign is not None:
        ax.plot(ns, [envelope_accuracy(p, n, realign) for n in ns], "-s", color=PALETTE["good"],
                label=f"envelope, re-align {realign:.0%}")
    if simulated is not None:
        ax.plot(ns[: len(simulated)], simulated, "x", color="black", label="Monte Carlo")
    if p == 0.9:
        for n in range(1, 5):
            ax.annotate(f"{chain_accuracy(p, n):.1%}", (n, chain_accuracy(p, n)), textcoords="offset points",
                        xytext=(6, 6), fontsize=8)
    ax.set_xlabel("agents in the chain (n)")
    ax.set_ylabel("end-to-end accuracy")
    ax.set_ylim(0, 1.02)
    ax.set_xticks(ns)
    ax.set_title("Misunderstandings compound along the chain")
    ax.legend(fontsize=8)
    return ax


def plot_threshold_tradeoff(outcomes: Sequence[ChainOutcome], ax: Any = None) -> Any:
    """End-to-end accuracy (left axis) and escalations per request (right axis) vs threshold."""
    if ax is None:
        import matplotlib.pyplot as plt

        _, ax = plt.subplots()
    from agentproto.course.plots import PALETTE

    ts = [o.config.threshold for o in outcomes]
    ax.plot(ts, [o.accuracy for o in outcomes], "-", color=PALETTE["good"], label="end-to-end accuracy")
    ax.set_xlabel("confidence threshold for asking a human")
    ax.set_ylabel("end-to-end accuracy", color=PALETTE["good"])
    ax.set_ylim(0, 1.02)
    right = ax.twinx()
    right.plot(ts, [o.escalations_per_request for o in outcomes], "--", color=PALETTE["secondary"],
               label="escalations per request")
    right.set_ylabel("human escalations per request", color=PALETTE["secondary"])
    right.set_ylim(0, max(0.5, max(o.escalations_per_request for o in outcomes) * 1.1))
    right.grid(False)
    lines = ax.get_lines() + right.get_lines()
    ax.legend(lines, [ln.get_label() for ln in lines], fontsize=8, loc="center right")
    ax.set_title("Asking a human: accuracy bought with human time")
    return ax

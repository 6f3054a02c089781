"""Notebook 16's pictures and lab: compounding misunderstandings and what an envelope buys.

The arithmetic and the Monte Carlo are :mod:`agentproto.orchestration.semantic` (they return
numbers and :class:`~agentproto.orchestration.semantic.ChainOutcome` objects); this module draws
them. :func:`plot_accuracy_vs_hops` and :func:`plot_threshold_tradeoff` are the notebook's static
matplotlib figures. :class:`SemanticLab` takes per-hop accuracy, chain length and escalation
threshold in and shows accuracy and human load out, as two SVG charts.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from agentproto.course.plots import PALETTE
from agentproto.course.svg import Marker, Series, SvgLab, line_chart
from agentproto.course.widgets import lab_slider
from agentproto.orchestration.semantic import (
    ChainConfig,
    ChainOutcome,
    chain_accuracy,
    envelope_accuracy,
    simulate_chain,
    threshold_sweep,
)

__all__ = ["SemanticLab", "plot_accuracy_vs_hops", "plot_threshold_tradeoff", "N_MAX", "THRESHOLDS"]


# -- static figures (matplotlib) ------------------------------------------------------------------
def plot_accuracy_vs_hops(
    p: float = 0.9,
    n_max: int = 10,
    ax: Any = None,
    *,
    realign: float | None = None,
    simulated: Sequence[float] | None = None,
) -> Any:
    """``p ** n`` against n, the seed's four points marked; optionally the envelope curve."""
    if ax is None:
        import matplotlib.pyplot as plt

        _, ax = plt.subplots()
    ns = list(range(1, n_max + 1))
    ax.plot(ns, [chain_accuracy(p, n) for n in ns], "-o", color=PALETTE["bad"], label=f"no envelope: {p:g}ⁿ")
    if realign is not None:
        ax.plot(
            ns,
            [envelope_accuracy(p, n, realign) for n in ns],
            "-s",
            color=PALETTE["good"],
            label=f"envelope, re-align {realign:.0%}",
        )
    if simulated is not None:
        ax.plot(ns[: len(simulated)], simulated, "x", color="black", label="Monte Carlo")
    if p == 0.9:
        for n in range(1, 5):
            ax.annotate(
                f"{chain_accuracy(p, n):.1%}",
                (n, chain_accuracy(p, n)),
                textcoords="offset points",
                xytext=(6, 6),
                fontsize=8,
            )
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
    ts = [o.config.option("threshold") for o in outcomes]
    ax.plot(ts, [o.accuracy for o in outcomes], "-", color=PALETTE["good"], label="end-to-end accuracy")
    ax.set_xlabel("confidence threshold for asking a human")
    ax.set_ylabel("end-to-end accuracy", color=PALETTE["good"])
    ax.set_ylim(0, 1.02)
    right = ax.twinx()
    right.plot(
        ts,
        [o.escalations_per_request for o in outcomes],
        "--",
        color=PALETTE["secondary"],
        label="escalations per request",
    )
    right.set_ylabel("human escalations per request", color=PALETTE["secondary"])
    right.set_ylim(0, max(0.5, max(o.escalations_per_request for o in outcomes) * 1.1))
    right.grid(False)
    lines = ax.get_lines() + right.get_lines()
    ax.legend(lines, [ln.get_label() for ln in lines], fontsize=8, loc="center right")
    ax.set_title("Asking a human: accuracy bought with human time")
    return ax


# -- the lab (SVG) ----------------------------------------------------------------------------------
N_MAX = 10
THRESHOLDS = [i / 20 for i in range(21)]


class SemanticLab(SvgLab):
    """Controls: ``p`` (per-hop accuracy), ``n`` (agents), ``threshold`` (ask a human below it)
    and ``discrimination`` (how often a misunderstanding shows as low confidence — error
    visibility, not calibration).

    Left chart: accuracy against chain length — bare chain pⁿ, envelope with re-alignment, and
    envelope + threshold (simulated). Right chart: at the chosen n, accuracy and the share of
    hops sent to a human against the threshold.
    """

    title = "Semantic-gap lab — compounding errors and what an envelope buys"

    def __init__(self, *, realign: float = 0.5, trials: int = 2000, seed: int = 0, auto: bool = True) -> None:
        self.realign, self.trials, self.seed = realign, trials, seed
        self.p = lab_slider("per-hop accuracy p", 0.9, 0.5, 1.0, 0.01, readout_format=".2f")
        self.n = lab_slider("agents n", 4, 1, N_MAX, integer=True)
        self.threshold = lab_slider("ask a human below", 0.5, 0.0, 1.0, 0.05, readout_format=".2f")
        self.discrimination = lab_slider("discrimination", 0.8, 0.0, 1.0, 0.05, readout_format=".2f")
        super().__init__([self.p, self.n, self.threshold, self.discrimination], auto=auto)

    def config(self) -> ChainConfig:
        return ChainConfig(
            p=self.p.value,
            n=self.n.value,
            envelope=True,
            realign=self.realign,
            threshold=self.threshold.value,
            discrimination=self.discrimination.value,
        )

    def render(self) -> tuple[str, str]:
        cfg = self.config()
        p, n, threshold = cfg.p, cfg.n, cfg.option("threshold")
        ns = list(range(1, N_MAX + 1))
        with_threshold = simulate_chain(replace(cfg, n=N_MAX), trials=self.trials, seed=self.seed)
        left = line_chart(
            [
                Series(f"bare chain {p:.2f}ⁿ", ns, [chain_accuracy(p, k) for k in ns], PALETTE["bad"]),
                Series(
                    "envelope, re-align",
                    ns,
                    [envelope_accuracy(p, k, self.realign) for k in ns],
                    PALETTE["primary"],
                ),
                Series(
                    f"+ ask below {threshold:.2f}", ns, list(with_threshold.per_hop_accuracy), PALETTE["good"]
                ),
            ],
            markers=[Marker(n, None, "#555555", f"n = {n}")],
            xlim=(1, N_MAX),
            ylim=(0.0, 1.0),
            width=470,
            height=280,
            legend="upper right" if p < 0.97 else "upper left",
            title="Accuracy vs chain length",
            xlabel="agents in the chain",
            ylabel="end-to-end accuracy",
        )
        sweep = threshold_sweep(cfg, THRESHOLDS, trials=self.trials, seed=self.seed)
        here = simulate_chain(cfg, trials=self.trials, seed=self.seed)
        right = line_chart(
            [
                Series("accuracy", THRESHOLDS, [o.accuracy for o in sweep], PALETTE["good"]),
                Series(
                    "share of hops asked",
                    THRESHOLDS,
                    [o.escalations_per_request / n for o in sweep],
                    PALETTE["secondary"],
                    dash="6,4",
                ),
            ],
            markers=[Marker(threshold, None, "#555555", "your threshold")],
            xlim=(0.0, 1.0),
            ylim=(0.0, 1.0),
            width=470,
            height=280,
            legend="upper left",
            title=f"Asking a human, n = {n}",
            xlabel="confidence threshold",
            ylabel="fraction",
        )
        svg = f"<div style='display:flex;gap:8px;flex-wrap:wrap'>{left}{right}</div>"
        summary = (
            f"p={p:.2f}, n={n}: bare chain {chain_accuracy(p, n):.1%}; envelope "
            f"{envelope_accuracy(p, n, self.realign):.1%}; envelope + ask below {threshold:.2f} "
            f"(discrimination {cfg.option('discrimination'):.2f}): {here.line()}"
        )
        return svg, summary

"""Notebook 16's lab: per-hop accuracy, chain length and escalation threshold in; accuracy and
human load out (two SVG charts, so a redraw is a few milliseconds of NumPy and string work)."""

from __future__ import annotations

from dataclasses import replace

import ipywidgets as widgets

from agentproto.orchestration.semantic import (
    ChainConfig, chain_accuracy, envelope_accuracy, simulate_chain, threshold_sweep,
)
from agentproto.course.svg import Marker, Series, SvgLab, line_chart
from agentproto.course.plots import PALETTE

__all__ = ["SemanticLab"]

N_MAX = 10
THRESHOLDS = [i / 20 for i in range(21)]


class SemanticLab(SvgLab):
    """Controls: ``p`` (per-hop accuracy), ``n`` (agents), ``threshold`` (ask a human below it)
    and ``calibration`` (how often a misunderstanding shows as low confidence).

    Left chart: accuracy against chain length — bare chain pⁿ, envelope with re-alignment, and
    envelope + threshold (simulated). Right chart: at the chosen n, accuracy and the share of
    hops sent to a human against the threshold.
    """

    title = "Semantic-gap lab — compounding errors and what an envelope buys"

    def __init__(self, *, realign: float = 0.5, trials: int = 2000, seed: int = 0, auto: bool = True) -> None:
        self.realign, self.trials, self.seed = realign, trials, seed
        style = {"description_width": "initial"}
        self.p = widgets.FloatSlider(value=0.9, min=0.5, max=1.0, step=0.01, description="per-hop accuracy p",
                                     continuous_update=False, readout_format=".2f", style=style)
        self.n = widgets.IntSlider(value=4, min=1, max=N_MAX, description="agents n",
                                   continuous_update=False, style=style)
        self.threshold = widgets.FloatSlider(value=0.5, min=0.0, max=1.0, step=0.05,
                                             description="ask a human below", continuous_update=False,
                                             readout_format=".2f", style=style)
        self.calibration = widgets.FloatSlider(value=0.8, min=0.0, max=1.0, step=0.05,
                                               description="calibration", continuous_update=False,
                                               readout_format=".2f", style=style)
        super().__init__([self.p, self.n, self.threshold, self.calibration], auto=auto)

    def config(self) -> ChainConfig:
        return ChainConfig(p=self.p.value, n=self.n.value, envelope=True, realign=self.realign,
                           threshold=self.threshold.value, calibration=self.calibration.value)

    def render(self) -> tuple[str, str]:
        cfg = self.config()
        p, n = cfg.p, cfg.n
        ns = list(range(1, N_MAX + 1))
        with_threshold = simulate_chain(replace(cfg, n=N_MAX), trials=self.trials, seed=self.seed)
        left = line_chart(
            [Series(f"bare chain {p:.2f}ⁿ", ns, [chain_accuracy(p, k) for k in ns], PALETTE["bad"]),
             Series("envelope, re-align", ns, [envelope_accuracy(p, k, self.realign) for k in ns], PALETTE["primary"]),
             Series(f"+ ask below {cfg.threshold:.2f}", ns, list(with_threshold.per_hop_accuracy), PALETTE["good"])],
            markers=[Marker(n, None, "#555555", f"n = {n}")], xlim=(1, N_MAX), ylim=(0.0, 1.0),
            width=470, height=280, legend="upper right" if p < 0.97 else "upper left",
            title="Accuracy vs chain length", xlabel="agents in the chain", ylabel="end-to-end accuracy")
        sweep = threshold_sweep(cfg, THRESHOLDS, trials=self.trials, seed=self.seed)
        here = simulate_chain(cfg, trials=self.trials, seed=self.seed)
        right = line_chart(
            [Series("accuracy", THRESHOLDS, [o.accuracy for o in sweep], PALETTE["good"]),
             Series("share of hops asked", THRESHOLDS, [o.escalations_per_request / n for o in sweep],
                    PALETTE["secondary"], dash="6,4")],
            markers=[Marker(cfg.threshold, None, "#555555", "your threshold")], xlim=(0.0, 1.0),
            ylim=(0.0, 1.0), width=470, height=280, legend="upper left",
            title=f"Asking a human, n = {n}", xlabel="confidence threshold", ylabel="fraction")
        svg = f"<div style='display:flex;gap:8px;flex-wrap:wrap'>{left}{right}</div>"
        summary = (f"p={p:.2f}, n={n}: bare chain {chain_accuracy(p, n):.1%}; envelope "
                   f"{envelope_accuracy(p, n, self.realign):.1%}; envelope + ask below {cfg.threshold:.2f} "
                   f"(calibration {cfg.calibration:.2f}): {here.line()}")
        return svg, summary

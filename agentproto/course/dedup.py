"""Notebook 14's pictures and labs: count the charges; move a cache TTL and watch staleness.

The models are :mod:`agentproto.orchestration.dedup` (they return reports); this module draws
them. :func:`plot_side_effects` and :func:`plot_cache_ttl_tradeoff` are the notebook's static
matplotlib figures. The labs (:class:`IdempotencyLab`, :class:`CacheLab`) draw SVG
(:mod:`~agentproto.course.charts`, :mod:`~agentproto.course.svg`), so a redraw costs the
simulation plus about a millisecond.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import ipywidgets as widgets

from agentproto.course.charts import BarSeries, bar_chart
from agentproto.course.plots import PALETTE
from agentproto.course.svg import Marker, Series, SvgLab, line_chart
from agentproto.course.widgets import lab_slider
from agentproto.orchestration.dedup import (
    CacheReport,
    ClientPolicy,
    DedupReport,
    FaultRates,
    cache_analytic,
    cache_experiment,
    run_dedup,
)

__all__ = [
    "IdempotencyLab",
    "CacheLab",
    "KEY_RETENTION_CHOICES",
    "TTL_GRID",
    "side_effects_chart",
    "plot_side_effects",
    "plot_cache_ttl_tradeoff",
]


# -- static figures (matplotlib) ------------------------------------------------------------------
def plot_side_effects(reports: Sequence[DedupReport], ax: Any = None) -> Any:
    """Stacked bars per scenario: payments charged (once), extra charges, never charged."""
    if ax is None:
        import matplotlib.pyplot as plt

        _, ax = plt.subplots()
    xs = list(range(len(reports)))
    charged = [r.intents - r.missing for r in reports]
    dup = [r.duplicate_effects for r in reports]
    ax.bar(xs, charged, color=PALETTE["good"], label="payments charged")
    ax.bar(xs, dup, bottom=charged, color=PALETTE["bad"], label="extra (duplicate) charges")
    missing = [r.missing for r in reports]
    if any(missing):
        ax.bar(
            xs,
            missing,
            bottom=[a + b for a, b in zip(charged, dup)],
            color=PALETTE["muted"],
            label="payments never charged",
        )
    if reports:
        ax.axhline(reports[0].intents, color="black", linestyle="--", linewidth=1, label="payments intended")
    ax.set_xticks(xs, [r.label.replace(" (", "\n(") for r in reports], fontsize=8)
    ax.set_ylabel("charges (count)")
    tops = [a + b + c for a, b, c in zip(charged, dup, missing)] or [1]
    ax.set_ylim(0, max(tops) * 1.3)
    ax.set_title("Side effects: what the users meant vs what happened")
    ax.legend(fontsize=8, loc="upper right", ncols=2)
    return ax


def plot_cache_ttl_tradeoff(
    reports: Sequence[CacheReport],
    ax: Any = None,
    *,
    closed_form: bool = True,
    mark: float | None = None,
    **model: Any,
) -> Any:
    """Hit rate and stale rate against TTL: simulated points and, with ``closed_form``, the
    :func:`cache_analytic` curves on a fine grid (``model``: its keyword arguments)."""
    if ax is None:
        import matplotlib.pyplot as plt

        _, ax = plt.subplots()
    ttls = [r.ttl for r in reports]
    if closed_form and ttls:
        top = max(ttls)
        grid = [top * i / 200 for i in range(201)]
        curve = [cache_analytic(t, **model) for t in grid]
        ax.plot(
            grid, [c[0] for c in curve], "-", color=PALETTE["primary"], alpha=0.7, label="hit rate (formula)"
        )
        ax.plot(grid, [c[1] for c in curve], "-", color=PALETTE["bad"], alpha=0.7, label="stale (formula)")
    ax.plot(ttls, [r.hit_rate for r in reports], "o", color=PALETTE["primary"], label="hit rate (simulated)")
    ax.plot(
        ttls, [r.stale_rate for r in reports], "s", color=PALETTE["bad"], label="stale answers (simulated)"
    )
    if mark is not None:
        ax.axvline(mark, color="black", linestyle=":", linewidth=1)
    ax.set_xlabel("cache TTL (s)")
    ax.set_ylabel("fraction of queries")
    ax.set_ylim(0, 1)
    ax.set_title("Result cache: hit rate vs staleness")
    ax.legend(fontsize=8, loc="center right")
    return ax


# -- labs (SVG) ----------------------------------------------------------------------------------
#: Key retention choices offered by the lab (label → seconds).
KEY_RETENTION_CHOICES: dict[str, float] = {
    "10 s": 10.0,
    "30 s": 30.0,
    "2 min": 120.0,
    "24 h": 86_400.0,
    "forever": math.inf,
}


def side_effects_chart(reports: list[DedupReport], *, width: int = 760, height: int = 290) -> str:
    """SVG: per design, payments charged plus the extra (duplicate) charges, against the intended."""
    names = [r.label for r in reports]
    series = [
        BarSeries("payments charged", [r.intents - r.missing for r in reports], PALETTE["good"]),
        BarSeries("extra (duplicate) charges", [r.duplicate_effects for r in reports], PALETTE["bad"]),
    ]
    if any(r.missing for r in reports):
        series.append(BarSeries("payments never charged", [r.missing for r in reports], PALETTE["muted"]))
    return bar_chart(
        names,
        series,
        stacked=True,
        hline=(reports[0].intents, "payments intended"),
        width=width,
        height=height,
        title="Side effects: what the users meant vs what happened",
        ylabel="charges (count)",
    )


class IdempotencyLab(SvgLab):
    """The same payments under four server/client designs, with duplicates at chosen rates.

    Controls: ``lost_response``, ``double_click``, ``replay`` (probabilities) and
    ``key_retention`` (how long the server remembers a key; replays arrive 5–60 s late).
    """

    title = "Idempotency lab — count the charges"

    def __init__(self, *, intents: int = 150, seed: int = 1, auto: bool = True) -> None:
        self.intents, self.seed = intents, seed
        style = {"description_width": "initial"}

        def prob(desc: str, value: float, top: float) -> widgets.FloatSlider:
            return lab_slider(desc, value, 0.0, top, 0.01, readout_format=".2f")

        self.lost_response = prob("lost responses (→ retry)", 0.2, 0.6)
        self.double_click = prob("double clicks", 0.1, 0.6)
        self.replay = prob("replays", 0.05, 0.5)
        self.key_retention = widgets.Dropdown(
            options=list(KEY_RETENTION_CHOICES), value="24 h", description="key retention", style=style
        )
        super().__init__([self.lost_response, self.double_click, self.replay, self.key_retention], auto=auto)

    def faults(self) -> FaultRates:
        return FaultRates(
            lost_response=self.lost_response.value,
            double_click=self.double_click.value,
            replay=self.replay.value,
        )

    def render(self) -> tuple[str, str]:
        faults, ttl = self.faults(), KEY_RETENTION_CHOICES[self.key_retention.value]
        common: dict[str, Any] = {"intents": self.intents, "seed": self.seed}
        reports = [
            run_dedup(faults=faults, idempotent=False, label="no key", **common),
            run_dedup(
                faults=faults,
                key_ttl=ttl,
                client=ClientPolicy(key_scope="attempt"),
                label="new key per send",
                **common,
            ),
            run_dedup(
                faults=faults,
                key_ttl=ttl,
                store_mode="record-after",
                label="key saved after the work",
                **common,
            ),
            run_dedup(faults=faults, key_ttl=ttl, label="key reserved first", **common),
        ]
        head = (
            f"{self.intents} payments; lost responses {faults.lost_response:.2f}, double clicks "
            f"{faults.double_click:.2f}, replays {faults.replay:.2f}; keys kept "
            f"{self.key_retention.value}"
        )
        return side_effects_chart(reports), head + "\n" + "\n".join(r.line() for r in reports)


#: TTLs at which the lab draws the closed-form curves (finer near zero, where hit rate climbs).
TTL_GRID = [0.0, 5.0, 10.0, 20.0, 30.0, 45.0] + [float(t) for t in range(60, 3601, 60)]


class CacheLab(SvgLab):
    """Hit rate and staleness of a TTL result cache: formula curves plus one simulated hour."""

    title = "Cache lab — hit rate vs staleness"

    def __init__(self, *, seed: int = 0, auto: bool = True) -> None:
        self.seed = seed
        self.ttl = lab_slider("TTL (s)", 600, 0, 3600, 30, integer=True)
        self.changes_per_hour = lab_slider("route changes / hour", 6.0, 0.5, 60.0, 0.5)
        self.query_rate = lab_slider("queries / s", 1.0, 0.1, 5.0, 0.1)
        super().__init__([self.ttl, self.changes_per_hour, self.query_rate], auto=auto)

    def render(self) -> tuple[str, str]:
        mu, lam = self.changes_per_hour.value / 3600.0, self.query_rate.value
        curve = [cache_analytic(t, query_rate=lam, change_rate=mu) for t in TTL_GRID]
        run = cache_experiment(float(self.ttl.value), query_rate=lam, change_rate=mu, seed=self.seed)
        svg = line_chart(
            [
                Series("hit rate (formula)", TTL_GRID, [c[0] for c in curve], PALETTE["primary"]),
                Series("stale answers (formula)", TTL_GRID, [c[1] for c in curve], PALETTE["bad"]),
            ],
            markers=[
                Marker(run.ttl, run.hit_rate, PALETTE["primary"], "simulated hour: hit rate"),
                Marker(run.ttl, run.stale_rate, PALETTE["bad"], "simulated hour: stale"),
                Marker(run.ttl, None, "#555555", f"TTL {run.ttl:g} s"),
            ],
            xlim=(0.0, 3600.0),
            ylim=(0.0, 1.0),
            width=700,
            height=290,
            legend="upper right",
            title="Result cache: every second of TTL buys hits and costs freshness",
            xlabel="cache TTL (s)",
            ylabel="fraction of queries",
        )
        return svg, (
            f"TTL {run.ttl:g} s, {lam:g} queries/s, routes change "
            f"{self.changes_per_hour.value:g}×/hour\n"
            f"simulated hour: {run.queries} queries, hit rate {run.hit_rate:.1%}, "
            f"stale answers {run.stale_rate:.1%}, backend calls {run.backend_calls}, "
            f"mean latency {run.mean_latency:.2f} s"
        )

"""Bar charts and Gantt charts as hand-written SVG, for the labs of notebooks 13–15.

The companion of :mod:`agentproto.course.svg` (line charts): a figure written as an
SVG string costs about a millisecond where a matplotlib PNG costs 50–150 ms, which is what
keeps the labs' redraws well under 100 ms. Static plots in the notebooks still use matplotlib
(``plot_gantt``, ``plot_policy_comparison``, ``plot_side_effects``); these functions draw the
same pictures for the interactive labs.
"""

from __future__ import annotations

import html
import math
from collections.abc import Sequence
from dataclasses import dataclass

from agentproto.course.svg import nice_ticks

__all__ = ["BarSeries", "GanttBar", "bar_chart", "gantt_chart"]


@dataclass(frozen=True)
class BarSeries:
    """One series of bars, one value per category."""

    label: str
    values: Sequence[float]
    color: str


@dataclass(frozen=True)
class GanttBar:
    row: str
    start: float
    end: float
    color: str


def _num(v: float) -> str:
    return f"{int(v)}" if v == int(v) else f"{v:g}"


def _frame(width: int, height: int, title: str) -> list[str]:
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="11">'
    ]
    if title:
        out.append(
            f'<text x="{width / 2:.1f}" y="18" text-anchor="middle" font-weight="bold" '
            f'font-size="12">{html.escape(title)}</text>'
        )
    return out


def _legend(entries: Sequence[tuple[str, str, str]], x_right: float, y: float) -> list[str]:
    """Entries are (label, color, kind) with kind ``box``, ``tick``, ``dash`` or ``cross``."""
    if not entries:
        return []
    w = 34 + 6.2 * max(len(e[0]) for e in entries)
    x = x_right - w - 4
    out = [
        f'<rect x="{x:.1f}" y="{y}" width="{w:.1f}" height="{16 * len(entries) + 6}" fill="white" '
        'fill-opacity="0.9" stroke="#ddd"/>'
    ]
    for i, (label, color, kind) in enumerate(entries):
        cy = y + 14 + 16 * i
        if kind == "box":
            out.append(f'<rect x="{x + 6:.1f}" y="{cy - 9}" width="16" height="10" fill="{color}"/>')
        elif kind == "tick":
            out.append(
                f'<line x1="{x + 6:.1f}" x2="{x + 22:.1f}" y1="{cy - 4}" y2="{cy - 4}" '
                f'stroke="{color}" stroke-width="3"/>'
            )
        elif kind == "dash":
            out.append(
                f'<line x1="{x + 6:.1f}" x2="{x + 22:.1f}" y1="{cy - 4}" y2="{cy - 4}" '
                f'stroke="{color}" stroke-width="1.5" stroke-dasharray="5,3"/>'
            )
        else:
            out.append(
                f'<text x="{x + 14:.1f}" y="{cy}" text-anchor="middle" fill="{color}" '
                'font-weight="bold">✕</text>'
            )
        out.append(f'<text x="{x + 28:.1f}" y="{cy}">{html.escape(label)}</text>')
    return out


def bar_chart(
    categories: Sequence[str],
    series: Sequence[BarSeries],
    *,
    stacked: bool = False,
    ticks: Sequence[tuple[int, int, float]] = (),
    tick_label: str = "",
    hline: tuple[float, str] | None = None,
    width: int = 460,
    height: int = 280,
    title: str = "",
    ylabel: str = "",
) -> str:
    """Grouped (or stacked) bars per category.

    ``ticks``: (category index, series index, value) short black marks drawn over a bar's slot
    (e.g. the worst waiting time above a mean). ``hline``: (value, label) dashed reference line.
    """
    left, right, top, bottom = 56, 10, 30 if title else 12, 40
    pw, ph = width - left - right, height - top - bottom
    tops = []
    for i in range(len(categories)):
        vals = [s.values[i] for s in series]
        tops.append(sum(vals) if stacked else max(vals, default=0.0))
    tops += [v for _, _, v in ticks]
    if hline:
        tops.append(hline[0])
    ymax = max([t for t in tops if math.isfinite(t)] + [1e-9]) * 1.25
    tick_vals = nice_ticks(0.0, ymax)
    ymax = max(ymax, tick_vals[-1] if tick_vals else ymax)

    def sy(v: float) -> float:
        return top + ph - v / ymax * ph

    out = _frame(width, height, title)
    for t in tick_vals:
        out.append(f'<line x1="{left}" x2="{left + pw}" y1="{sy(t):.1f}" y2="{sy(t):.1f}" stroke="#e6e6e6"/>')
        out.append(
            f'<text x="{left - 5}" y="{sy(t) + 3.5:.1f}" text-anchor="end" fill="#444">{_num(t)}</text>'
        )
    slot = pw / max(1, len(categories))
    n = 1 if stacked else max(1, len(series))
    bw = slot * 0.8 / n
    for i, cat in enumerate(categories):
        x0 = left + i * slot + slot * 0.1
        base = 0.0
        for j, s in enumerate(series):
            v = s.values[i]
            x = x0 if stacked else x0 + j * bw
            lo, hi = (base, base + v) if stacked else (0.0, v)
            if hi > lo:
                out.append(
                    f'<rect x="{x:.1f}" y="{sy(hi):.1f}" width="{bw - 1:.1f}" '
                    f'height="{sy(lo) - sy(hi):.1f}" '
                    f'fill="{s.color}"><title>{html.escape(s.label)}: {v:g}</title></rect>'
                )
            if stacked:
                base += v
        out.append(
            f'<text x="{left + (i + 0.5) * slot:.1f}" y="{top + ph + 15}" text-anchor="middle" '
            f'fill="#333">{html.escape(cat)}</text>'
        )
    for i, j, v in ticks:
        x = left + i * slot + slot * 0.1 + (0 if stacked else j * bw)
        out.append(
            f'<line x1="{x + 2:.1f}" x2="{x + bw - 3:.1f}" y1="{sy(v):.1f}" y2="{sy(v):.1f}" '
            'stroke="black" stroke-width="3"/>'
        )
    if hline:
        out.append(
            f'<line x1="{left}" x2="{left + pw}" y1="{sy(hline[0]):.1f}" y2="{sy(hline[0]):.1f}" '
            'stroke="black" stroke-width="1.2" stroke-dasharray="5,3"/>'
        )
    out.append(f'<line x1="{left}" x2="{left}" y1="{top}" y2="{top + ph}" stroke="#666"/>')
    out.append(f'<line x1="{left}" x2="{left + pw}" y1="{top + ph}" y2="{top + ph}" stroke="#666"/>')
    out.append(
        f'<text transform="translate(14,{top + ph / 2:.1f}) rotate(-90)" text-anchor="middle">'
        f"{html.escape(ylabel)}</text>"
    )
    entries = [(s.label, s.color, "box") for s in series]
    if ticks and tick_label:
        entries.append((tick_label, "black", "tick"))
    if hline and hline[1]:
        entries.append((hline[1], "black", "dash"))
    out += _legend(entries, left + pw, top + 2)
    out.append("</svg>")
    return "".join(out)


def gantt_chart(
    rows: Sequence[str],
    bars: Sequence[GanttBar],
    *,
    xlim: tuple[float, float],
    crosses: Sequence[tuple[str, float]] = (),
    legend: Sequence[tuple[str, str]] = (),
    width: int = 560,
    height: int = 280,
    title: str = "",
    xlabel: str = "",
) -> str:
    """One row per resource, bars for busy spans, ✕ marks (e.g. preemptions) under a row.

    The legend is one line between the title and the plot, so it never hides a bar.
    """
    left, right, bottom = 72, 10, 40
    top = (30 if title else 12) + (16 if legend or crosses else 0)
    pw, ph = width - left - right, height - top - bottom
    x0, x1 = xlim
    row_h = ph / max(1, len(rows))
    index = {r: i for i, r in enumerate(rows)}

    def sx(x: float) -> float:
        return left + (min(max(x, x0), x1) - x0) / (x1 - x0) * pw

    out = _frame(width, height, title)
    for t in nice_ticks(x0, x1, 6):
        out.append(f'<line x1="{sx(t):.1f}" x2="{sx(t):.1f}" y1="{top}" y2="{top + ph}" stroke="#eeeeee"/>')
        out.append(
            f'<text x="{sx(t):.1f}" y="{top + ph + 14}" text-anchor="middle" fill="#444">{_num(t)}</text>'
        )
    for r, i in index.items():
        out.append(
            f'<text x="{left - 6}" y="{top + (i + 0.5) * row_h + 4:.1f}" text-anchor="end">'
            f"{html.escape(r)}</text>"
        )
    for b in bars:
        if b.end <= x0 or b.start >= x1 or b.row not in index:
            continue
        y = top + index[b.row] * row_h + row_h * 0.18
        out.append(
            f'<rect x="{sx(b.start):.1f}" y="{y:.1f}" '
            f'width="{max(0.8, sx(b.end) - sx(b.start) - 0.6):.1f}" '
            f'height="{row_h * 0.6:.1f}" fill="{b.color}"/>'
        )
    for r, t in crosses:
        if x0 <= t <= x1 and r in index:
            y = top + (index[r] + 0.92) * row_h
            out.append(
                f'<text x="{sx(t):.1f}" y="{y:.1f}" text-anchor="middle" font-size="10" '
                'font-weight="bold">✕</text>'
            )
    out.append(f'<line x1="{left}" x2="{left + pw}" y1="{top + ph}" y2="{top + ph}" stroke="#666"/>')
    out.append(
        f'<text x="{left + pw / 2:.1f}" y="{height - 8}" text-anchor="middle">{html.escape(xlabel)}</text>'
    )
    entries = [(label, color, "box") for label, color in legend]
    if crosses:
        entries.append(("preemption", "black", "cross"))
    if entries:
        x = float(left)
        for label, color, kind in entries:
            if kind == "box":
                out.append(f'<rect x="{x:.1f}" y="{top - 11}" width="12" height="9" fill="{color}"/>')
            else:
                out.append(
                    f'<text x="{x + 6:.1f}" y="{top - 3}" text-anchor="middle" font-weight="bold">✕</text>'
                )
            out.append(f'<text x="{x + 16:.1f}" y="{top - 3}" font-size="10">{html.escape(label)}</text>')
            x += 24 + 5.8 * len(label)
    out.append("</svg>")
    return "".join(out)

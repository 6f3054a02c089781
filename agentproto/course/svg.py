"""Fast charts for interactive labs: hand-written SVG instead of a matplotlib round trip.

A matplotlib figure rendered to PNG costs 50–150 ms on a busy laptop, mostly in text layout;
a line chart written directly as SVG costs about a millisecond, stays sharp at any zoom and
needs no interactive backend. :func:`line_chart` draws the few things the labs need (lines,
vertical markers, highlighted points, a legend, labelled axes with "nice" ticks) in the
course's palette. :class:`SvgLab` is a :class:`~agentproto.course.lab_frame.Lab` whose
figure is such an SVG: same controls, **Run** button, ``summary_text`` and code-driven API.
Static plots in the notebooks still use matplotlib.
"""

from __future__ import annotations

import html
import math
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import ipywidgets as widgets

from agentproto.course.lab_frame import Lab

__all__ = ["Series", "Marker", "line_chart", "nice_ticks", "SvgLab"]


@dataclass(frozen=True)
class Series:
    """One line: ``dash`` is an SVG dash pattern such as ``"6,4"`` (empty: solid)."""

    label: str
    xs: Sequence[float]
    ys: Sequence[float]
    color: str = "#0072B2"
    width: float = 1.8
    dash: str = ""


@dataclass(frozen=True)
class Marker:
    """A vertical line (``y is None``) or a dot at (x, y), with a legend label."""

    x: float
    y: float | None = None
    color: str = "#009E73"
    label: str = ""
    dash: str = "5,4"


def nice_ticks(lo: float, hi: float, target: int = 5) -> list[float]:
    """Round tick values (1, 2, 2.5 or 5 × 10ᵏ apart) covering [lo, hi]."""
    if not (math.isfinite(lo) and math.isfinite(hi)):
        return []
    if hi <= lo:
        hi = lo + 1.0
    raw = (hi - lo) / max(1, target)
    mag = 10 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 2, 2.5, 5, 10) if m * mag >= raw)
    first = math.ceil(lo / step - 1e-9) * step
    ticks, v = [], first
    while v <= hi + 1e-9 * step:
        ticks.append(round(v, 10))
        v += step
    return ticks


def _fmt(v: float) -> str:
    if abs(v) >= 10_000:
        return f"{v:,.0f}"
    if v == int(v):
        return f"{int(v)}"
    return f"{v:g}"


def line_chart(
    series: Sequence[Series],
    *,
    width: int = 640,
    height: int = 280,
    title: str = "",
    xlabel: str = "",
    ylabel: str = "",
    xlim: tuple[float, float] | None = None,
    ylim: tuple[float, float] | None = None,
    markers: Sequence[Marker] = (),
    legend: str = "upper right",
) -> str:
    """An SVG line chart (a string to put in an ``ipywidgets.HTML``).

    ``legend`` is ``"upper right"``, ``"upper left"``, ``"lower right"`` or ``"lower left"``.
    """
    left, right, top, bottom = 62, 14, 30 if title else 12, 44
    pw, ph = width - left - right, height - top - bottom
    finite = [
        (x, y)
        for s in series
        for x, y in zip(s.xs, s.ys)
        if y is not None and math.isfinite(x) and math.isfinite(y)
    ]
    xs = [p[0] for p in finite] or [0.0, 1.0]
    ys = [p[1] for p in finite] + [m.y for m in markers if m.y is not None]
    ys = ys or [0.0, 1.0]
    x0, x1 = xlim or (min(xs), max(xs))
    y0, y1 = ylim or (min(ys), max(ys))
    if ylim is None:
        pad = (y1 - y0) * 0.06 or 1.0
        y0, y1 = y0 - pad, y1 + pad
    if x1 <= x0:
        x1 = x0 + 1.0

    def sx(x: float) -> float:
        return left + (x - x0) / (x1 - x0) * pw

    def sy(y: float) -> float:
        y = min(max(y, y0 - (y1 - y0)), y1 + (y1 - y0))  # keep wild values near the frame
        return top + (1 - (y - y0) / (y1 - y0)) * ph

    key = f"{width}x{height}:{title}:{xlabel}:{ylabel}"
    clip = f"clip-{zlib.crc32(key.encode()):08x}"  # ids are page-global
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="11">',
        f'<defs><clipPath id="{clip}"><rect x="{left}" y="{top}" width="{pw}" '
        f'height="{ph}"/></clipPath></defs>',
    ]
    if title:
        out.append(
            f'<text x="{left + pw / 2:.1f}" y="18" text-anchor="middle" font-weight="bold" '
            f'font-size="12">{html.escape(title)}</text>'
        )
    for t in nice_ticks(y0, y1):
        y = sy(t)
        out.append(f'<line x1="{left}" x2="{left + pw}" y1="{y:.1f}" y2="{y:.1f}" stroke="#e6e6e6"/>')
        out.append(f'<text x="{left - 5}" y="{y + 3.5:.1f}" text-anchor="end" fill="#444">{_fmt(t)}</text>')
    for t in nice_ticks(x0, x1, 6):
        x = sx(t)
        out.append(f'<line x1="{x:.1f}" x2="{x:.1f}" y1="{top}" y2="{top + ph}" stroke="#f0f0f0"/>')
        out.append(f'<text x="{x:.1f}" y="{top + ph + 14}" text-anchor="middle" fill="#444">{_fmt(t)}</text>')
    out.append(f'<line x1="{left}" x2="{left}" y1="{top}" y2="{top + ph}" stroke="#666"/>')
    out.append(f'<line x1="{left}" x2="{left + pw}" y1="{top + ph}" y2="{top + ph}" stroke="#666"/>')
    out.append(
        f'<text x="{left + pw / 2:.1f}" y="{height - 8}" text-anchor="middle">{html.escape(xlabel)}</text>'
    )
    out.append(
        f'<text transform="translate(14,{top + ph / 2:.1f}) rotate(-90)" text-anchor="middle">'
        f"{html.escape(ylabel)}</text>"
    )
    out.append(f'<g clip-path="url(#{clip})">')
    for s in series:
        segs: list[list[str]] = []
        cur: list[str] = []
        for x, y in zip(s.xs, s.ys):
            if y is None or not math.isfinite(y):
                if cur:
                    segs.append(cur)
                cur = []
                continue
            cur.append(f"{sx(x):.1f},{sy(y):.1f}")
        if cur:
            segs.append(cur)
        dash = f' stroke-dasharray="{s.dash}"' if s.dash else ""
        for seg in segs:
            out.append(
                f'<polyline fill="none" stroke="{s.color}" stroke-width="{s.width}"{dash} '
                f'stroke-linejoin="round" points="{" ".join(seg)}"/>'
            )
    for m in markers:
        if m.y is None:
            x = sx(m.x)
            out.append(
                f'<line x1="{x:.1f}" x2="{x:.1f}" y1="{top}" y2="{top + ph}" stroke="{m.color}" '
                f'stroke-width="1.5" stroke-dasharray="{m.dash}"/>'
            )
        else:
            out.append(f'<circle cx="{sx(m.x):.1f}" cy="{sy(m.y):.1f}" r="5" fill="{m.color}"/>')
    out.append("</g>")
    entries = [(s.label, s.color, s.dash, "line") for s in series if s.label]
    entries += [
        (m.label, m.color, m.dash if m.y is None else "", "dot" if m.y is not None else "line")
        for m in markers
        if m.label
    ]
    if entries:
        lw = 12 + 6.2 * max(len(e[0]) for e in entries) + 26
        box_h = 16 * len(entries) + 6
        lx = left + pw - lw - 4 if legend.endswith("right") else left + 6
        ly = top + 4 if legend.startswith("upper") else top + ph - box_h - 4
        out.append(
            f'<rect x="{lx:.1f}" y="{ly:.1f}" width="{lw:.1f}" height="{box_h}" '
            'fill="white" fill-opacity="0.85" stroke="#ddd"/>'
        )
        for i, (label, color, dash, kind) in enumerate(entries):
            y = round(ly + 14 + 16 * i, 1)
            if kind == "dot":
                out.append(f'<circle cx="{lx + 16:.1f}" cy="{y - 4}" r="4.5" fill="{color}"/>')
            else:
                d = f' stroke-dasharray="{dash}"' if dash else ""
                out.append(
                    f'<line x1="{lx + 6:.1f}" x2="{lx + 26:.1f}" y1="{y - 4}" y2="{y - 4}" '
                    f'stroke="{color}" stroke-width="2"{d}/>'
                )
            out.append(f'<text x="{lx + 32:.1f}" y="{y}">{html.escape(label)}</text>')
    out.append("</svg>")
    return "".join(out)


class SvgLab(Lab):
    """A :class:`~agentproto.course.lab_frame.Lab` whose figure is an SVG string.

    Subclasses implement :meth:`render` returning ``(svg, summary_text)``; everything else —
    controls, **Run** button, ``summary_text``, ``runs``, the short text form — is the Lab's.
    The chart is ``self.chart`` (an ``ipywidgets.HTML``) instead of ``self.image``.
    """

    def __init__(self, controls: Sequence[widgets.Widget], *, auto: bool = True) -> None:
        self.chart = widgets.HTML()
        self.svg = ""
        super().__init__(controls, figsize=(1.0, 1.0), auto=auto)

    def render(self) -> tuple[str, str]:  # pragma: no cover - abstract
        raise NotImplementedError

    def draw(self, fig: Any) -> str:  # the Lab hook; unused here
        raise NotImplementedError("SvgLab draws SVG: implement render()")

    def update(self) -> None:
        """Re-run the model with the current control values and redraw the SVG."""
        self.svg, self.summary_text = self.render()
        self.chart.value = self.svg
        self.summary.value = "<pre style='margin:0'>" + html.escape(self.summary_text) + "</pre>"
        self.runs += 1

    def extra_buttons(self) -> list[widgets.Widget]:
        """Buttons shown next to **Run** (none by default)."""
        return []

    def widget(self) -> widgets.VBox:
        rows: list[widgets.Widget] = [widgets.HTML(f"<b>{html.escape(self.title)}</b>")]
        rows += [widgets.HBox(self.controls[i : i + 3]) for i in range(0, len(self.controls), 3)]
        rows += [widgets.HBox([self.run_button, *self.extra_buttons()]), self.summary, self.chart]
        return widgets.VBox(rows)

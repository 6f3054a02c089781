"""Reusable notebook controls that are equally easy to drive from code.

:class:`Stepper` walks through a sequence (events, simulation frames) one item at a time with
Prev/Next/Reset buttons and a slider. Tests drive it exactly as a learner would:
``stepper.next_button.click()`` then read ``stepper.view.value``.
"""

from __future__ import annotations

import html
import time
from collections.abc import Callable, Sequence
from typing import Any

import ipywidgets as widgets

__all__ = ["Stepper", "lab_slider", "measure_redraw", "show"]


class Stepper:
    """Step through ``items``; ``render(index, item) -> str`` returns HTML for the current one."""

    def __init__(
        self,
        items: Sequence[Any],
        render: Callable[[int, Any], str],
        title: str = "",
    ) -> None:
        if not items:
            raise ValueError("nothing to step through")
        self.items = items
        self.render = render
        self.prev_button = widgets.Button(description="◀ Prev", layout=widgets.Layout(width="90px"))
        self.next_button = widgets.Button(description="Next ▶", layout=widgets.Layout(width="90px"))
        self.reset_button = widgets.Button(description="Reset", layout=widgets.Layout(width="80px"))
        self.slider = widgets.IntSlider(
            value=0, min=0, max=len(items) - 1, description="step", continuous_update=True
        )
        self.view = widgets.HTML()
        self.title = title
        self.prev_button.on_click(lambda _b: self.go(self.index - 1))
        self.next_button.on_click(lambda _b: self.go(self.index + 1))
        self.reset_button.on_click(lambda _b: self.go(0))
        self.slider.observe(lambda change: self._redraw(), names="value")
        self._redraw()

    @property
    def index(self) -> int:
        return int(self.slider.value)

    def go(self, index: int) -> None:
        """Jump to ``index`` (clamped to the valid range)."""
        self.slider.value = max(0, min(len(self.items) - 1, index))

    def _redraw(self) -> None:
        i = self.slider.value
        header = f"<b>{html.escape(self.title)}</b> — " if self.title else ""
        self.view.value = f"{header}step {i + 1} of {len(self.items)}<br>" + self.render(i, self.items[i])

    def widget(self) -> widgets.VBox:
        controls = widgets.HBox([self.prev_button, self.next_button, self.reset_button, self.slider])
        return widgets.VBox([controls, self.view])

    def _ipython_display_(self) -> None:  # pragma: no cover - needs a front end
        show(self.widget())


def lab_slider(
    description: str,
    value: float,
    lo: float,
    hi: float,
    step: float | None = None,
    *,
    integer: bool = False,
    readout_format: str | None = None,
) -> Any:
    """A lab's slider (a ``FloatSlider``, an ``IntSlider`` with ``integer=True``) from ``lo`` to
    ``hi``: it fires once on release (``continuous_update=False``: each change re-runs a
    simulation) and shows its whole label (``description_width: initial``)."""
    options: dict[str, Any] = {"value": value, "min": lo, "max": hi, "description": description}
    if step is not None:
        options["step"] = step
    if readout_format is not None:
        options["readout_format"] = readout_format
    kind = widgets.IntSlider if integer else widgets.FloatSlider
    return kind(continuous_update=False, style={"description_width": "initial"}, **options)


def show(widget: widgets.Widget) -> None:  # pragma: no cover - needs a front end
    """Display ``widget`` in the notebook (what a widget's ``_ipython_display_`` does)."""
    from IPython.display import display

    render: Callable[..., object] = display  # IPython ships no annotations
    render(widget)


def measure_redraw(action: Callable[[], Any], repeat: int = 5) -> float:
    """Median wall time of ``action()`` in milliseconds (for "widgets redraw in < 100 ms").

    For reporting only: tests must not assert on timings.
    """
    samples = []
    for _ in range(max(1, repeat)):
        t0 = time.perf_counter()
        action()
        samples.append((time.perf_counter() - t0) * 1000)
    samples.sort()
    return samples[len(samples) // 2]

"""The common frame of the orchestration notebooks' interactive labs (the ``agentproto lab``
command, which opens the course in JupyterLab, is :mod:`agentproto.course.launcher`).

A *lab* is a row of controls, a **Run** button, a one-paragraph summary and a figure. The
simulation and the drawing live in the topic modules; a lab only wires controls to them. Each
lab is equally easy to drive from code — set a control's ``.value``, call
``lab.run_button.click()``, read ``lab.summary_text`` — which is how the tests check them.

The figure is drawn with matplotlib's object-oriented API on a private
:class:`~matplotlib.figure.Figure` (never pyplot, so nothing leaks into the notebook's inline
output) and shipped to the browser as a PNG in an :class:`ipywidgets.Image`. That needs no
interactive matplotlib backend, works offline, and redraws in tens of milliseconds; the
notebooks measure it with :func:`agentproto.course.measure_redraw`.
"""

from __future__ import annotations

import html
import io
from collections.abc import Sequence
from typing import Any

import ipywidgets as widgets
from matplotlib.figure import Figure

__all__ = ["Lab", "figure_png"]


def figure_png(fig: Figure, dpi: int = 80) -> bytes:
    """Render ``fig`` to PNG bytes with the Agg renderer."""
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi, pil_kwargs={"compress_level": 1})
    return buf.getvalue()


class Lab:
    """Base class: subclasses build their controls and implement :meth:`draw`.

    ``draw(fig)`` runs the model for the current control values, draws on ``fig`` and returns
    the summary text (plain text; shown in a ``<pre>`` block).
    """

    title = "Lab"

    def __init__(
        self,
        controls: Sequence[widgets.Widget],
        *,
        figsize: tuple[float, float] = (9.0, 4.0),
        dpi: int = 80,
        auto: bool = True,
    ) -> None:
        self.controls = list(controls)
        self.run_button = widgets.Button(
            description="Run", button_style="primary", icon="play", layout=widgets.Layout(width="110px")
        )
        self.summary = widgets.HTML()
        self.image = widgets.Image(format="png")
        self.figure = Figure(figsize=figsize)
        self.dpi = dpi
        self.summary_text = ""
        self.runs = 0
        self.run_button.on_click(lambda _b: self.update())
        if auto:  # sliders redraw when released (continuous_update=False on each control)
            for control in self.controls:
                control.observe(lambda _change: self.update(), names="value")
        self.update()

    # -- subclass API ---------------------------------------------------------------------
    def draw(self, fig: Figure) -> str:  # pragma: no cover - abstract
        raise NotImplementedError

    # -- running ----------------------------------------------------------------------------
    def update(self) -> None:
        """Re-run the model with the current control values and redraw."""
        self.figure.clear()
        self.summary_text = self.draw(self.figure)
        self.summary.value = "<pre style='margin:0'>" + html.escape(self.summary_text) + "</pre>"
        self.image.value = figure_png(self.figure, self.dpi)
        self.runs += 1

    # -- display ------------------------------------------------------------------------------
    def widget(self) -> widgets.VBox:
        rows: list[widgets.Widget] = [widgets.HTML(f"<b>{html.escape(self.title)}</b>")]
        rows += [widgets.HBox(self.controls[i : i + 3]) for i in range(0, len(self.controls), 3)]
        rows += [self.run_button, self.summary, self.image]
        return widgets.VBox(rows)

    def _repr_mimebundle_(self, **kwargs: Any) -> dict[str, Any]:
        """Display the widget; keep the plain-text form short and stable (nbval compares it)."""
        bundle = self.widget()._repr_mimebundle_(**kwargs) or {}
        bundle["text/plain"] = f"{type(self).__name__}: {self.title}"
        return bundle

    def __repr__(self) -> str:
        return f"<{type(self).__name__}: {self.title}>"

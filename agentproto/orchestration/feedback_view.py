"""Notebook 20's lab: the same drifting world with and without a feedback loop.

:class:`FeedbackLab` has sliders for the loop length (minutes between corrections), the gain, the
observation latency and the drift, and check boxes for *feedback on* and *compensate*. The chart
(SVG, so a redraw takes milliseconds) shows the estimate's error over time without feedback
(grey) and with the loop (blue); the summary gives mean error, recovery time after the step,
overshoot and a verdict (settles / oscillates / diverges). **Reset** restores the defaults.
From code::

    lab = FeedbackLab()
    lab.period.value = 1
    lab.summary_text            # "... diverges"
    lab.reset_button.click()
"""

from __future__ import annotations

import ipywidgets as widgets

from agentproto.orchestration.feedback import Drift, Loop, LoopTrace, run_loop
from agentproto.course.svg import Marker, Series, SvgLab, line_chart
from agentproto.course.plots import PALETTE

__all__ = ["FeedbackLab", "trace_chart"]

DEFAULTS = {"period": 10, "gain": 0.5, "latency": 5.0, "ramp": 0.02, "feedback": True, "compensate": False}


def trace_chart(open_loop: LoopTrace, closed: LoopTrace | None, *, width: int = 680, height: int = 280) -> str:
    """SVG: tracking error over time without and with feedback; the step marked."""
    series = [Series("no feedback", open_loop.times, open_loop.tracking, "#999999", width=2.2)]
    if closed is not None:
        series.append(Series("observed error (noisy)", closed.times, closed.error, "#b8d3ea", width=1.0))
        series.append(Series(closed.label, closed.times, closed.tracking, PALETTE["primary"], width=2.0))
    markers = [Marker(open_loop.drift.step_at, None, PALETTE["bad"], "road closes")] \
        if open_loop.drift.step_at is not None else []
    return line_chart(series, markers=markers, ylim=(-15.0, 15.0), width=width, height=height,
                      legend="lower right", title="Error of the estimate (minutes late), same world, same noise",
                      xlabel="time (simulated minutes)", ylabel="estimate error (min)")


class FeedbackLab(SvgLab):
    """Execute → observe → compare → correct, against a drifting world."""

    title = "Feedback loop lab — loop length, gain and latency"

    def __init__(self, *, seed: int = 0, horizon: int = 240, auto: bool = True) -> None:
        self.seed, self.horizon = seed, horizon
        style = {"description_width": "initial"}
        self.period = widgets.IntSlider(value=DEFAULTS["period"], min=1, max=60, description="loop length (min)",
                                        continuous_update=False, style=style)
        self.gain = widgets.FloatSlider(value=DEFAULTS["gain"], min=0.05, max=2.0, step=0.05, description="gain",
                                        continuous_update=False, style=style)
        self.latency = widgets.FloatSlider(value=DEFAULTS["latency"], min=0.0, max=30.0, step=1.0,
                                           description="latency (min)", continuous_update=False, style=style)
        self.ramp = widgets.FloatSlider(value=DEFAULTS["ramp"], min=0.0, max=0.1, step=0.005,
                                        description="drift (min/min)", continuous_update=False,
                                        readout_format=".3f", style=style)
        self.feedback = widgets.Checkbox(value=DEFAULTS["feedback"], description="feedback on")
        self.compensate = widgets.Checkbox(value=DEFAULTS["compensate"], description="compensate for latency")
        self.reset_button = widgets.Button(description="Reset", icon="undo", layout=widgets.Layout(width="110px"))
        self.reset_button.on_click(lambda _b: self.reset())
        self.open_loop: LoopTrace | None = None
        self.closed: LoopTrace | None = None
        super().__init__([self.period, self.gain, self.latency, self.ramp, self.feedback, self.compensate],
                         auto=auto)

    def reset(self) -> None:
        """Back to the default settings (one redraw)."""
        with self.hold():
            for name, value in DEFAULTS.items():
                getattr(self, name).value = value
        self.update()

    def hold(self) -> "_Hold":
        return _Hold(self)

    def extra_buttons(self) -> list[widgets.Widget]:
        return [self.reset_button]

    def update(self) -> None:
        if getattr(self, "_held", False):
            return
        super().update()

    def render(self) -> tuple[str, str]:
        drift = Drift(ramp=self.ramp.value)
        self.open_loop = run_loop(drift, None, horizon=self.horizon, seed=self.seed)
        self.closed = None
        if self.feedback.value:
            loop = Loop(period=self.period.value, gain=self.gain.value, latency=self.latency.value,
                        compensate=self.compensate.value)
            self.closed = run_loop(drift, loop, horizon=self.horizon, seed=self.seed)
        text = self.open_loop.summary()
        if self.closed is not None:
            text += "\n" + self.closed.summary()
        return trace_chart(self.open_loop, self.closed), text


class _Hold:
    """Context manager: change several controls with a single redraw at the end."""

    def __init__(self, lab: FeedbackLab) -> None:
        self.lab = lab

    def __enter__(self) -> None:
        self.lab._held = True

    def __exit__(self, *exc: object) -> None:
        self.lab._held = False

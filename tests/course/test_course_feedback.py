"""Notebook 20's lab driven from code, and the SVG charts the labs draw with."""

from __future__ import annotations

from matplotlib.figure import Figure

from agentproto.course.feedback import FeedbackLab, plot_gain, plot_loop_length, plot_traces
from agentproto.course.svg import Marker, Series, line_chart, nice_ticks
from agentproto.orchestration.feedback import Loop, compare_loops, gain_sweep, loop_length_sweep


def test_the_default_lab_shows_a_loop_that_settles():
    lab = FeedbackLab()
    first, second = lab.summary_text.splitlines()
    assert first.startswith("no feedback:")
    assert second.startswith("loop every 10 min, gain 0.5, latency 5 min") and second.endswith("settles")


def test_a_one_minute_loop_with_latency_diverges_until_compensated():
    lab = FeedbackLab()
    lab.period.value = 1
    assert lab.summary_text.endswith("diverges")
    lab.compensate.value = True
    assert lab.summary_text.endswith("settles")


def test_reset_restores_the_defaults_with_one_redraw():
    lab = FeedbackLab()
    default = lab.summary_text
    lab.period.value, lab.gain.value = 2, 1.5
    runs = lab.runs
    lab.reset_button.click()
    assert lab.summary_text == default and lab.runs == runs + 1
    assert lab.period.value == 10 and lab.gain.value == 0.5


def test_turning_feedback_off_leaves_only_the_open_loop():
    lab = FeedbackLab()
    lab.feedback.value = False
    assert lab.closed is None and len(lab.summary_text.splitlines()) == 1
    assert "observed error" not in lab.chart.value
    lab.run_button.click()
    assert lab._repr_mimebundle_()["text/plain"].startswith("FeedbackLab:")


def test_nice_ticks_are_round_and_cover_the_range():
    assert nice_ticks(0, 1) == [0.0, 0.2, 0.4, 0.6, 0.8, 1.0]
    assert nice_ticks(-10, 15) == [-10.0, -5.0, 0.0, 5.0, 10.0, 15.0]
    assert nice_ticks(0, 7000) == [0.0, 2000.0, 4000.0, 6000.0]


def test_a_line_chart_draws_every_series_marker_and_label():
    svg = line_chart(
        [Series("a", [0, 1, 2], [0, 1, None]), Series("b", [0, 2], [1, 1], dash="4,2")],
        markers=[Marker(1.0, None, label="now"), Marker(2.0, 1.0, label="best")],
        title="T",
        xlabel="x (s)",
        ylabel="y (m)",
    )
    assert svg.startswith("<svg") and svg.endswith("</svg>")
    assert svg.count("<polyline") == 2  # the gap (None) ends series a after two points
    for text in ("T", "x (s)", "y (m)", "now", "best"):
        assert f">{text}<" in svg


# -- the static figures ----------------------------------------------------------------------------
def test_the_plots_are_labelled():
    traces = compare_loops([None, Loop()])
    ax = plot_traces(traces, Figure().subplots())
    assert ax.get_xlabel() == "time (simulated minutes)" and ax.get_legend() is not None
    assert [line.get_label() for line in ax.get_lines()][:2] == [t.label for t in traces]
    fig = plot_loop_length(
        {"naive": loop_length_sweep([2, 10], seeds=2)}, open_loop_error=5.0, fig=Figure(figsize=(11, 3.8))
    )
    assert len(fig.axes) == 2 and all(a.get_ylabel() for a in fig.axes)
    ax = plot_gain(
        {"latency 5": gain_sweep([0.5, 1.0], seeds=2)}, open_loop_error=5.0, ax=Figure().subplots()
    )
    assert "gain" in ax.get_xlabel() and ax.get_ylim() == (0.0, 10.0)  # twice the open-loop error


def test_the_self_reinforcement_figure_has_a_line_and_a_pair_of_bars_per_design():
    import matplotlib.pyplot as plt

    from agentproto.course.feedback import plot_self_reinforcement
    from agentproto.orchestration.feedback import compare_router_designs

    traces = compare_router_designs(n=400)
    fig = plot_self_reinforcement(traces)
    left, right = fig.axes
    assert [line.get_label() for line in left.get_lines()] == list(traces)
    assert len(right.patches) == 2 * len(traces)
    plt.close(fig)


def test_the_router_lab_puts_the_self_reinforcing_router_beside_the_chosen_design():
    from agentproto.course.feedback import RouterLab

    lab = RouterLab(n=600)
    assert [t.design for t in lab.traces] == ["own outputs", "explore"]
    assert lab.summary_text.startswith("own outputs:") and "<svg" in lab.svg
    lab.design.value = "held-out labels"
    assert [t.design for t in lab.traces] == ["own outputs", "held-out labels"]
    lab.share.value = 0.0  # no held-out sample: nothing to learn from, so nothing changes
    assert lab.traces[1].judged == (0, 0)

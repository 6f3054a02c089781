"""Notebook 13's lab can be driven from code exactly as a learner drives it."""

from __future__ import annotations

from matplotlib.colors import to_rgb
from matplotlib.figure import Figure

from agentproto.course.scheduling import (
    SchedulingLab,
    plot_gantt,
    plot_policy_comparison,
    plot_starvation,
    priority_colors,
)
from agentproto.orchestration.scheduler import (
    PRIORITY,
    compare_policies,
    seed_example,
    simulate,
    sweep_arrival_rates,
)


def test_moving_the_sliders_and_clicking_run_reruns_the_simulation():
    lab = SchedulingLab(duration=120.0, auto=False)
    before = lab.summary_text
    assert "FIFO:" in before and "priority + aging:" in before and lab.svg.count("<svg") == 2
    lab.rate.value = 0.4
    lab.priority["report"].value = 5
    lab.run_button.click()
    assert lab.summary_text != before
    assert "at 0.40/s" in lab.summary_text and "report=5" in lab.summary_text
    assert "priority 5:" in lab.summary_text  # reports are now the most urgent level


def test_sliders_redraw_on_their_own_when_auto_is_on():
    lab = SchedulingLab(duration=60.0)
    runs = lab.runs
    lab.priority["complaint"].value = 4
    assert lab.runs == runs + 1 and "complaint=4" in lab.summary_text


def test_the_gantt_policy_choice_changes_the_picture_not_the_numbers():
    lab = SchedulingLab(duration=60.0, auto=False)
    text, svg = lab.summary_text, lab.svg
    lab.gantt_policy.value = "FIFO"
    lab.run_button.click()
    assert lab.summary_text == text and lab.svg != svg


def test_the_lab_displays_as_a_widget_with_a_short_stable_text_form():
    bundle = SchedulingLab(duration=30.0, auto=False)._repr_mimebundle_()
    assert bundle["text/plain"] == "SchedulingLab: Scheduling lab — same requests, three policies"
    assert "application/vnd.jupyter.widget-view+json" in bundle


def test_bar_chart_draws_one_rect_per_nonzero_bar_plus_legend_boxes_and_worst_wait_ticks():
    from agentproto.course.charts import BarSeries, bar_chart

    svg = bar_chart(
        ["FIFO", "priority"],
        [BarSeries("p2", [1.0, 0.0], "#111"), BarSeries("p1", [2.0, 3.0], "#222")],
        ticks=[(0, 1, 5.0)],
        tick_label="worst wait",
        title="t",
        ylabel="s",
    )
    assert svg.startswith("<svg") and svg.endswith("</svg>")
    assert svg.count("<title>") == 3  # the zero bar is not drawn
    assert ">worst wait<" in svg and ">FIFO<" in svg and 'stroke-width="3"' in svg


def test_gantt_chart_clips_to_the_window_and_marks_preemptions():
    from agentproto.course.charts import GanttBar, gantt_chart

    bars = [GanttBar("a", 0, 5, "#111"), GanttBar("b", 50, 60, "#222"), GanttBar("a", 8, 12, "#111")]
    svg = gantt_chart(["a", "b"], bars, xlim=(0, 10), crosses=[("a", 5.0)], legend=[("priority 1", "#111")])
    assert svg.count('fill="#111"/>') == 2 + 1  # two bars in the window + the legend box
    assert 'fill="#222"' not in svg  # the bar after the window is not drawn
    assert svg.count("✕") == 2  # the mark and its legend entry


# -- the static figures ----------------------------------------------------------------------------
def test_the_gantt_chart_has_one_row_per_agent_and_marks_the_preemption():
    story = simulate(seed_example(), PRIORITY)
    ax = plot_gantt(story, Figure().subplots())
    assert [t.get_text() for t in ax.get_yticklabels()] == list(story.agents)
    (crosses,) = ax.collections[-1:]
    assert [tuple(o) for o in crosses.get_offsets()][0][0] == story.preemptions[0].time
    assert ax.get_title(loc="left") == "Who ran when — priority"


def test_the_policy_comparison_has_a_bar_per_policy_and_priority():
    results = compare_policies(seed_example())
    ax = plot_policy_comparison(results, Figure().subplots())
    levels = {s.priority for r in results.values() for s in r.by_priority()}
    assert len(ax.patches) == len(results) * len(levels)
    colors = priority_colors()
    assert {bar.get_facecolor()[:3] for bar in ax.patches} == {to_rgb(colors[level]) for level in levels}


def test_the_starvation_plot_has_one_line_per_policy():
    points = sweep_arrival_rates([0.1, 0.3], duration=120, seed=7)
    ax = plot_starvation(points, Figure().subplots(), priority=1)
    assert [line.get_label() for line in ax.get_lines()] == list(dict.fromkeys(p.policy for p in points))
    assert ax.get_ylabel() == "worst wait of priority 1 (s)"


def test_the_aging_ceiling_slider_decides_whether_aging_can_reorder_a_class():
    lab = SchedulingLab(rate=0.4, duration=300.0, auto=False)
    lab.priority["report"].value = 4
    lab.run_button.click()
    rows = lab.summary_text.split("\n")
    priority = rows[rows.index(next(r for r in rows if r.startswith("priority:"))) :][:4]
    aging = rows[rows.index(next(r for r in rows if r.startswith("priority + aging:"))) :][:4]
    assert [r.split(":", 1)[1] for r in priority] == [r.split(":", 1)[1] for r in aging]  # 2.5 < 3
    lab.ceiling.value = 3.5  # now a waiting trip (2) can age past the complaints (3)
    lab.run_button.click()
    rows = lab.summary_text.split("\n")
    assert "aging ceiling 3.5" in rows[0]
    aging = rows[rows.index(next(r for r in rows if r.startswith("priority + aging:"))) :][:4]
    assert [r.split(":", 1)[1] for r in priority] != [r.split(":", 1)[1] for r in aging]

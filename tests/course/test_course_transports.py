"""Notebook 01's comparison plot and explorer, driven from code."""

from __future__ import annotations

import matplotlib.pyplot as plt
import pytest
from matplotlib.figure import Figure

from agentproto.course.transports import TransportExplorer, plot_comparison, summary_table
from agentproto.orchestration.transports import compare


def test_the_summary_table_has_one_row_per_transport():
    table = summary_table(compare())
    rows = table.splitlines()
    assert rows[0].startswith("transport") and [r.split()[0] for r in rows[1:]] == [
        "polling",
        "websocket",
        "provider-sse",
        "ag-ui",
    ]
    assert rows[-1].endswith("text, tool activity, tool results, shared state, approval request")


def test_the_comparison_has_two_panels_and_a_legend_entry_per_capability_shown():
    fig = plot_comparison(compare(), title="four transports", fig=Figure(figsize=(11, 3.8)))
    left, right = fig.axes
    assert [t.get_text() for t in left.get_yticklabels()] == ["polling", "websocket", "provider-sse", "ag-ui"]
    legend = [t.get_text() for t in right.get_legend().get_texts()]
    assert sorted(legend) == sorted(
        ["text", "tool activity", "tool results", "shared state", "approval request"]
    )
    assert fig.get_suptitle() == "four transports"


def test_the_explorer_redraws_when_a_slider_moves_without_touching_pyplot():
    before = plt.get_fignums()
    ex = TransportExplorer(poll_interval=2.0)
    first_png = bytes(ex.plot.value)
    assert ex.result("polling").requests == 4 and first_png.startswith(b"\x89PNG")
    ex.poll.value = 0.5
    assert ex.result("polling").requests == 12 and "12" in ex.summary.value
    assert bytes(ex.plot.value) != first_png
    assert plt.get_fignums() == before  # the widget's figure is private


def test_explorer_sliders_recompute_the_comparison():
    explorer = TransportExplorer(poll_interval=2.0, model_latency=1.5)
    before = explorer.result("polling").requests
    explorer.poll.value = 0.5
    assert explorer.result("polling").requests > before
    explorer.latency.value = 3.0
    assert explorer.result("ag-ui").first_progress == pytest.approx(3.0)
    assert "polling" in explorer.summary.value and "3.00 s" in explorer.summary.value

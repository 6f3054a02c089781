"""Notebook 12's picture: the concierge's hop log drawn as a sequence diagram."""

from __future__ import annotations

import matplotlib.pyplot as plt
import pytest

from agentproto.course.a2a_stack import LAYER_COLORS, plot_stack
from agentproto.demo.concierge import LAYERS, StackLog


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def test_every_hop_is_one_arrow_coloured_by_its_layer():
    log = StackLog()
    log.add("AG-UI", "user", "concierge", "POST /ag-ui/agent (new run)")
    log.add("MCP", "concierge", "tools", "tools/call get_order")
    log.add("A2A", "concierge", "travel desk", "SendStreamingMessage")
    fig = plot_stack(log, title="t")
    ax = fig.axes[0]
    arrows = [a for a in ax.texts if getattr(a, "arrow_patch", None) is not None]
    assert len(arrows) == 3
    assert [a.arrow_patch.get_edgecolor() for a in arrows] == [
        plt.matplotlib.colors.to_rgba(LAYER_COLORS[layer]) for layer in LAYERS
    ]
    assert ax.get_title() == "t"


def test_long_labels_are_shortened_and_every_layer_is_in_the_legend():
    log = StackLog()
    log.add("A2A", "travel desk", "concierge", "x" * 60)
    ax = plot_stack(log).axes[0]
    labels = [t.get_text() for t in ax.texts]
    assert "x" * 41 + "…" in labels
    assert [t.get_text() for t in ax.get_legend().get_texts()] == list(LAYERS)


def test_an_empty_log_still_draws_the_four_lifelines():
    ax = plot_stack(StackLog()).axes[0]
    assert len(ax.lines) == 4

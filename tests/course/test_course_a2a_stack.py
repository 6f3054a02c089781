"""Notebook 12's picture: the concierge's hop log drawn as a sequence diagram."""

from __future__ import annotations

import matplotlib.pyplot as plt

from agentproto.a2a import create_a2a_app
from agentproto.clock import FakeClock, IdFactory
from agentproto.course.a2a_stack import LAYER_COLORS, plot_stack, rediscover_peer
from agentproto.demo.concierge import LAYERS, ConciergeAgent, StackLog


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


def test_a_peer_restarted_on_a_new_port_is_rediscovered_from_its_card():
    from agentproto.server import RunningServer

    app = create_a2a_app(agent="travel", clock=FakeClock(), ids=IdFactory("task"))
    first = RunningServer(app).start()
    concierge = ConciergeAgent(tools=None, travel_url=first.url, a2a_ids=IdFactory("m"))
    try:
        concierge.client()
        first.stop()
        second = RunningServer(app).start()  # port 0 again: whatever the OS hands out
        try:
            url = rediscover_peer(concierge, second.url)
            assert url.startswith(second.url)
            assert concierge.client().url == url
            assert concierge.log.hops[-1].what.startswith("Agent Card")
        finally:
            second.stop()
    finally:
        concierge.close()

"""Notebook 12, the protocol stack: one request drawn as a sequence diagram.

The request itself is made by the concierge demo (:mod:`agentproto.demo.concierge`), which
writes every boundary crossing to a :class:`~agentproto.demo.concierge.StackLog`. This module
only draws that log: a lifeline per party, an arrow per hop, coloured by protocol layer.

:func:`rediscover_peer` is the notebook's restart step. Every server in the course binds port 0
(the OS picks a free port: many copies of the course share one JupyterHub), so a restarted Travel
Desk comes back on a *new* port. The helper points the concierge at the new base URL, drops the
client bound to the old address and discovers the agent again from its Agent Card (A2A spec
§8.2, well-known URI), returning the URL the card's preferred interface declares (§8.3.1–8.3.2).
"""

from __future__ import annotations

import matplotlib.pyplot as plt
from matplotlib.figure import Figure
from matplotlib.lines import Line2D

from agentproto.course.plots import PALETTE
from agentproto.demo.concierge import LAYERS, PARTIES, ConciergeAgent, StackLog

__all__ = ["LAYER_COLORS", "PARTY_TITLES", "plot_stack", "rediscover_peer"]

#: The colour each protocol layer is drawn in.
LAYER_COLORS = dict(zip(LAYERS, (PALETTE["secondary"], PALETTE["accent"], PALETTE["primary"])))

#: The heading of each party's lifeline.
PARTY_TITLES = {
    "user": "user\n(browser)",
    "concierge": "concierge\n(agent runtime)",
    "tools": "tools\n(MCP server)",
    "travel desk": "Travel Desk\n(remote A2A agent)",
}


def plot_stack(log: StackLog, *, title: str = "") -> Figure:
    """A sequence diagram of ``log``: a lifeline per party, an arrow per hop, by layer."""
    xs = {p: i for i, p in enumerate(PARTIES)}
    hops = list(log.hops)
    n = len(hops)
    fig, ax = plt.subplots(figsize=(11, 0.42 * n + 1.6))
    for p, x in xs.items():
        ax.plot([x, x], [0.5, -n - 0.3], color=PALETTE["muted"], lw=1, zorder=1)
        ax.text(x, 0.9, PARTY_TITLES[p], ha="center", va="bottom", fontsize=9, fontweight="bold")
    for i, h in enumerate(hops, start=1):
        x0, x1 = xs[h.sender], xs[h.receiver]
        ax.annotate(
            "",
            xy=(x1, -i),
            xytext=(x0, -i),
            arrowprops={"arrowstyle": "-|>", "color": LAYER_COLORS[h.layer], "lw": 1.6},
        )
        label = h.what if len(h.what) <= 42 else h.what[:41] + "…"
        ax.text((x0 + x1) / 2, -i + 0.12, label, ha="center", va="bottom", fontsize=7.5, color="black")
    ax.legend(
        handles=[Line2D([], [], color=c, lw=2, label=layer) for layer, c in LAYER_COLORS.items()],
        loc="upper right",
        bbox_to_anchor=(1.0, -0.01),
        ncol=3,
        fontsize=8,
    )
    ax.set_xlim(-0.6, len(PARTIES) - 0.4)
    ax.set_ylim(-n - 0.6, 1.6)
    ax.set_axis_off()
    if title:
        ax.set_title(title)
    fig.tight_layout()
    return fig


def rediscover_peer(concierge: ConciergeAgent, base_url: str) -> str:
    """Point ``concierge`` at the Travel Desk's new ``base_url`` and re-read its Agent Card.

    The old client (bound to the old address) is closed; the new one is discovered at once, so
    the card fetch shows in the concierge's hop log. Returns the URL of the card's first (its
    preferred) interface — the address the concierge will now send to.
    """
    concierge.travel_url = base_url
    concierge.close()
    card = concierge.client().card
    assert card is not None  # discover() always binds the card it read
    return card.supported_interfaces[0].url

"""Pictures, widgets and measurements for the A2A notebooks (09–12).

Nothing here is protocol logic: every rule comes from the package (:mod:`~agentproto.a2a.machine`
for the state machine, :mod:`~agentproto.a2a.service` and the server for behaviour, the client
for the wire). This module only *shows* it, so notebook cells stay a line or two long.

==================================  ==============================================================
notebook 10 — the task lifecycle    :func:`state_graph`, :func:`draw_state_diagram` (drawn from
                                    :data:`~agentproto.a2a.machine.TRANSITIONS`),
                                    :func:`transition_table`, :class:`TransitionLab` (a widget
                                    that fires transitions and shows the A2A error of each
                                    refusal), :func:`timeline_table`, :func:`plot_timelines`
notebook 11 — ways to wait          :func:`agent_schedule` (an agent's updates on virtual time),
                                    :func:`model_modes` + :class:`ModeExplorer` (blocking,
                                    polling, streaming and push on that schedule),
                                    :func:`measure_modes` (the same four on a real loopback
                                    server; push lands in a ``push.WebhookRecorder``),
                                    :func:`plot_modes`,
                                    :class:`ArtifactAssembler` (chunks → artifacts)
notebook 09 — the Agent Card        :class:`CardCache` (``max-age``, ``ETag`` and ``304`` on
                                    the client side)
notebook 12 — the protocol stack    :class:`ConciergeAgent` (an AG-UI agent that calls an
                                    MCP-shaped tool and delegates to an A2A agent),
                                    :class:`StackLog` (one request, three layers, one table)
==================================  ==============================================================

Widgets follow the course rule: every control is an attribute, so a test can set ``.value`` or
call ``.click()`` and read the effect; figures are rendered to PNG bytes in a
``widgets.Image`` (never drawn into an ``Output``), which behaves the same in JupyterLab, under
nbval and in tests.
"""

from __future__ import annotations

import html
import io
import itertools
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import ipywidgets as widgets
import matplotlib.pyplot as plt
from matplotlib.figure import Figure

from agentproto.a2a.errors import A2AError, TaskNotFoundError
from agentproto.a2a.machine import (
    TRANSITIONS,
    InvalidTransitionError,
    Operation,
    TaskMachine,
    Transition,
    edges,
    resolve_follow_up,
)
from agentproto.a2a.states import ACTIVE_STATES, INTERRUPTED_STATES, TERMINAL_STATES, TaskState
from agentproto.clock import FakeClock
from agentproto.course.plots import PALETTE, STATE_COLORS

__all__ = [
    # notebook 10
    "NEW",
    "state_graph",
    "StateDiagram",
    "draw_state_diagram",
    "transition_table",
    "Attempt",
    "TransitionLab",
    "timeline_table",
    "plot_timelines",
    # notebook 09
    "CardFetch",
    "CardCache",
    # notebook 11
    "Scheduled",
    "agent_schedule",
    "ModeResult",
    "MODES",
    "model_modes",
    "summary_table",
    "plot_modes",
    "ModeExplorer",
    "pushes_for",
    "push_settled",
    "measure_modes",
    "ArtifactAssemblyError",
    "ArtifactAssembler",
    "compact_labels",
    "wait_until",
    # notebook 12
    "LAYERS",
    "Hop",
    "StackLog",
    "ANSWER_SCHEMA",
    "ConciergeAgent",
    "create_concierge_app",
]

#: Label of the "no task yet" node (``None`` in the transition table).
NEW = "(new)"


def _label(state: TaskState | None) -> str:
    return NEW if state is None else state.short


def _png(fig: Figure, dpi: int = 80) -> bytes:
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=dpi)
    plt.close(fig)
    return buffer.getvalue()


# =========================================================================== notebook 10


def state_graph() -> Any:
    """The transition table as a ``networkx.DiGraph`` (nodes are short state names).

    Node attribute ``kind`` is ``entry``, ``active``, ``interrupted`` or ``terminal`` — taken
    from the state sets in :mod:`agentproto.a2a.states`, not written here.
    """
    import networkx as nx

    g = nx.DiGraph()
    for source in TRANSITIONS:
        g.add_node(_label(source), kind=_kind(source))
    for source, target in edges():
        g.add_edge(_label(source), _label(target))
    return g


def _kind(state: TaskState | None) -> str:
    if state is None:
        return "entry"
    if state in TERMINAL_STATES:
        return "terminal"
    if state in INTERRUPTED_STATES:
        return "interrupted"
    return "active"


def _order(states: Iterable[TaskState]) -> list[TaskState]:
    return sorted(states, key=list(TaskState).index)


def _positions() -> dict[str, tuple[float, float]]:
    """Columns by kind: entry | active | interrupted (above and below) | terminal."""
    pos: dict[str, tuple[float, float]] = {NEW: (0.0, 0.0)}
    for i, s in enumerate(_order(ACTIVE_STATES)):
        pos[s.short] = (1.4 + 1.6 * i, 0.0)
    for s, y in zip(_order(INTERRUPTED_STATES), (1.7, -1.7)):
        pos[s.short] = (3.0, y)
    terminal = _order(TERMINAL_STATES)
    for i, s in enumerate(terminal):
        pos[s.short] = (5.6, 2.1 - 4.2 * i / (len(terminal) - 1))
    return pos


class StateDiagram:
    """The state diagram as a live figure: draw once, then :meth:`update` the highlights.

    Nodes and edges come from :func:`state_graph`. Every edge and node also has a red
    *overlay* artist, hidden until :meth:`update` rings the current state or walks a path.
    :meth:`png` blits: the plain diagram is rendered once and cached, and each call only draws
    the visible overlays on top of it — which keeps a widget that redraws on every click fast.

    ``pyplot=True`` (the default) registers the figure with pyplot so ``plt.show()`` displays
    it; widgets pass ``False`` and keep the figure to themselves.
    """

    NODE_SIZE = 2300

    def __init__(self, *, title: str = "A2A task states (edges: the derived transition table)",
                 figsize: tuple[float, float] = (9.5, 5.6), dpi: int = 100,
                 legend_path: bool = True, pyplot: bool = True) -> None:
        import networkx as nx
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.lines import Line2D
        from matplotlib.patches import Patch

        self.graph = g = state_graph()
        self.pos = pos = _positions()
        if pyplot:
            self.figure, ax = plt.subplots(figsize=figsize, dpi=dpi)
        else:
            self.figure = Figure(figsize=figsize, dpi=dpi)
            FigureCanvasAgg(self.figure)
            ax = self.figure.add_subplot()
        self.ax = ax
        size = self.NODE_SIZE
        nx.draw_networkx_nodes(g, pos, ax=ax, node_size=size, edgecolors="black",
                               node_color=[STATE_COLORS.get(n, "white") for n in g.nodes],
                               linewidths=1.0)
        dark = ("working", "failed", "canceled", "rejected")
        for n, (x, y) in pos.items():
            ax.text(x, y, n.replace("-", "-\n"), ha="center", va="center", fontsize=8,
                    fontweight="bold", color="white" if n in dark else "black", zorder=5)

        plain = [(u, v) for u, v in g.edges if u != v]
        into_terminal = [e for e in plain if g.nodes[e[1]]["kind"] == "terminal"]
        others = [e for e in plain if e not in into_terminal]
        self._overlays: dict[Any, Any] = {}  # edge (u, v) or node name → hidden red artist
        for edgelist, color, width, alpha, rad in (
                (into_terminal, PALETTE["muted"], 0.7, 0.55, 0.05),
                (others, "#333333", 1.1, 1.0, 0.12)):
            for hot in (False, True):
                artists = nx.draw_networkx_edges(
                    g, pos, edgelist=edgelist, ax=ax, node_size=size, arrowsize=11,
                    edge_color=PALETTE["bad"] if hot else color, width=3.0 if hot else width,
                    alpha=1.0 if hot else alpha, connectionstyle=f"arc3,rad={rad}")
                if hot:
                    for e, artist in zip(edgelist, artists):
                        artist.set_visible(False)
                        self._overlays[e] = artist
        for u, v in g.edges:
            if u == v:  # self-loops (a progress update, asking again) as a small arc
                _self_loop(ax, pos[u], color="#333333", width=1.1)
                self._overlays[(u, v)] = _self_loop(ax, pos[u], color=PALETTE["bad"], width=2.5)
                self._overlays[(u, v)].set_visible(False)
        for n in g.nodes:
            ring = nx.draw_networkx_nodes(g, pos, nodelist=[n], ax=ax, node_size=size + 900,
                                          node_color="none", edgecolors=PALETTE["bad"],
                                          linewidths=3.0)
            ring.set_visible(False)
            self._overlays[n] = ring

        legend = [Patch(facecolor=STATE_COLORS["working"], edgecolor="black", label="active"),
                  Patch(facecolor=STATE_COLORS["input-required"], edgecolor="black",
                        label="interrupted (waits for the client)"),
                  Patch(facecolor=STATE_COLORS["completed"], edgecolor="black",
                        label="terminal (never changes again)"),
                  Line2D([], [], color=PALETTE["muted"], lw=1, label="move into a terminal state")]
        if legend_path:
            legend.append(Line2D([], [], color=PALETTE["bad"], lw=3,
                                 label="the path taken / current state"))
        ax.legend(handles=legend, loc="lower left", fontsize=7.5, bbox_to_anchor=(-0.02, -0.02))
        ax.set_xlim(-0.7, 6.3)
        ax.set_ylim(-2.7, 2.7)
        ax.set_axis_off()
        if title:
            ax.set_title(title)
        self.figure.tight_layout()
        self._background = None

    def update(self, *, current: TaskState | None | str = "",
               path: Iterable[tuple[TaskState | None, TaskState]] = ()) -> StateDiagram:
        """Ring ``current`` (``None``: the "(new)" node; ``""``: nothing); thicken ``path``."""
        ring = "" if current == "" else _label(
            TaskState(current) if isinstance(current, str) else current)
        walked = {(_label(s), _label(t)) for s, t in path}
        for key, artist in self._overlays.items():
            artist.set_visible(key == ring or key in walked)
        return self

    @property
    def highlighted(self) -> list[Any]:
        """The overlay keys shown now: edges as ``(source, target)``, the ringed node by name."""
        return [k for k, a in self._overlays.items() if a.get_visible()]

    def png(self) -> bytes:
        """The figure as PNG bytes, by blitting the overlays onto the cached plain diagram."""
        from PIL import Image

        canvas = self.figure.canvas
        if self._background is None:
            shown = self.highlighted
            for key in shown:
                self._overlays[key].set_visible(False)
            canvas.draw()
            self._background = canvas.copy_from_bbox(self.figure.bbox)
            for key in shown:
                self._overlays[key].set_visible(True)
        canvas.restore_region(self._background)
        for key in self.highlighted:
            self.ax.draw_artist(self._overlays[key])
        buffer = io.BytesIO()
        Image.frombuffer("RGBA", canvas.get_width_height(), canvas.buffer_rgba(), "raw",
                         "RGBA", 0, 1).save(buffer, format="png")
        return buffer.getvalue()

    def close(self) -> None:
        plt.close(self.figure)


def draw_state_diagram(*, current: TaskState | None | str = "",
                       path: Sequence[tuple[TaskState | None, TaskState]] = (),
                       title: str = "A2A task states (edges: the derived transition table)"
                       ) -> Figure:
    """Draw every state and every allowed move of :data:`TRANSITIONS`; return the figure.

    ``current`` rings one state (``None`` rings the "(new)" node; the default rings nothing);
    ``path`` — ``(source, target)`` pairs, e.g. from a task's history — is drawn thick, so a
    learner sees the route a task took through the table.
    """
    diagram = StateDiagram(title=title, legend_path=bool(path) or current != "")
    return diagram.update(current=current, path=path).figure


def _self_loop(ax, xy: tuple[float, float], *, color: str, width: float):
    """A loop arrow on the upper-left of a node (where no other edge arrives)."""
    from matplotlib.patches import FancyArrowPatch

    x, y = xy
    start, end = (x - 0.33, y + 0.14), (x - 0.16, y + 0.36)
    return ax.add_patch(FancyArrowPatch(start, end, connectionstyle="arc3,rad=-1.6",
                                        arrowstyle="-|>", mutation_scale=10, color=color,
                                        linewidth=width, zorder=4))


def transition_table() -> str:
    """:data:`TRANSITIONS` as a fixed-width text table, one row per source state."""
    width = max(len(_label(s)) for s in TRANSITIONS)
    lines = [f"{'from':<{width}}  may move to"]
    for source, targets in TRANSITIONS.items():
        names = ", ".join(t.short for t in _order(targets)) or "— nothing (terminal)"
        lines.append(f"{_label(source):<{width}}  {names}")
    return "\n".join(lines)


@dataclass(frozen=True)
class Attempt:
    """One action fired in a :class:`TransitionLab`, and what the package said about it."""

    step: int
    actor: str  #: ``agent`` or ``client``
    action: str  #: ``→ working`` or ``SendMessage`` / ``CancelTask`` / ``SubscribeToTask``
    accepted: bool
    before: TaskState | None
    after: TaskState | None
    code: int | None = None  #: the A2A / JSON-RPC error code of a refusal
    error: str = ""  #: the error class of a refusal
    note: str = ""  #: why it was refused, or what happened

    def line(self) -> str:
        mark = "✓" if self.accepted else "✗"
        result = (f"{_label(self.before)} → {_label(self.after)}" if self.before != self.after
                  else f"stays {_label(self.after)}")
        if not self.accepted:
            result = f"{self.error} ({self.code})"
        return f"{self.step:>2} {mark} {self.actor:<6} {self.action:<18} {result}"


_OPERATIONS = {op.value: op for op in Operation}


class TransitionLab:
    """Fire agent moves and client operations at one task; see which are refused, and why.

    Agent moves go through :meth:`TaskMachine.advance` (a move the table lacks raises
    :class:`~agentproto.a2a.machine.InvalidTransitionError`, -32006: the fault is the agent's).
    Client operations go through the same checks the server makes —
    :meth:`TaskMachine.check` and :func:`~agentproto.a2a.machine.resolve_follow_up` — so a
    refusal shows the error a real client would get (-32001, -32002, -32004).

    Drive it from code exactly as a learner clicks: ``lab.buttons["working"].click()``,
    ``lab.buttons["CancelTask"].click()``, or :meth:`fire` with the same names.
    """

    def __init__(self, *, task_id: str = "task-1", step_ms: int = 1000,
                 show_diagram: bool = True) -> None:
        self.task_id = task_id
        self.step_ms = step_ms
        self.show_diagram = show_diagram
        self.clock = FakeClock()
        self.machine = TaskMachine(task_id, clock=self.clock)
        self.log: list[Attempt] = []
        states = [s for s in TaskState if s is not TaskState.UNSPECIFIED]
        self.buttons: dict[str, widgets.Button] = {}
        for s in states:
            self.buttons[s.short] = self._button(f"→ {s.short}", s.short,
                                                 STATE_COLORS.get(s.short, "#dddddd"))
        for op in Operation:
            self.buttons[op.value] = self._button(op.value, op.value, "#e8e8e8")
        self.buttons["reset"] = self._button("Reset", "reset", "#ffffff")
        self.status = widgets.HTML()
        self.log_view = widgets.HTML()
        self.diagram = widgets.Image(format="png", layout=widgets.Layout(max_width="100%"))
        self._figure = (StateDiagram(title="", figsize=(8.0, 4.8), dpi=75, pyplot=False)
                        if show_diagram else None)
        self._redraw()

    def _button(self, text: str, name: str, color: str) -> widgets.Button:
        b = widgets.Button(description=text, layout=widgets.Layout(width="150px"))
        b.style.button_color = color
        b.on_click(lambda _b: self.fire(name))
        return b

    # -- actions --------------------------------------------------------------------------------

    @property
    def state(self) -> TaskState | None:
        return self.machine.state

    def fire(self, name: str) -> Attempt:
        """``"working"`` (an agent move, by short state name), an operation name, or ``"reset"``."""
        if name == "reset":
            self.reset()
            return self.log[-1] if self.log else Attempt(0, "", "reset", True, None, None)
        if name in _OPERATIONS:
            attempt = self.client(_OPERATIONS[name])
        else:
            target = next((s for s in TaskState if name in (s.short, s.value, s.name)), None)
            if target is None:
                raise ValueError(f"unknown action {name!r}")
            attempt = self.agent(target)
        return attempt

    def agent(self, target: TaskState) -> Attempt:
        """The agent reports ``target`` (the first report creates the task)."""
        before = self.state
        self.clock.advance(self.step_ms)
        try:
            self.machine.advance(target, reason="agent")
        except InvalidTransitionError as exc:
            why = exc.message.split(": ", 1)[-1]
            return self._record("agent", f"→ {target.short}", before, exc, why)
        return self._record("agent", f"→ {target.short}", before, None, "")

    def client(self, operation: Operation) -> Attempt:
        """The client calls ``operation`` on the task (SendMessage answers an interrupt)."""
        before = self.state
        self.clock.advance(self.step_ms)
        note = ""
        try:
            if before is None:
                if operation is not Operation.SEND_MESSAGE:
                    raise TaskNotFoundError(f"Task {self.task_id} not found")
                self.machine.create(TaskState.SUBMITTED, reason="message received")
                note = "a new message creates the task (the server picks its id)"
            elif operation is Operation.SEND_MESSAGE:
                resolve_follow_up(self.task_id, "ctx-1", before, "ctx-1")
                if before in INTERRUPTED_STATES:
                    self.machine.advance(TaskState.WORKING, reason="client answered")
                    note = "the answer resumes the task"
                else:
                    note = ("no move: the agent may take more input while it works (§3.3.3); "
                            "agentproto's server answers -32004 until the agent asks")
            else:
                self.machine.check(operation)
                if operation is Operation.CANCEL:
                    self.machine.advance(TaskState.CANCELED, reason="CancelTask")
                else:
                    note = "a stream opens; its first event is the Task"
        except A2AError as exc:
            return self._record("client", operation.value, before, exc, exc.message)
        return self._record("client", operation.value, before, None, note)

    def reset(self) -> None:
        """A fresh task (the log is cleared too)."""
        self.clock = FakeClock()
        self.machine = TaskMachine(self.task_id, clock=self.clock)
        self.log = []
        self._redraw()

    def _record(self, actor: str, action: str, before: TaskState | None,
                exc: A2AError | None, note: str) -> Attempt:
        attempt = Attempt(len(self.log) + 1, actor, action, exc is None, before, self.state,
                          None if exc is None else exc.code,
                          "" if exc is None else type(exc).__name__, note)
        self.log.append(attempt)
        self._redraw()
        return attempt

    # -- views ------------------------------------------------------------------------------------

    @property
    def refused(self) -> list[Attempt]:
        return [a for a in self.log if not a.accepted]

    def report(self) -> str:
        """The log as text: one line per attempt, refusals with their code and reason."""
        if not self.log:
            return "(nothing fired yet)"
        lines = []
        for a in self.log:
            lines.append(a.line())
            if a.note:
                lines.append(f"{'':>5}{a.note}")
        return "\n".join(lines)

    def _redraw(self) -> None:
        state = self.state
        allowed = ", ".join(t.short for t in _order(self.machine.allowed())) or "nothing"
        kind = _kind(state)
        self.status.value = (
            f"<b>task {html.escape(self.task_id)}</b>: <code>{_label(state)}</code> ({kind}) "
            f"— the agent may move it to: {html.escape(allowed)}")
        self.log_view.value = "<pre>" + html.escape(self.report()) + "</pre>"
        if self._figure is not None:
            path = [(t.source, t.target) for t in self.machine.history]
            self.diagram.value = self._figure.update(current=state, path=path).png()

    def widget(self) -> widgets.VBox:
        states = [b for k, b in self.buttons.items() if k not in _OPERATIONS and k != "reset"]
        ops = [self.buttons[op.value] for op in Operation] + [self.buttons["reset"]]
        return widgets.VBox([
            widgets.HTML("<b>agent reports…</b>"),
            widgets.HBox(states[:4]), widgets.HBox(states[4:]),
            widgets.HTML("<b>client calls…</b>"), widgets.HBox(ops),
            self.status, widgets.HBox([self.diagram, self.log_view]),
        ])

    def _ipython_display_(self) -> None:  # pragma: no cover - needs a front end
        from IPython.display import display

        display(self.widget())


def timeline_table(transitions: Sequence[Transition], *, origin_ms: int | None = None) -> str:
    """A task's recorded transitions as text: ``+ms  from → to  (reason)``."""
    if not transitions:
        return "(no transitions)"
    origin = transitions[0].at_ms if origin_ms is None else origin_ms
    lines = []
    for t in transitions:
        reason = f"  ({t.reason})" if t.reason else ""
        lines.append(f"+{t.at_ms - origin:>7,} ms  {_label(t.source):>14} → "
                     f"{_label(t.target)}{reason}")
    return "\n".join(lines)


def plot_timelines(timelines: Mapping[str, Sequence[Transition]], *, title: str = "",
                   tail_ms: int | None = None, unit: str = "s") -> Figure:
    """One horizontal bar per task, one coloured segment per state (virtual time).

    Each bar starts at the task's creation; a segment lasts until the next transition, and the
    final state is drawn for ``tail_ms`` more (default: 5 % of the longest task) with a marker
    telling whether it is terminal (■) or waiting for the client (◆).
    """
    from matplotlib.patches import Patch

    scale = {"s": 1000.0, "ms": 1.0}[unit]
    spans = [max(t.at_ms for t in ts) - ts[0].at_ms for ts in timelines.values() if ts]
    longest = max(spans + [1])
    tail = tail_ms if tail_ms is not None else max(longest * 0.05, 1)
    fig, ax = plt.subplots(figsize=(10, 0.7 * len(timelines) + 1.4))
    seen: set[str] = set()
    for row, (name, ts) in enumerate(timelines.items()):
        if not ts:
            continue
        origin = ts[0].at_ms
        for i, t in enumerate(ts):
            start = t.at_ms - origin
            end = (ts[i + 1].at_ms - origin) if i + 1 < len(ts) else start + tail
            color = STATE_COLORS[t.target.short]
            ax.broken_barh([(start / scale, max(end - start, 0) / scale)], (row - 0.35, 0.7),
                           facecolors=color, edgecolors="white", linewidth=0.8,
                           label=None if t.target.short in seen else t.target.short)
            seen.add(t.target.short)
        last = ts[-1]
        marker = "s" if last.target in TERMINAL_STATES else "D"
        ax.plot([(last.at_ms - origin + tail) / scale], [row], marker=marker, color="black",
                markersize=6)
    ax.set_yticks(range(len(timelines)), list(timelines))
    ax.invert_yaxis()
    ax.set_xlabel(f"virtual time since the task was created ({unit})")
    handles = [Patch(color=STATE_COLORS[s], label=s) for s in STATE_COLORS if s in seen]
    ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize=8)
    if title:
        ax.set_title(title)
    fig.tight_layout()
    return fig


# =========================================================================== notebook 09


@dataclass(frozen=True)
class CardFetch:
    """One :meth:`CardCache.get`: how it was answered, at which (injected) time."""

    at_ms: int
    how: str  #: ``downloaded`` (200), ``revalidated`` (304) or ``fresh`` (no request at all)
    status: int | None
    etag: str


class CardCache:
    """A client-side Agent Card cache that honours ``Cache-Control`` and ``ETag`` (spec §8.6).

    The spec asks servers to send ``Cache-Control: max-age`` and an ``ETag`` and clients to
    follow HTTP caching (RFC 9111): while the copy is younger than ``max-age`` it is used
    without asking; after that the client *revalidates* with ``If-None-Match`` and a
    ``304 Not Modified`` renews the copy without downloading the card again. Time comes from
    the injected ``clock`` so a notebook can jump past ``max-age``.
    """

    def __init__(self, *, clock: Any = None, http: Any = None) -> None:
        import httpx

        self.clock = clock if clock is not None else FakeClock()
        self._http = http if http is not None else httpx.Client(timeout=10.0)
        self._own_http = http is None
        self._entries: dict[str, tuple[Any, str, int, int]] = {}  # url → card, etag, at, max-age
        self.log: list[CardFetch] = []

    def get(self, base_url: str) -> Any:
        """The card of the agent at ``base_url`` (from cache, revalidated, or downloaded)."""
        from agentproto.a2a.client import CARD_PATH, A2AHTTPError
        from agentproto.a2a.types import AgentCard

        url = base_url.rstrip("/") + CARD_PATH
        now = self.clock.now_ms()
        entry = self._entries.get(url)
        if entry is not None and now - entry[2] < entry[3] * 1000:
            self.log.append(CardFetch(now, "fresh", None, entry[1]))
            return entry[0]
        headers = {"If-None-Match": entry[1]} if entry is not None and entry[1] else {}
        response = self._http.get(url, headers=headers)
        max_age = _max_age(response.headers.get("cache-control", ""))
        etag = response.headers.get("etag", "")
        if response.status_code == 304 and entry is not None:
            self._entries[url] = (entry[0], etag or entry[1], now, max_age)
            self.log.append(CardFetch(now, "revalidated", 304, etag or entry[1]))
            return entry[0]
        if response.status_code != 200:
            raise A2AHTTPError(response.status_code, f"no Agent Card at {url} "
                                                     f"(HTTP {response.status_code})")
        card = AgentCard.model_validate(response.json())
        self._entries[url] = (card, etag, now, max_age)
        self.log.append(CardFetch(now, "downloaded", 200, etag))
        return card

    def counts(self) -> dict[str, int]:
        """How many gets were downloads, revalidations and fresh hits."""
        out = {"downloaded": 0, "revalidated": 0, "fresh": 0}
        for f in self.log:
            out[f.how] += 1
        return out

    def close(self) -> None:
        if self._own_http:
            self._http.close()


def _max_age(cache_control: str) -> int:
    """``max-age`` in seconds from a ``Cache-Control`` value (0 if absent or ``no-cache``)."""
    directives = [d.strip().lower() for d in cache_control.split(",")]
    if "no-cache" in directives or "no-store" in directives:
        return 0
    for d in directives:
        if d.startswith("max-age="):
            try:
                return max(int(d.split("=", 1)[1]), 0)
            except ValueError:
                return 0
    return 0


# =========================================================================== notebook 11

#: The four ways to wait for a task's result (spec §3.2.2, §3.1.2, §3.1.7).
MODES = ("blocking", "polling", "streaming", "push")


@dataclass(frozen=True)
class Scheduled:
    """One update an agent produces, at ``at_ms`` of virtual time after the task started."""

    at_ms: int
    kind: str  #: ``status``, ``artifact`` or ``message``
    label: str  #: e.g. ``working: Searching flights…`` or ``itinerary +chunk 2``
    update: Any = field(repr=False, default=None)


def agent_schedule(agent: Any, text: str, *, message_id: str = "msg-1") -> list[Scheduled]:
    """Run a sans-I/O agent on ``text`` and list its updates on virtual time.

    The agent's ``Wait(ms)`` updates advance the virtual clock; nothing sleeps. This is the same
    generator the server drives, read directly — so the schedule is exactly what the agent
    would produce, minus the network. Raises ``TypeError`` for an agent that awaits real I/O
    (it has no schedule without a server) and ``ValueError`` for one that waits until canceled.
    """
    from agentproto.a2a.agents import ArtifactChunk, Reply, RequestContext, Status, Wait
    from agentproto.a2a.types import user_message

    ctx = RequestContext(message=user_message(text, message_id=message_id), context_id="ctx-1")
    gen = agent.run(ctx)
    now = 0
    out: list[Scheduled] = []
    chunks: dict[str, int] = {}
    while True:
        update = _next_without_loop(gen)
        if update is _END:
            return out
        if isinstance(update, Wait):
            if update.ms is None:
                raise ValueError("the agent waits until it is canceled: no finite schedule")
            now += update.ms
        elif isinstance(update, Status):
            words = "".join(p.text or "" for p in update.parts)
            out.append(Scheduled(now, "status", update.state.short + (f": {words}" if words else ""),
                                 update))
        elif isinstance(update, ArtifactChunk):
            chunks[update.artifact_id] = chunks.get(update.artifact_id, 0) + 1
            n = chunks[update.artifact_id]
            label = update.artifact_id + (f" +chunk {n}" if update.append else
                                          (" chunk 1" if not update.last_chunk else ""))
            out.append(Scheduled(now, "artifact", label, update))
        elif isinstance(update, Reply):
            out.append(Scheduled(now, "message", "direct message", update))


_END = object()


def _next_without_loop(gen: Any) -> Any:
    """The next item of an async generator that never really awaits (no event loop needed)."""
    step = gen.__anext__()
    try:
        step.send(None)
    except StopIteration as done:
        return done.value
    except StopAsyncIteration:
        return _END
    step.close()
    raise TypeError("the agent awaited real I/O; agent_schedule needs a sans-I/O agent")


@dataclass
class ModeResult:
    """What a client waiting in one ``mode`` saw: when, how often, and at what cost.

    Times are milliseconds after the client sent the message (virtual in :func:`model_modes`,
    wall-clock in :func:`measure_modes`). ``requests`` are HTTP requests the client made;
    ``posts`` are webhook POSTs the server made to the client (push only).
    """

    mode: str
    requests: int
    posts: int
    first_update_ms: float | None
    done_ms: float | None
    seen: list[tuple[float, str]]
    total: int  #: updates the task produced (the initial Task snapshot included)

    @property
    def missed(self) -> int:
        """Updates the client never saw (each poll sees only the latest state)."""
        return max(self.total - len(self.seen), 0)


def model_modes(schedule: Sequence[Scheduled], *, poll_ms: float = 1000.0,
                latency_ms: float = 50.0) -> list[ModeResult]:
    """Blocking, polling, streaming and push on one schedule, with a one-way network latency.

    The model (virtual time, the client sends at 0, the server receives at ``latency_ms``):

    * **blocking** — one request; the answer leaves when the task is terminal or interrupted
      (spec §3.2.2) and arrives ``latency_ms`` later; nothing is seen before;
    * **polling** — ``returnImmediately`` (the Task as created), then ``GetTask`` every
      ``poll_ms``; each answer shows the state *at the moment the server read it*, so updates
      between two polls are never seen;
    * **streaming** — one request; the Task, then every update, each ``latency_ms`` after it
      happens;
    * **push** — one request (with a webhook config); the server POSTs the Task and every
      update to the webhook: same timing as streaming, but no open connection — and one POST
      per update.
    """
    d = float(latency_ms)
    settle = next((s.at_ms for s in schedule if s.kind == "message" or (
        s.kind == "status" and s.update is not None and (
            s.update.state in TERMINAL_STATES or s.update.state in INTERRUPTED_STATES))),
        schedule[-1].at_ms if schedule else 0)
    total = len(schedule) + 1
    first_progress = schedule[0].at_ms if schedule else 0
    results = [ModeResult("blocking", 1, 0, 2 * d + settle, 2 * d + settle,
                          [(2 * d + settle, "the settled Task")], total)]
    # polling: the Task as created, then GetTask number k leaves at T = 2d + k·poll_ms, is read
    # by the server at T + d (= schedule time T, the agent having started at d) and answered
    # at T + 2d.
    seen: list[tuple[float, str]] = [(2 * d, "Task: submitted")]
    requests, k, last, first = 1, 0, -1, None
    while True:
        k += 1
        requests += 1
        sent = 2 * d + k * poll_ms
        done = [s for s in schedule if s.at_ms <= sent]
        if done and len(done) - 1 != last:
            last = len(done) - 1
            seen.append((sent + 2 * d, "GetTask: " + done[-1].label))
            first = sent + 2 * d if first is None else first
        if sent >= settle:
            results.append(ModeResult("polling", requests, 0, first, sent + 2 * d, seen, total))
            break
    arrivals = [(2 * d, "Task: submitted")] + [(s.at_ms + 2 * d, s.label) for s in schedule]
    results.append(ModeResult("streaming", 1, 0, first_progress + 2 * d, settle + 2 * d,
                              arrivals, total))
    results.append(ModeResult("push", 1, total, first_progress + 2 * d, settle + 2 * d,
                              list(arrivals), total))
    return results


def summary_table(results: Sequence[ModeResult], *, unit: str = "ms") -> str:
    """The headline numbers of :func:`model_modes` / :func:`measure_modes` as text."""
    scale = {"ms": 1.0, "s": 1000.0}[unit]

    def t(v: float | None) -> str:
        return "never" if v is None else (f"{v / scale:,.0f} {unit}" if unit == "ms"
                                          else f"{v / scale:.2f} {unit}")

    lines = [f"{'mode':<10} {'first update':>13} {'settled seen':>13} {'requests':>9} "
             f"{'POSTs':>6} {'updates seen':>13}"]
    for r in results:
        lines.append(f"{r.mode:<10} {t(r.first_update_ms):>13} {t(r.done_ms):>13} "
                     f"{r.requests:>9} {r.posts:>6} {len(r.seen):>6} of {r.total:<4}")
    return "\n".join(lines)


_MODE_COLORS = {"blocking": PALETTE["muted"], "polling": PALETTE["secondary"],
                "streaming": PALETTE["primary"], "push": PALETTE["good"]}


def plot_modes(results: Sequence[ModeResult], *, title: str = "", unit: str = "s",
               time_label: str = "virtual time") -> Figure:
    """Two panels: when each mode first showed progress and knew the result (with the
    requests it cost), and a dot for every update the client actually saw."""
    scale = {"ms": 1.0, "s": 1000.0}[unit]
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 3.8),
                                      gridspec_kw={"width_ratios": [1, 1.5]})
    names = [r.mode for r in results]
    y = range(len(results))
    horizon = max((r.done_ms or 0) for r in results) / scale * 1.08 + 1e-9
    left.barh([i + 0.18 for i in y], [(r.first_update_ms or 0) / scale for r in results],
              height=0.36, color=PALETTE["primary"], label="first update")
    left.barh([i - 0.18 for i in y], [(r.done_ms or 0) / scale for r in results],
              height=0.36, color=PALETTE["muted"], label="result known")
    for i, r in enumerate(results):
        cost = f"{r.requests} req" + (f" + {r.posts} POSTs" if r.posts else "")
        left.text((r.done_ms or 0) / scale + horizon * 0.01, i - 0.18, cost, va="center",
                  fontsize=8)
    left.set_yticks(list(y), names)
    left.invert_yaxis()
    left.set_xlim(0, horizon * 1.35)
    left.set_xlabel(f"{time_label} after sending ({unit})")
    left.set_title("How soon does the client know?")
    left.legend(loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=2, fontsize=8)
    for i, r in enumerate(results):
        xs = [t / scale for t, _ in r.seen]
        right.scatter(xs, [i] * len(xs), s=28, color=_MODE_COLORS.get(r.mode, "black"),
                      zorder=3)
        right.text(horizon * 1.01, i, f"{len(r.seen)}/{r.total}", va="center", fontsize=8)
    right.set_yticks(list(y), names)
    right.invert_yaxis()
    right.set_xlim(0, horizon * 1.1)
    right.set_xlabel(f"{time_label} ({unit})")
    right.set_title("Every update the client saw (seen/produced)")
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    return fig


class ModeExplorer:
    """Sliders for the poll interval, the network latency and the agent's step time; the
    four modes recomputed on the travel desk's real schedule, as a table and a plot."""

    TEXT = "Plan my trip to Sanya from 2026-04-08 to 2026-04-12"

    def __init__(self, *, poll_s: float = 1.0, latency_ms: float = 50.0,
                 step_s: float = 2.0) -> None:
        style = {"description_width": "initial"}
        self.poll = widgets.FloatSlider(value=poll_s, min=0.25, max=5.0, step=0.25,
                                        description="poll every (s)", continuous_update=False,
                                        style=style)
        self.latency = widgets.FloatSlider(value=latency_ms, min=0.0, max=500.0, step=10.0,
                                           description="latency one way (ms)",
                                           continuous_update=False, style=style)
        self.step = widgets.FloatSlider(value=step_s, min=0.5, max=5.0, step=0.5,
                                        description="agent step (s)", continuous_update=False,
                                        style=style)
        self.summary = widgets.HTML()
        self.plot = widgets.Image(format="png", layout=widgets.Layout(max_width="100%"))
        self.results: list[ModeResult] = []
        for control in (self.poll, self.latency, self.step):
            control.observe(lambda _c: self.redraw(), names="value")
        self.redraw()

    def redraw(self) -> None:
        from agentproto.a2a.agents import TravelDeskAgent

        schedule = agent_schedule(TravelDeskAgent(step_ms=int(self.step.value * 1000)),
                                  self.TEXT)
        self.results = model_modes(schedule, poll_ms=self.poll.value * 1000,
                                   latency_ms=self.latency.value)
        self.summary.value = "<pre>" + html.escape(summary_table(self.results, unit="s")) + \
            "</pre>"
        self.plot.value = _png(plot_modes(self.results))

    def result(self, mode: str) -> ModeResult:
        return next(r for r in self.results if r.mode == mode)

    def widget(self) -> widgets.VBox:
        return widgets.VBox([widgets.HBox([self.poll, self.latency, self.step]), self.summary,
                             self.plot])

    def _ipython_display_(self) -> None:  # pragma: no cover - needs a front end
        from IPython.display import display

        display(self.widget())


def pushes_for(recorder: Any, task_id: str) -> list[tuple[float, Any]]:
    """``(time.monotonic(), StreamResponse)`` of every notification a
    :class:`~agentproto.a2a.push.WebhookRecorder` accepted for ``task_id``, in arrival order."""
    out = []
    for push in list(recorder.received):
        event = push.event
        if _task_of(event) == task_id:
            out.append((push.at, event))
    return out


def push_settled(recorder: Any, task_id: str) -> bool:
    """Has a terminal or interrupted status for ``task_id`` reached the webhook?"""
    return any(e.status_update is not None and _settles(e.status_update.status.state)
               for _, e in pushes_for(recorder, task_id))


def _task_of(event: Any) -> str:
    if event.task is not None:
        return event.task.id
    inner = event.status_update or event.artifact_update
    return inner.task_id if inner is not None else ""


def _settles(state: TaskState) -> bool:
    return state in TERMINAL_STATES or state in INTERRUPTED_STATES


def _event_label(event: Any) -> str:
    if event.task is not None:
        return "Task: " + event.task.status.state.short
    if event.status_update is not None:
        return event.status_update.status.state.short
    if event.artifact_update is not None:
        u = event.artifact_update
        return u.artifact.artifact_id + (" +chunk" if u.append else "")
    return "message"


def measure_modes(base_url: str, text: str, *, recorder: Any = None, webhook_url: str = "",
                  token: str = "", poll_interval_s: float = 0.05, timeout_s: float = 10.0,
                  modes: Sequence[str] = MODES, warmup: bool = True) -> list[ModeResult]:
    """Run the four modes against a real A2A server and time what the client sees (wall ms).

    One fresh task per mode, the same ``text`` each time. ``push`` needs a
    :class:`~agentproto.a2a.push.WebhookRecorder` served at ``webhook_url`` (and a server that
    allows loopback webhooks); ``token`` goes in the push config. Requests are counted by the
    client itself (:attr:`SyncA2AClient.requests_made`). With ``warmup`` each mode runs once
    untimed first, so one-off costs (the first SSE response, the server's first webhook
    connection) do not land on whichever mode happens to go first.
    """
    import time

    if warmup:
        measure_modes(base_url, text, recorder=recorder, webhook_url=webhook_url, token=token,
                      poll_interval_s=poll_interval_s, timeout_s=timeout_s, modes=modes,
                      warmup=False)
    from agentproto.a2a.client import SyncA2AClient
    from agentproto.a2a.types import TaskPushNotificationConfig

    client = SyncA2AClient.discover(base_url)
    out: list[ModeResult] = []
    try:
        for mode in modes:
            before = client.requests_made
            t0 = time.monotonic()  # the clock WebhookRecorder stamps arrivals with

            def ms() -> float:
                return (time.monotonic() - t0) * 1000

            if mode == "blocking":
                task = client.send(text, timeout=timeout_s)
                done = ms()
                out.append(ModeResult(mode, client.requests_made - before, 0, done, done,
                                      [(done, "the settled Task")], _produced(task)))
            elif mode == "polling":
                task = client.send(text, return_immediately=True)
                seen = [(ms(), "Task: " + task.status.state.short)]
                key, first = _poll_key(task), None
                while not _settles(task.status.state):
                    time.sleep(poll_interval_s)
                    task = client.get_task(task.id)
                    if _poll_key(task) != key:
                        key = _poll_key(task)
                        seen.append((ms(), "GetTask: " + task.status.state.short))
                        first = seen[-1][0] if first is None else first
                    if ms() > timeout_s * 1000:
                        raise TimeoutError(f"polling: task {task.id} did not settle")
                out.append(ModeResult(mode, client.requests_made - before, 0, first,
                                      seen[-1][0], seen, _produced(task)))
            elif mode == "streaming":
                seen = []
                for event in client.stream(text, timeout=timeout_s):
                    seen.append((ms(), _event_label(event)))
                first = seen[1][0] if len(seen) > 1 else None
                out.append(ModeResult(mode, client.requests_made - before, 0, first,
                                      seen[-1][0], seen, len(seen)))
            elif mode == "push":
                if recorder is None or not webhook_url:
                    raise ValueError("push needs a WebhookRecorder and the URL it is served at")
                config = TaskPushNotificationConfig(url=webhook_url, token=token)
                task = client.send(text, return_immediately=True, push=config)
                if not wait_until(lambda: push_settled(recorder, task.id), timeout_s=timeout_s):
                    raise TimeoutError(f"push: task {task.id} did not settle in time")
                arrived = [((t - t0) * 1000, _event_label(e)) for t, e in
                           pushes_for(recorder, task.id)]
                first = next((t for t, label in arrived if not label.startswith("Task")), None)
                out.append(ModeResult(mode, client.requests_made - before, len(arrived), first,
                                      arrived[-1][0], arrived, len(arrived)))
            else:
                raise ValueError(f"unknown mode {mode!r}; choose from {', '.join(MODES)}")
    finally:
        client.close()
    return out


def _poll_key(task: Any) -> tuple:
    return (task.status.state, task.status.timestamp,
            sum(len(a.parts) for a in task.artifacts))


def _produced(task: Any) -> int:
    """How many stream events a settled task produced, read off the task itself: its Task
    snapshot, one status update per agent message in the history, one artifact update per
    artifact part. (Exact for this kit's agents, whose status updates all carry a message and
    whose chunks carry one part each.)"""
    statuses = sum(1 for m in task.history if m.role.value == "ROLE_AGENT")
    return 1 + statuses + sum(len(a.parts) for a in task.artifacts)


class ArtifactAssemblyError(Exception):
    """A stream's artifact chunks do not fit together (e.g. an append to an unknown artifact)."""


class ArtifactAssembler:
    """Rebuild a task's artifacts on the client from what a stream (or webhook) delivers.

    * a ``task`` event (the first event of a stream or subscription) replaces everything with
      the snapshot — which already contains every chunk sent so far;
    * an ``artifactUpdate`` with ``append: false`` starts (or replaces) an artifact; with
      ``append: true`` its parts are added to the artifact of the same ``artifactId``, which must
      exist;
    * ``lastChunk: true`` marks the artifact complete.

    This mirrors what the server does to its own copy of the task, so "reassembled == the
    task's artifact from ``GetTask``" is the check that nothing was lost.
    """

    def __init__(self) -> None:
        self.artifacts: dict[str, Any] = {}
        self.complete: set[str] = set()
        #: (artifactId, append, lastChunk, text of the chunk) for every update fed
        self.chunks: list[tuple[str, bool, bool, str]] = []

    def feed(self, event: Any) -> None:
        """Take one ``StreamResponse``; other payloads than ``task``/``artifactUpdate`` pass."""
        if event.task is not None:
            self.artifacts = {a.artifact_id: a for a in event.task.artifacts}
            return
        update = event.artifact_update
        if update is None:
            return
        artifact = update.artifact
        self.chunks.append((artifact.artifact_id, update.append, update.last_chunk,
                            artifact.text))
        if update.append:
            old = self.artifacts.get(artifact.artifact_id)
            if old is None:
                raise ArtifactAssemblyError(
                    f"append to artifact {artifact.artifact_id!r}, which this stream never "
                    "started (a lost first chunk?) — re-read the task with GetTask")
            if artifact.artifact_id in self.complete:
                raise ArtifactAssemblyError(
                    f"chunk after lastChunk for artifact {artifact.artifact_id!r}")
            self.artifacts[artifact.artifact_id] = old.model_copy(
                update={"parts": old.parts + artifact.parts})
        else:
            self.artifacts[artifact.artifact_id] = artifact
            self.complete.discard(artifact.artifact_id)
        if update.last_chunk:
            self.complete.add(artifact.artifact_id)

    def text(self, artifact_id: str) -> str:
        return self.artifacts[artifact_id].text


def compact_labels(labels: Iterable[str]) -> str:
    """``["working", "working", "trip"]`` → ``"working ×2, trip"`` (runs of equal labels)."""
    from itertools import groupby

    parts = []
    for label, run in groupby(labels):
        n = len(list(run))
        parts.append(f"{label} ×{n}" if n > 1 else label)
    return ", ".join(parts)


def wait_until(condition: Any, *, timeout_s: float = 5.0, interval_s: float = 0.01) -> bool:
    """Poll ``condition()`` until it is true or ``timeout_s`` passes; return the last value.

    For notebook cells that must wait for something happening on a server thread (webhook
    deliveries, a background run) without sleeping a fixed, guessed time.
    """
    import time

    deadline = time.monotonic() + timeout_s
    while True:
        if condition():
            return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(interval_s)


# =========================================================================== notebook 12

#: The three protocol layers and the colour each is drawn in.
LAYERS = {"AG-UI": PALETTE["secondary"], "MCP": PALETTE["accent"], "A2A": PALETTE["primary"]}


@dataclass(frozen=True)
class Hop:
    """One message crossing one protocol boundary: who sent what to whom, and the id to look
    for when you have to find it again (the layer's *observation point*)."""

    layer: str  #: ``AG-UI``, ``MCP`` or ``A2A``
    sender: str
    receiver: str
    what: str
    observe: str = ""


class StackLog:
    """The hops of one request through the stack, in the order they happened."""

    PARTIES = ("user", "concierge", "tools", "travel desk")
    _TITLES = {"user": "user\n(browser)", "concierge": "concierge\n(agent runtime)",
               "tools": "tools\n(MCP server)", "travel desk": "Travel Desk\n(remote A2A agent)"}

    def __init__(self) -> None:
        self.hops: list[Hop] = []

    def add(self, layer: str, sender: str, receiver: str, what: str, observe: str = "") -> None:
        self.hops.append(Hop(layer, sender, receiver, what, observe))

    def clear(self) -> None:
        self.hops.clear()

    def layers(self) -> dict[str, int]:
        """Hops per layer."""
        out = dict.fromkeys(LAYERS, 0)
        for h in self.hops:
            out[h.layer] += 1
        return out

    def table(self) -> str:
        """One line per hop: number, layer, direction, what, observation point."""
        if not self.hops:
            return "(no hops yet)"
        lines = []
        for n, h in enumerate(self.hops, start=1):
            arrow = f"{h.sender} → {h.receiver}"
            lines.append(f"{n:>2}  {h.layer:<5}  {arrow:<24}  {h.what:<44}  {h.observe}".rstrip())
        return "\n".join(lines)

    def plot(self, *, title: str = "") -> Figure:
        """A sequence diagram: a lifeline per party, an arrow per hop, coloured by layer."""
        from matplotlib.lines import Line2D

        xs = {p: i for i, p in enumerate(self.PARTIES)}
        n = len(self.hops)
        fig, ax = plt.subplots(figsize=(11, 0.42 * n + 1.6))
        for p, x in xs.items():
            ax.plot([x, x], [0.5, -n - 0.3], color=PALETTE["muted"], lw=1, zorder=1)
            ax.text(x, 0.9, self._TITLES[p], ha="center", va="bottom", fontsize=9,
                    fontweight="bold")
        for i, h in enumerate(self.hops, start=1):
            x0, x1 = xs[h.sender], xs[h.receiver]
            color = LAYERS[h.layer]
            ax.annotate("", xy=(x1, -i), xytext=(x0, -i),
                        arrowprops={"arrowstyle": "-|>", "color": color, "lw": 1.6})
            label = h.what if len(h.what) <= 42 else h.what[:41] + "…"
            ax.text((x0 + x1) / 2, -i + 0.12, label, ha="center", va="bottom", fontsize=7.5,
                    color="black")
        ax.legend(handles=[Line2D([], [], color=c, lw=2, label=layer)
                           for layer, c in LAYERS.items()],
                  loc="upper right", bbox_to_anchor=(1.0, -0.01), ncol=3, fontsize=8)
        ax.set_xlim(-0.6, len(self.PARTIES) - 0.4)
        ax.set_ylim(-n - 0.6, 1.6)
        ax.set_axis_off()
        if title:
            ax.set_title(title)
        fig.tight_layout()
        return fig


#: What the concierge asks the user for when the remote agent needs input.
ANSWER_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"answer": {"type": "string", "minLength": 1}},
    "required": ["answer"],
    "additionalProperties": False,
}


class ConciergeAgent:
    """A personal-assistant agent that uses all three protocols for one request.

    * **AG-UI to the user**: it is an AG-UI agent (``agent(ctx)`` yields events), served by
      :func:`agentproto.agui.server.agui_routes`;
    * **MCP inside**: it looks orders up with ``tools/call get_order``, sent as a JSON-RPC
      request through :func:`agentproto.demo.tools.handle_jsonrpc`, so the MCP wire shape is
      what travels;
    * **A2A between agents**: it delegates trip planning to the Travel Desk, discovered from
      its Agent Card, with ``SendStreamingMessage``, and relays the task's updates as an AG-UI
      *subagent* — status messages and artifact chunks become attributed text, the structured
      trip goes into shared state.

    The delegation follows AG-UI's subagent rules (spec 1.1 ``events/subagents``): the
    invocation is announced before anything is attributed to it and closed before the run
    ends — ``SUBAGENT_FINISHED`` when the A2A task completes, ``SUBAGENT_ERROR`` when it fails,
    is rejected or cannot be reached. When the remote task stops in ``INPUT_REQUIRED`` the
    invocation finishes *suspended* and the run ends with an **interrupt** carrying the remote
    agent's question; the user's answer (a ``resume``) becomes an A2A follow-up message on the
    same ``taskId`` under the same ``subagentRunId``.

    Routing is deliberately simple: an order id in the text means "look it up", the word
    "trip" means "delegate" — a real agent would let its model decide. The remote call is made
    synchronously from the generator, which blocks the AG-UI server's event loop while the A2A
    stream is read; fine on a teaching server, a worker thread in production. Every hop is
    written to :attr:`log` (a :class:`StackLog`).
    """

    name = "concierge"

    def __init__(self, tools: Any, travel_url: str, *, log: StackLog | None = None,
                 a2a_ids: Any = None, a2a_timeout_s: float = 10.0,
                 max_result_chars: int = 600) -> None:
        from agentproto.clock import IdFactory

        self.tools = tools
        self.travel_url = travel_url
        self.log = log if log is not None else StackLog()
        self.a2a_ids = a2a_ids if a2a_ids is not None else IdFactory("a2a-msg")
        self.a2a_timeout_s = a2a_timeout_s
        self.max_result_chars = max_result_chars
        self._mcp_ids = itertools.count(1)
        self._client: Any = None

    # -- the AG-UI agent --------------------------------------------------------------------

    def __call__(self, ctx: Any) -> Iterator[Any]:
        from agentproto.agui import events as ev

        yield ev.RunStartedEvent(thread_id=ctx.thread_id, run_id=ctx.run_id,
                                 protocol_version=ev.PROTOCOL_VERSION)
        kind = "resume" if ctx.plan.kind == "resume" else "new run"
        self.log.add("AG-UI", "user", "concierge", f"POST /ag-ui/agent ({kind})",
                     f"runId={ctx.run_id}")
        state = dict(ctx.state) if isinstance(ctx.state, Mapping) else {}
        if ctx.plan.kind == "resume":
            finished = yield from self._resume(ctx, state)
        else:
            finished = yield from self._start(ctx, state)
        if finished:
            return
        yield ev.StateSnapshotEvent(snapshot=state)
        yield from self._say(ctx, self._summary(state))
        result = {k: state[k] for k in ("order", "trip") if k in state}
        self.log.add("AG-UI", "concierge", "user", "RUN_FINISHED (success)",
                     f"runId={ctx.run_id}")
        yield ev.RunFinishedEvent(thread_id=ctx.thread_id, run_id=ctx.run_id, result=result)

    def _start(self, ctx: Any, state: dict[str, Any]):
        from agentproto.demo.refund_agent import ORDER_ID_PATTERN

        text = _last_user_text(ctx.messages)
        match = ORDER_ID_PATTERN.search(text.upper())
        if match:
            yield from self._look_up(ctx, match.group(1), state)
        if "trip" in text.lower():
            return (yield from self._delegate(ctx, text, state))
        return False

    def _resume(self, ctx: Any, state: dict[str, Any]):
        for answer in ctx.plan.answers:
            interrupt = answer.interrupt
            meta = interrupt.get("metadata") or {}
            task_id, context_id = meta.get("a2aTaskId", ""), meta.get("a2aContextId", "")
            subagent = interrupt.get("subagentRunId") or ctx.ids()
            if answer.status == "cancelled":
                self.log.add("A2A", "concierge", "travel desk", "CancelTask", f"taskId={task_id}")
                canceled = self.client().cancel_task(task_id)
                self.log.add("A2A", "travel desk", "concierge",
                             f"Task {canceled.status.state.short}", f"taskId={task_id}")
                state["trip"] = {"a2aTaskId": task_id, "state": canceled.status.state.short}
                yield from self._say(ctx, "Understood — I have cancelled the trip request.")
                continue
            reply = (answer.payload or {}).get("answer", "")
            if (yield from self._delegate(ctx, reply, state, task_id=task_id,
                                          context_id=context_id, subagent=subagent)):
                return True
        return False

    # -- MCP ----------------------------------------------------------------------------------

    def _look_up(self, ctx: Any, order_id: str, state: dict[str, Any]):
        import json

        from agentproto.agui import events as ev
        from agentproto.demo.tools import handle_jsonrpc

        said = yield from self._say(ctx, f"Let me check order {order_id}.")
        call_id = ctx.ids()
        args = {"orderId": order_id}
        yield ev.ToolCallStartEvent(tool_call_id=call_id, tool_call_name="get_order",
                                    parent_message_id=said)
        yield ev.ToolCallArgsEvent(tool_call_id=call_id, delta=json.dumps(args))
        yield ev.ToolCallEndEvent(tool_call_id=call_id)
        self.log.add("AG-UI", "concierge", "user", "TOOL_CALL_START/ARGS/END get_order",
                     f"toolCallId={call_id}")
        request = {"jsonrpc": "2.0", "id": next(self._mcp_ids), "method": "tools/call",
                   "params": {"name": "get_order", "arguments": args}}
        self.log.add("MCP", "concierge", "tools", "tools/call get_order", f"id={request['id']}")
        response = handle_jsonrpc(self.tools, request)
        if "error" in response:
            error = response["error"]
            content, ok = f"error {error['code']}: {error['message']}", False
            self.log.add("MCP", "tools", "concierge", f"JSON-RPC error {error['code']}",
                         f"id={request['id']}")
        else:
            result = response["result"]
            ok = not result.get("isError")
            content = "\n".join(b.get("text", "") for b in result.get("content", []))
            self.log.add("MCP", "tools", "concierge",
                         f"result (isError={str(not ok).lower()})", f"id={request['id']}")
        if len(content) > self.max_result_chars:
            content = content[:self.max_result_chars] + "…"
        yield ev.ToolCallResultEvent(message_id=ctx.ids(), tool_call_id=call_id,
                                     content=content, role="tool")
        self.log.add("AG-UI", "concierge", "user", "TOOL_CALL_RESULT", f"toolCallId={call_id}")
        if ok:
            order = result["structuredContent"]
            state["order"] = {k: order[k] for k in ("orderId", "status", "shippedAt",
                                                    "deliveredAt", "carrier") if k in order}
        else:
            state["order"] = {"orderId": order_id, "error": content}

    # -- A2A ----------------------------------------------------------------------------------

    def client(self) -> Any:
        """The A2A client, discovered from the Travel Desk's card on first use."""
        if self._client is None:
            from agentproto.a2a.client import SyncA2AClient

            self.log.add("A2A", "concierge", "travel desk", "GET /.well-known/agent-card.json")
            self._client = SyncA2AClient.discover(self.travel_url, ids=self.a2a_ids)
            itf = self._client.card.supported_interfaces[0]
            self.log.add("A2A", "travel desk", "concierge", f"Agent Card: {self._client.card.name}",
                         f"{itf.protocol_binding} {itf.protocol_version}")
        return self._client

    def _delegate(self, ctx: Any, content: str, state: dict[str, Any], *, task_id: str = "",
                  context_id: str = "", subagent: str = ""):
        """Send ``content`` to the Travel Desk and relay its task; True if the run ended."""
        from agentproto.a2a.client import A2AClientError, A2AConnectionError
        from agentproto.a2a.errors import A2AError
        from agentproto.agui import events as ev
        from agentproto.agui.interrupts import finish_with_interrupts

        open_text: dict[str, str] = {}
        said = yield from self._say(ctx, "Asking the Travel Desk, a remote A2A agent, "
                                         "to plan the trip." if not task_id else
                                         "Passing your answer on to the Travel Desk.")
        subagent = subagent or ctx.ids()
        yield ev.SubagentStartedEvent(subagent_run_id=subagent, name="Travel Desk",
                                      description="A2A task on a remote agent",
                                      parent_message_id=said)
        self.log.add("AG-UI", "concierge", "user", "SUBAGENT_STARTED Travel Desk",
                     f"subagentRunId={subagent}")
        what = "SendStreamingMessage" + (" (follow-up)" if task_id else "")
        try:
            client = self.client()
            self.log.add("A2A", "concierge", "travel desk", what,
                         f"taskId={task_id}" if task_id else "")
            stream = client.stream(content, task_id=task_id or None,
                                   context_id=context_id or None, timeout=self.a2a_timeout_s)
            task = None
            last_state = None
            for event in stream:
                if event.message is not None:  # a direct reply: no task
                    self.log.add("A2A", "travel desk", "concierge", "Message (no task)")
                    yield from self._say(ctx, event.message.text, subagent=subagent)
                    break
                if event.task is not None:
                    task = event.task
                    self.log.add("A2A", "travel desk", "concierge",
                                 f"Task {task.status.state.short}",
                                 f"taskId={task.id} contextId={task.context_id}")
                    continue
                if event.artifact_update is not None:
                    yield from self._relay_artifact(ctx, event.artifact_update, subagent,
                                                    open_text, state)
                    continue
                status = event.status_update.status
                if status.state is not last_state:
                    last_state = status.state
                    self.log.add("A2A", "travel desk", "concierge",
                                 f"statusUpdate {status.state.short}", f"taskId={task.id}")
                words = status.message.text if status.message is not None else ""
                if status.state in INTERRUPTED_STATES:
                    stream.close()
                    interrupt_id = ctx.ids()
                    yield ev.SubagentFinishedEvent(
                        subagent_run_id=subagent,
                        outcome={"type": "suspended", "interruptIds": [interrupt_id]})
                    self.log.add("AG-UI", "concierge", "user", "SUBAGENT_FINISHED (suspended)",
                                 f"subagentRunId={subagent}")
                    interrupt = {
                        "id": interrupt_id, "reason": "input_required",
                        "message": f"The Travel Desk asks: {words}",
                        "responseSchema": ANSWER_SCHEMA, "subagentRunId": subagent,
                        "metadata": {"a2aTaskId": task.id, "a2aContextId": task.context_id,
                                     "a2aState": status.state.value}}
                    state["trip"] = {"a2aTaskId": task.id, "state": status.state.short}
                    self.log.add("AG-UI", "concierge", "user", "RUN_FINISHED (interrupt)",
                                 f"interruptId={interrupt_id}")
                    yield from finish_with_interrupts(ctx.thread_id, ctx.run_id, [interrupt],
                                                      state=state, messages=ctx.messages)
                    return True
                if status.state in TERMINAL_STATES:
                    if status.state is TaskState.COMPLETED:
                        yield ev.SubagentFinishedEvent(
                            subagent_run_id=subagent,
                            result={"a2aTaskId": task.id, "state": status.state.short})
                        self.log.add("AG-UI", "concierge", "user", "SUBAGENT_FINISHED",
                                     f"subagentRunId={subagent}")
                    else:
                        yield ev.SubagentErrorEvent(subagent_run_id=subagent,
                                                    message=words or status.state.short,
                                                    code=f"A2A_{status.state.name}")
                        self.log.add("AG-UI", "concierge", "user",
                                     f"SUBAGENT_ERROR A2A_{status.state.name}",
                                     f"subagentRunId={subagent}")
                    trip = state.get("trip") or {}
                    trip.update({"a2aTaskId": task.id, "state": status.state.short})
                    state["trip"] = trip
                    return False
                if words:
                    yield from self._say(ctx, words, subagent=subagent)
            else:
                if task is None:
                    raise A2AClientError("the stream ended before the Task arrived")
                raise A2AClientError(f"the stream of task {task.id} ended unsettled")
            if task is None:  # the direct-message case
                yield ev.SubagentFinishedEvent(subagent_run_id=subagent)
                return False
        except (A2AError, A2AClientError) as exc:
            for message_id in open_text.values():  # close what the broken stream left open
                yield ev.TextMessageEndEvent(message_id=message_id)
            code = ("A2A_UNREACHABLE" if isinstance(exc, A2AConnectionError)
                    else f"A2A_{type(exc).__name__}")
            self.log.add("A2A", "travel desk", "concierge", f"✗ {type(exc).__name__}")
            yield ev.SubagentErrorEvent(subagent_run_id=subagent, message=str(exc), code=code)
            self.log.add("AG-UI", "concierge", "user", f"SUBAGENT_ERROR {code}",
                         f"subagentRunId={subagent}")
            state["trip"] = {"error": code}
        return False

    def _relay_artifact(self, ctx: Any, update: Any, subagent: str, open_text: dict[str, str],
                        state: dict[str, Any]):
        """Text artifacts become one attributed message (chunks → deltas); data → state."""
        from agentproto.agui import events as ev

        artifact = update.artifact
        text = artifact.text
        if text:
            message_id = open_text.get(artifact.artifact_id)
            if message_id is None or not update.append:
                message_id = open_text[artifact.artifact_id] = ctx.ids()
                yield ev.TextMessageStartEvent(message_id=message_id, role="assistant",
                                               subagent_run_id=subagent)
            yield ev.TextMessageContentEvent(message_id=message_id, delta=text)
            if update.last_chunk:
                yield ev.TextMessageEndEvent(message_id=message_id)
                del open_text[artifact.artifact_id]
                self.log.add("A2A", "travel desk", "concierge",
                             f"artifact {artifact.name or artifact.artifact_id} (text)",
                             f"artifactId={artifact.artifact_id}")
        for part in artifact.parts:
            if part.data is not None:
                state["trip"] = {**(state.get("trip") or {}), "plan": part.data}
                yield ev.StateSnapshotEvent(snapshot=state, subagent_run_id=subagent)
                self.log.add("A2A", "travel desk", "concierge",
                             f"artifact {artifact.name or artifact.artifact_id} (data)",
                             f"artifactId={artifact.artifact_id}")

    # -- small helpers ---------------------------------------------------------------------------

    def _say(self, ctx: Any, text: str, *, subagent: str | None = None):
        """One complete assistant text message; returns its id."""
        from agentproto.agui import events as ev

        message_id = ctx.ids()
        yield ev.TextMessageStartEvent(message_id=message_id, role="assistant",
                                       subagent_run_id=subagent)
        yield ev.TextMessageContentEvent(message_id=message_id, delta=text)
        yield ev.TextMessageEndEvent(message_id=message_id)
        return message_id

    @staticmethod
    def _summary(state: Mapping[str, Any]) -> str:
        parts = []
        order = state.get("order")
        if order and "error" not in order:
            when = (order.get("deliveredAt") or order.get("shippedAt") or "")[:10]
            parts.append(f"Order {order['orderId']}: {order['status']}"
                         + (f" on {when} with {order['carrier']}" if when else "") + ".")
        elif order:
            parts.append(f"I could not look up order {order['orderId']}: {order['error']}")
        trip = state.get("trip")
        if trip and trip.get("plan"):
            plan = trip["plan"]
            parts.append(f"Your trip to {plan['flight']['to']} is planned: flight "
                         f"{plan['flight']['flight']}, {plan['hotel']['name']}, "
                         f"{plan['hotel']['nights']} nights.")
        elif trip and trip.get("error"):
            parts.append(f"The Travel Desk could not be used ({trip['error']}).")
        elif trip:
            parts.append(f"The Travel Desk's task ended {trip.get('state')}.")
        return " ".join(parts) or "There was nothing for me to do."


def _last_user_text(messages: Sequence[Mapping[str, Any]]) -> str:
    for message in reversed(messages):
        if message.get("role") == "user":
            content = message.get("content")
            if isinstance(content, str):
                return content
            return " ".join(p.get("text", "") for p in content or [] if p.get("type") == "text")
    return ""


def create_concierge_app(travel_url: str, *, tools: Any = None, clock: Any = None,
                         ids: Any = None, a2a_ids: Any = None) -> Any:
    """A Starlette app serving :class:`ConciergeAgent` over AG-UI (``POST /ag-ui/agent`` …).

    ``app.state``: ``concierge`` (the agent, whose ``log`` is the :class:`StackLog`),
    ``tools`` (the MCP-shaped provider — inject faults there), ``store``.
    """
    from starlette.applications import Starlette

    from agentproto.agui.server import agui_routes
    from agentproto.demo.tools import FakeToolProvider
    from agentproto.store import Store

    store = Store(":memory:", clock=clock)
    tools = tools if tools is not None else FakeToolProvider(store, clock=clock)
    agent = ConciergeAgent(tools, travel_url, a2a_ids=a2a_ids)
    app = Starlette(routes=agui_routes(store, agent, clock=clock, ids=ids))
    app.state.concierge = agent
    app.state.tools = tools
    app.state.store = store
    return app

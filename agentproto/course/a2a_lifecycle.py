"""Notebook 10, the task lifecycle: the state diagram, the transition lab and task timelines.

Every picture here is *drawn from* the protocol package, never restated: nodes, edges and node
kinds are the library's drawing data, :func:`agentproto.a2a.machine.lifecycle_diagram` (itself
read from :data:`~agentproto.a2a.machine.TRANSITIONS` and the state sets of
:mod:`agentproto.a2a.states`), to which this module adds only layout and colour; and
:class:`TransitionLab` fires its moves through :class:`~agentproto.a2a.machine.TaskMachine` and
the same checks the server makes, so every refusal it shows is the A2A error a real client would
get.

==============================  ==================================================================
:func:`state_graph`             the transition table as a ``networkx.DiGraph``
:class:`StateDiagram`           the diagram as a live figure (highlight a path, ring a state)
:func:`draw_state_diagram`      the same, once, as a matplotlib figure
:func:`transition_table`        the table as fixed-width text
:class:`TransitionLab`          a widget: fire agent moves and client operations at one task;
                                each press is logged as a :class:`TransitionAttempt`
:func:`timeline_table`          a task's recorded transitions as text
:func:`plot_timelines`          one bar per task, one coloured segment per state
==============================  ==================================================================

Widgets follow the course rule: every control is an attribute, so a test can set ``.value`` or
call ``.click()`` and read the effect; figures are rendered to PNG bytes in a
``widgets.Image`` (never drawn into an ``Output``), which behaves the same in JupyterLab, under
nbval and in tests.
"""

from __future__ import annotations

import html
import io
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import ipywidgets as widgets
import matplotlib.pyplot as plt
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.patches import FancyArrowPatch, Patch

from agentproto.a2a.errors import ERRORS_BY_CODE, A2AError, TaskNotFoundError
from agentproto.a2a.machine import (
    ENTRY_NODE,
    TRANSITIONS,
    InvalidTransitionError,
    Operation,
    TaskMachine,
    Transition,
    lifecycle_diagram,
    resolve_follow_up,
)
from agentproto.a2a.states import INTERRUPTED_STATES, TERMINAL_STATES, TaskState
from agentproto.clock import FakeClock
from agentproto.course.plots import PALETTE, STATE_COLORS

__all__ = [
    "NEW",
    "state_graph",
    "StateDiagram",
    "draw_state_diagram",
    "transition_table",
    "TransitionAttempt",
    "TransitionLab",
    "timeline_table",
    "plot_timelines",
]

#: Label of the "no task yet" node (``None`` in the transition table): the library's name.
NEW = ENTRY_NODE
#: The library's drawing data: nodes, edges, and the nodes grouped by kind.
_DIAGRAM = lifecycle_diagram()


def _label(state: TaskState | None) -> str:
    return NEW if state is None else state.short


def state_graph() -> Any:
    """The transition table as a ``networkx.DiGraph`` (nodes are short state names).

    Node attribute ``kind`` is ``entry``, ``active``, ``interrupted`` or ``terminal`` — taken
    from :func:`~agentproto.a2a.machine.lifecycle_diagram`, not written here.
    """
    import networkx as nx

    g = nx.DiGraph()
    for node in _DIAGRAM.nodes:
        g.add_node(node, kind=_DIAGRAM.kind(node))
    g.add_edges_from(_DIAGRAM.edges)
    return g


def _kind(state: TaskState | None) -> str:
    return _DIAGRAM.kind(_label(state))


def _order(states: Iterable[TaskState]) -> list[TaskState]:
    return sorted(states, key=list(TaskState).index)


def _positions() -> dict[str, tuple[float, float]]:
    """Columns by kind: entry | active | interrupted (above and below) | terminal."""
    groups = _DIAGRAM.groups
    pos: dict[str, tuple[float, float]] = {NEW: (0.0, 0.0)}
    for i, n in enumerate(groups["active"]):
        pos[n] = (1.4 + 1.6 * i, 0.0)
    for n, y in zip(groups["interrupted"], (1.7, -1.7)):
        pos[n] = (3.0, y)
    terminal = groups["terminal"]
    for i, n in enumerate(terminal):
        pos[n] = (5.6, 2.1 - 4.2 * i / (len(terminal) - 1))
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

    def __init__(
        self,
        *,
        title: str = "A2A task states (edges: the derived transition table)",
        figsize: tuple[float, float] = (9.5, 5.6),
        dpi: int = 100,
        legend_path: bool = True,
        pyplot: bool = True,
    ) -> None:
        import networkx as nx
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.lines import Line2D

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
        nx.draw_networkx_nodes(
            g,
            pos,
            ax=ax,
            node_size=size,
            edgecolors="black",
            node_color=[STATE_COLORS.get(n, "white") for n in g.nodes],
            linewidths=1.0,
        )
        dark = ("working", "failed", "canceled", "rejected")
        for n, (x, y) in pos.items():
            ax.text(
                x,
                y,
                n.replace("-", "-\n"),
                ha="center",
                va="center",
                fontsize=8,
                fontweight="bold",
                color="white" if n in dark else "black",
                zorder=5,
            )

        plain = [(u, v) for u, v in g.edges if u != v]
        into_terminal = [e for e in plain if g.nodes[e[1]]["kind"] == "terminal"]
        others = [e for e in plain if e not in into_terminal]
        self._overlays: dict[Any, Any] = {}  # edge (u, v) or node name → hidden red artist
        for edgelist, color, width, alpha, rad in (
            (into_terminal, PALETTE["muted"], 0.7, 0.55, 0.05),
            (others, "#333333", 1.1, 1.0, 0.12),
        ):
            for hot in (False, True):
                artists = nx.draw_networkx_edges(
                    g,
                    pos,
                    edgelist=edgelist,
                    ax=ax,
                    node_size=size,
                    arrowsize=11,
                    edge_color=PALETTE["bad"] if hot else color,
                    width=3.0 if hot else width,
                    alpha=1.0 if hot else alpha,
                    connectionstyle=f"arc3,rad={rad}",
                )
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
            ring = nx.draw_networkx_nodes(
                g,
                pos,
                nodelist=[n],
                ax=ax,
                node_size=size + 900,
                node_color="none",
                edgecolors=PALETTE["bad"],
                linewidths=3.0,
            )
            ring.set_visible(False)
            self._overlays[n] = ring

        # One entry per node colour, so the key matches the picture: each state with its kind.
        legend: list[Any] = [
            Patch(facecolor="white", edgecolor="black", label="(new): no task yet"),
            *(
                Patch(facecolor=STATE_COLORS[n], edgecolor="black", label=f"{n} ({kind})")
                for kind in ("active", "interrupted", "terminal")
                for n in _DIAGRAM.groups[kind]
                if n in STATE_COLORS
            ),
            Line2D([], [], color="#333333", lw=1.2, label="move to a state that is not terminal"),
            Line2D([], [], color=PALETTE["muted"], lw=1, label="move into a terminal state"),
        ]
        if legend_path:
            legend.append(Line2D([], [], color=PALETTE["bad"], lw=3, label="the path taken / current state"))
        ax.legend(handles=legend, loc="lower left", fontsize=7, ncol=2, bbox_to_anchor=(-0.02, -0.03))
        ax.set_xlim(-0.7, 6.3)
        ax.set_ylim(-2.7, 2.7)
        ax.set_axis_off()
        if title:
            ax.set_title(title)
        self.figure.tight_layout()
        self._background = None

    def update(
        self, *, current: TaskState | None | str = "", path: Iterable[tuple[TaskState | None, TaskState]] = ()
    ) -> StateDiagram:
        """Ring ``current`` (``None``: the "(new)" node; ``""``: nothing); thicken ``path``."""
        ring = "" if current == "" else _label(TaskState(current) if isinstance(current, str) else current)
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

        canvas: Any = self.figure.canvas  # an Agg canvas (blitting API)
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
        Image.frombuffer("RGBA", canvas.get_width_height(), canvas.buffer_rgba(), "raw", "RGBA", 0, 1).save(
            buffer, format="png"
        )
        return buffer.getvalue()

    def close(self) -> None:
        plt.close(self.figure)


def draw_state_diagram(
    *,
    current: TaskState | None | str = "",
    path: Sequence[tuple[TaskState | None, TaskState]] = (),
    title: str = "A2A task states (edges: the derived transition table)",
) -> Figure:
    """Draw every state and every allowed move of :data:`TRANSITIONS`; return the figure.

    ``current`` rings one state (``None`` rings the "(new)" node; the default rings nothing);
    ``path`` — ``(source, target)`` pairs, e.g. from a task's history — is drawn thick, so a
    learner sees the route a task took through the table.
    """
    diagram = StateDiagram(title=title, legend_path=bool(path) or current != "")
    return diagram.update(current=current, path=path).figure


def _self_loop(ax: Axes, xy: tuple[float, float], *, color: str, width: float) -> Patch:
    """A loop arrow on the upper-left of a node (where no other edge arrives)."""
    x, y = xy
    start, end = (x - 0.33, y + 0.14), (x - 0.16, y + 0.36)
    return ax.add_patch(
        FancyArrowPatch(
            start,
            end,
            connectionstyle="arc3,rad=-1.6",
            arrowstyle="-|>",
            mutation_scale=10,
            color=color,
            linewidth=width,
            zorder=4,
        )
    )


def transition_table() -> str:
    """:data:`TRANSITIONS` as a fixed-width text table, one row per source state."""
    width = max(len(_label(s)) for s in TRANSITIONS)
    lines = [f"{'from':<{width}}  may move to"]
    for source, targets in TRANSITIONS.items():
        names = ", ".join(t.short for t in _order(targets)) or "— nothing (terminal)"
        lines.append(f"{_label(source):<{width}}  {names}")
    return "\n".join(lines)


@dataclass(frozen=True)
class TransitionAttempt:
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
    #: the spec's name for ``code`` when ``error`` is the kit's own subclass of it
    #: (``InvalidTransitionError`` is the kit's ``InvalidAgentResponseError``, -32006); else ""
    spec_error: str = ""

    @property
    def refusal(self) -> str:
        """The error as the log shows it: its class, and the spec's name if that differs."""
        if self.spec_error:
            return f"{self.error} (the kit's {self.spec_error}, {self.code})"
        return f"{self.error} ({self.code})"

    def line(self) -> str:
        mark = "✓" if self.accepted else "✗"
        result = (
            f"{_label(self.before)} → {_label(self.after)}"
            if self.before != self.after
            else f"stays {_label(self.after)}"
        )
        if not self.accepted:
            result = self.refusal
        return f"{self.step:>2} {mark} {self.actor:<6} {self.action:<18} {result}"


_OPERATIONS = {op.value: op for op in Operation}


class TransitionLab:
    """Fire agent moves and client operations at one task; see which are refused, and why.

    Agent moves go through :meth:`TaskMachine.advance` (a move the table lacks raises
    :class:`~agentproto.a2a.machine.InvalidTransitionError`, the kit's own subclass of the spec's
    ``InvalidAgentResponseError``, -32006: the fault is the agent's; the log names both).
    Client operations go through the same checks the server makes —
    :meth:`TaskMachine.check` and :func:`~agentproto.a2a.machine.resolve_follow_up` — so a
    refusal shows the error a real client would get (-32001, -32002, -32004). As on the server,
    an answer to an interrupted task moves nothing by itself; the agent's next report does.

    Drive it from code exactly as a learner clicks: ``lab.buttons["working"].click()``,
    ``lab.buttons["CancelTask"].click()``, or :meth:`fire` with the same names.
    """

    def __init__(self, *, task_id: str = "task-1", step_ms: int = 1000, show_diagram: bool = True) -> None:
        self.task_id = task_id
        self.step_ms = step_ms
        self.show_diagram = show_diagram
        self.clock = FakeClock()
        self.machine = TaskMachine(task_id, clock=self.clock)
        self.log: list[TransitionAttempt] = []
        states = [s for s in TaskState if s is not TaskState.UNSPECIFIED]
        self.buttons: dict[str, widgets.Button] = {}
        for s in states:
            self.buttons[s.short] = self._button(
                f"→ {s.short}", s.short, STATE_COLORS.get(s.short, "#dddddd")
            )
        for op in Operation:
            self.buttons[op.value] = self._button(op.value, op.value, "#e8e8e8")
        self.buttons["reset"] = self._button("Reset", "reset", "#ffffff")
        self.status = widgets.HTML()
        self.log_view = widgets.HTML()
        self.diagram = widgets.Image(format="png", layout=widgets.Layout(max_width="100%"))
        self._figure = (
            StateDiagram(title="", figsize=(8.0, 4.8), dpi=75, pyplot=False) if show_diagram else None
        )
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

    def fire(self, name: str) -> TransitionAttempt:
        """``"working"`` (an agent move, by short state name), an operation name, or ``"reset"``."""
        if name == "reset":
            self.reset()
            return self.log[-1] if self.log else TransitionAttempt(0, "", "reset", True, None, None)
        if name in _OPERATIONS:
            attempt = self.client(_OPERATIONS[name])
        else:
            target = next((s for s in TaskState if name in (s.short, s.value, s.name)), None)
            if target is None:
                raise ValueError(f"unknown action {name!r}")
            attempt = self.agent(target)
        return attempt

    def agent(self, target: TaskState) -> TransitionAttempt:
        """The agent reports ``target`` (the first report creates the task)."""
        before = self.state
        self.clock.advance(self.step_ms)
        try:
            self.machine.advance(target, reason="agent")
        except InvalidTransitionError as exc:
            why = exc.message.split(": ", 1)[-1]
            return self._record("agent", f"→ {target.short}", before, exc, why)
        return self._record("agent", f"→ {target.short}", before, None, "")

    def client(self, operation: Operation) -> TransitionAttempt:
        """The client calls ``operation`` on the task (SendMessage answers an interrupt; the
        state then waits for the agent's next report)."""
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
                    # The answer itself moves nothing: the agent's next report does (→ working to
                    # resume, the same interrupted state to ask again, or straight to an end).
                    # The spec states no move on an answer (§3.4.3), and neither does the server.
                    note = (
                        "accepted: the answer goes to the agent, and its next report moves "
                        "the task (→ working, → input-required again, or an end)"
                    )
                else:
                    note = (
                        "no move: the agent may take more input while it works (§3.3.3); "
                        "agentproto's server answers -32004 until the agent asks"
                    )
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

    def _record(
        self, actor: str, action: str, before: TaskState | None, exc: A2AError | None, note: str
    ) -> TransitionAttempt:
        spec = ERRORS_BY_CODE.get(exc.code) if exc is not None else None
        kit_subclass = exc is not None and spec is not None and type(exc) is not spec
        attempt = TransitionAttempt(
            len(self.log) + 1,
            actor,
            action,
            exc is None,
            before,
            self.state,
            None if exc is None else exc.code,
            "" if exc is None else type(exc).__name__,
            note,
            spec.__name__ if kit_subclass and spec is not None else "",
        )
        self.log.append(attempt)
        self._redraw()
        return attempt

    # -- views ------------------------------------------------------------------------------------

    @property
    def refused(self) -> list[TransitionAttempt]:
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
            f"— the agent may move it to: {html.escape(allowed)}"
        )
        # white-space: pre, scrolled rather than wrapped: a narrow screen must not split words
        self.log_view.value = (
            '<pre style="white-space: pre; overflow-x: auto; margin: 0">'
            + html.escape(self.report())
            + "</pre>"
        )
        if self._figure is not None:
            path = [(t.source, t.target) for t in self.machine.history]
            self.diagram.value = self._figure.update(current=state, path=path).png()

    def widget(self) -> widgets.VBox:
        states = [b for k, b in self.buttons.items() if k not in _OPERATIONS and k != "reset"]
        ops = [self.buttons[op.value] for op in Operation] + [self.buttons["reset"]]
        return widgets.VBox(
            [
                widgets.HTML("<b>agent reports…</b>"),
                widgets.HBox(states[:4]),
                widgets.HBox(states[4:]),
                widgets.HTML("<b>client calls…</b>"),
                widgets.HBox(ops),
                self.status,
                self.diagram,
                self.log_view,
            ]
        )

    def _ipython_display_(self) -> None:  # pragma: no cover - needs a front end
        import IPython.display

        show: Any = IPython.display.display  # untyped upstream
        show(self.widget())


def timeline_table(transitions: Sequence[Transition], *, origin_ms: int | None = None) -> str:
    """A task's recorded transitions as text: ``+ms  from → to  (reason)``."""
    if not transitions:
        return "(no transitions)"
    origin = transitions[0].at_ms if origin_ms is None else origin_ms
    lines = []
    for t in transitions:
        reason = f"  ({t.reason})" if t.reason else ""
        lines.append(f"+{t.at_ms - origin:>7,} ms  {_label(t.source):>14} → {_label(t.target)}{reason}")
    return "\n".join(lines)


def plot_timelines(
    timelines: Mapping[str, Sequence[Transition]],
    *,
    title: str = "",
    tail_ms: int | None = None,
    unit: str = "s",
) -> Figure:
    """One horizontal bar per task, one coloured segment per state (virtual time).

    Each bar starts at the task's creation; a segment lasts until the next transition, and the
    final state is drawn for ``tail_ms`` more (default: 5 % of the longest task) with a marker
    telling whether it is terminal (■) or waiting for the client (◆).
    """
    scale = {"s": 1000.0, "ms": 1.0}[unit]
    spans = [max(t.at_ms for t in ts) - ts[0].at_ms for ts in timelines.values() if ts]
    longest = max(spans + [1])
    tail = tail_ms if tail_ms is not None else max(longest * 0.05, 1)
    fig, ax = plt.subplots(figsize=(10, 0.7 * len(timelines) + 1.4))
    seen: set[str] = set()
    for row, (_name, ts) in enumerate(timelines.items()):
        if not ts:
            continue
        origin = ts[0].at_ms
        for i, t in enumerate(ts):
            start = t.at_ms - origin
            end = (ts[i + 1].at_ms - origin) if i + 1 < len(ts) else start + tail
            color = STATE_COLORS[t.target.short]
            ax.broken_barh(
                [(start / scale, max(end - start, 0) / scale)],
                (row - 0.35, 0.7),
                facecolors=color,
                edgecolors="white",
                linewidth=0.8,
                label=None if t.target.short in seen else t.target.short,
            )
            seen.add(t.target.short)
        last = ts[-1]
        marker = "s" if last.target in TERMINAL_STATES else "D"
        ax.plot([(last.at_ms - origin + tail) / scale], [row], marker=marker, color="black", markersize=6)
    ax.set_yticks(range(len(timelines)), list(timelines))
    ax.invert_yaxis()
    ax.set_xlabel(f"virtual time since the task was created ({unit})")
    handles = [Patch(color=STATE_COLORS[s], label=s) for s in STATE_COLORS if s in seen]
    ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize=8)
    if title:
        ax.set_title(title)
    fig.tight_layout()
    return fig

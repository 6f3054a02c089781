"""Notebooks 06–07 (interrupts, generative UI): the approval card, tool components, UI intents.

What a *front end* puts around the protocol, each small enough to read in one sitting:

* :class:`ApprovalCard` — the approval UI for a tool-call interrupt: Approve, Approve with
  edits, Deny, Cancel, each a real resume through a
  :class:`~agentproto.agui.client.SyncAGUIClient`;
* :class:`ComponentRegistry` — the front end's tool-name → component mapping
  (:class:`OrderComponent`, :class:`RefundComponent`, :class:`FallbackComponent`), driven by
  ``TOOL_CALL_*`` events through the package's reducer and the course's
  :class:`~agentproto.course.agui_runs.ToolCallCards`;
* :class:`IntentRenderer` — draws ``CUSTOM`` UI intents that pass the library's gate
  (:func:`agentproto.agui.ui_intent.validate_ui_intent`) and shows refusals visibly.

Widgets keep references to their controls (``card.approve_button``) so tests and notebooks
drive them from code exactly as a click would. Everything shown is HTML-escaped: arguments,
results and intents are untrusted data (spec 1.1 ``events/tool-calls``, "Security
Considerations").
"""

from __future__ import annotations

import html
import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import ipywidgets as widgets

from agentproto.agui.parse import parse_event
from agentproto.agui.state import StateReducer
from agentproto.agui.ui_intent import (
    UI_COMPONENTS,
    UI_INTENT_EVENT,
    UIIntent,
    UIIntentError,
    validate_ui_intent,
)
from agentproto.course.agui_e2e import _json_or_text
from agentproto.course.agui_runs import ToolCallCards, ToolCard
from agentproto.course.plots import PALETTE

__all__ = [
    "ApprovalCard",
    "ToolComponent",
    "OrderComponent",
    "RefundComponent",
    "FallbackComponent",
    "ComponentRegistry",
    "IntentRenderer",
]


def _proposed_args(messages: Sequence[Mapping[str, Any]], tool_call_id: str | None) -> dict[str, Any] | None:
    """The arguments of tool call ``tool_call_id`` as the thread's messages recorded them."""
    for message in messages:
        for call in message.get("toolCalls") or []:
            if call.get("id") == tool_call_id:
                try:
                    args = json.loads(call["function"]["arguments"])
                except (KeyError, TypeError, ValueError):
                    return None
                return args if isinstance(args, dict) else None
    return None


def _escape_json(value: Any) -> str:
    return html.escape(json.dumps(value, ensure_ascii=False, sort_keys=True))


class ApprovalCard:
    """The approval UI for one pending tool-call interrupt, wired to a real AG-UI client.

    ``client`` is a :class:`~agentproto.agui.client.SyncAGUIClient` (anything with
    ``thread()``, ``approve()``, ``deny()`` and ``cancel()``): widget callbacks cannot
    ``await``. The proposed arguments are read from the thread's messages — the
    ``TOOL_CALL_ARGS`` the interrupted run streamed, found by the interrupt's ``toolCallId``
    — and one input field is shown per argument. The buttons send real resumes:

    * **Approve** → ``resolved {approved: true}``
    * **Approve with edits** → ``resolved {approved: true, editedArgs: {…every argument}}``:
      the fields start as the proposal and the whole edited object is sent, because
      ``editedArgs`` is a full replacement, "not a partial merge" (AG-UI concepts/interrupts,
      "Approve with edits")
    * **Deny** → ``resolved {approved: false}`` (a denial is a payload, not a status)
    * **Cancel** → ``cancelled`` without payload (abandon the question)

    The draft in the fields is local UI state: nothing leaves the browser until a button is
    pressed. After a decision the buttons are disabled; ``result`` holds the resumed run's
    :class:`~agentproto.agui.client.RunResult` and ``error`` any refusal.
    """

    def __init__(self, client: Any, thread_id: str, interrupt: Mapping[str, Any] | None = None) -> None:
        self.client = client
        self.thread_id = thread_id
        view = client.thread(thread_id)
        if interrupt is None:
            if not view.pending_interrupts:
                raise ValueError(f"thread {thread_id} has no pending interrupt to approve")
            interrupt = view.pending_interrupts[0]
        self.interrupt = dict(interrupt)
        self.proposed = _proposed_args(view.messages, self.interrupt.get("toolCallId")) or dict(
            (self.interrupt.get("metadata") or {}).get("proposedArgs") or {}
        )
        self.fields: dict[str, widgets.Widget] = {}
        for name, value in self.proposed.items():
            if isinstance(value, bool) or not isinstance(value, (int, str)):
                continue
            control = (
                widgets.IntText(value=value, description=name)
                if isinstance(value, int)
                else widgets.Text(value=value, description=name)
            )
            self.fields[name] = control
        self.header = widgets.HTML(self._header_html())
        self.approve_button = widgets.Button(description="Approve", button_style="success", icon="check")
        self.edit_button = widgets.Button(
            description="Approve with edits", button_style="warning", icon="pencil"
        )
        self.deny_button = widgets.Button(description="Deny", button_style="danger", icon="times")
        self.cancel_button = widgets.Button(description="Cancel (abandon)", icon="ban")
        self.status = widgets.HTML("<i>waiting for your decision</i>")
        self.result: Any = None
        self.error: BaseException | None = None
        self.sent: list[str] = []
        self.approve_button.on_click(lambda _b: self._decide("approve"))
        self.edit_button.on_click(lambda _b: self._decide("edit"))
        self.deny_button.on_click(lambda _b: self._decide("deny"))
        self.cancel_button.on_click(lambda _b: self._decide("cancel"))

    @property
    def buttons(self) -> list[widgets.Button]:
        return [self.approve_button, self.edit_button, self.deny_button, self.cancel_button]

    def _header_html(self) -> str:
        i = self.interrupt
        rows = "".join(
            f"<tr><td><code>{html.escape(str(k))}</code></td><td><code>{_escape_json(v)}</code></td></tr>"
            for k, v in self.proposed.items()
        )
        return (
            f"<div><b>{html.escape(str(i.get('message', 'Approval needed')))}</b><br>"
            f"<small>interrupt <code>{html.escape(str(i.get('id')))}</code> · tool call "
            f"<code>{html.escape(str(i.get('toolCallId')))}</code> · expires "
            f"{html.escape(str(i.get('expiresAt', 'never')))}</small>"
            f"<table><tr><th>proposed argument</th><th>value</th></tr>{rows}</table></div>"
        )

    def edits(self) -> dict[str, Any]:
        """The fields the reviewer changed (for display; not what is sent — see :meth:`edited_args`)."""
        return {
            name: control.value
            for name, control in self.fields.items()
            if control.value != self.proposed.get(name)
        }

    def edited_args(self) -> dict[str, Any]:
        """The ``editedArgs`` an edited approval sends: the whole proposal with the fields'
        current values — a full replacement, so arguments without a field go along unchanged."""
        return {**self.proposed, **{name: control.value for name, control in self.fields.items()}}

    def _decide(self, decision: str) -> None:
        interrupt_id = self.interrupt["id"]
        try:
            if decision == "approve":
                self.result = self.client.approve(self.thread_id, interrupt_id)
            elif decision == "edit":
                self.result = self.client.approve(
                    self.thread_id, interrupt_id, edited_args=self.edited_args()
                )
            elif decision == "deny":
                self.result = self.client.deny(self.thread_id, interrupt_id)
            else:
                self.result = self.client.cancel(self.thread_id, interrupt_id)
        except Exception as exc:  # a refusal is shown on the card, not raised into the UI loop
            self.error = exc
            self.status.value = (
                f"<span style='color:{PALETTE['bad']}'>✗ "
                f"{html.escape(type(exc).__name__)}: {html.escape(str(exc))}"
                f"</span>"
            )
            return
        self.sent.append(decision)
        self.error = None
        for button in self.buttons:
            button.disabled = True
        text = html.escape(self.result.text or "")
        self.status.value = (
            f"<b>{html.escape(decision)}</b> sent → run "
            f"<code>{html.escape(self.result.run_id)}</code> ended "
            f"<b>{html.escape(self.result.outcome)}</b><br>{text}"
        )

    def widget(self) -> widgets.VBox:
        return widgets.VBox(
            [self.header, *self.fields.values(), widgets.HBox(self.buttons), self.status],
            layout=widgets.Layout(border="1px solid #999", padding="6px", max_width="640px"),
        )

    def _ipython_display_(self) -> None:  # pragma: no cover - needs a front end
        from IPython.display import display

        display(self.widget())


class ToolComponent:
    """The front-end component that draws one tool call; subclasses draw particular tools.

    *What state* a call is in is not decided here: :class:`ComponentRegistry` tracks it with
    the package's :class:`~agentproto.course.agui_runs.ToolCallCards` (done only on
    ``TOOL_CALL_RESULT``; ``TOOL_CALL_END`` closes the arguments, it is not a result) and hands
    each component the current card. A component only decides *how it looks*. Everything it
    shows is HTML-escaped: arguments and results are untrusted data (spec 1.1
    ``events/tool-calls``, "Security Considerations").
    """

    title = "Tool call"

    def __init__(self, tool_call_id: str, name: str) -> None:
        self.tool_call_id = tool_call_id
        self.name = name
        self.card: ToolCard | None = None  #: the latest card (status, arguments, result)
        self.view = widgets.HTML()
        self.box = widgets.VBox(
            [self.view],
            layout=widgets.Layout(border="1px solid #bbb", padding="4px", margin="2px", max_width="640px"),
        )

    @property
    def status(self) -> str:
        return self.card.status if self.card is not None else "receiving arguments"

    @property
    def args(self) -> Any:
        """The parsed arguments once complete (None while they stream: do not act on them)."""
        if self.card is None or self.card.status == "receiving arguments":
            return None
        return _json_or_text(self.card.arguments)

    @property
    def result(self) -> Any:
        return None if self.card is None else _json_or_text(self.card.result)

    @property
    def executed(self) -> bool | None:
        """False when the result says the tool was not run (a denial, a cancellation)."""
        result = self.result
        if result is None:
            return None
        return not (isinstance(result, dict) and result.get("executed") is False)

    def update(self, card: Any) -> None:
        self.card = card
        self.render()

    def body_html(self) -> str:
        text = "" if self.card is None else self.card.arguments
        return f"<pre>{html.escape(text)}</pre>"

    def render(self) -> None:
        color = {"done": PALETTE["good"], "awaiting approval": PALETTE["secondary"]}.get(
            self.status, PALETTE["primary"]
        )
        self.view.value = (
            f"<b>{html.escape(self.title)}</b> <code>{html.escape(self.name)}</code>"
            f" <span style='color:{color}'>● {html.escape(self.status)}</span>"
            f"<br>{self.body_html()}"
        )

    def text(self) -> str:
        """A plain one-line description (for printing in a notebook or a test)."""
        extra = " (not executed)" if self.executed is False else ""
        return f"[{self.title}] {self.name} {self.tool_call_id}: {self.status}{extra}"


def _money(cents: int, currency: str = "") -> str:
    return f"{cents // 100}.{cents % 100:02d}" + (f" {currency}" if currency else "")


class OrderComponent(ToolComponent):
    """``get_order`` → the order at a glance: customer, status, total."""

    title = "Order"

    def body_html(self) -> str:
        order = self.result
        if not isinstance(order, dict):
            args = self.args if isinstance(self.args, dict) else {}
            return f"looking up <code>{html.escape(str(args.get('orderId', '…')))}</code>…"
        if "orderId" not in order:  # an error result: show it as text
            return f"<pre>{html.escape(json.dumps(order, ensure_ascii=False)[:300])}</pre>"
        return (
            f"<code>{html.escape(str(order['orderId']))}</code> · "
            f"{html.escape(str(order.get('customer', '')))} · status "
            f"<b>{html.escape(str(order.get('status', '')))}</b> · total "
            f"{_money(int(order.get('totalCents', 0)))} "
            f"{html.escape(str(order.get('currency', '')))}"
        )

    def text(self) -> str:
        order = self.result if isinstance(self.result, dict) else {}
        return super().text() + (f" order status={order['status']}" if "status" in order else "")


class RefundComponent(ToolComponent):
    """``refund_order`` → the proposed refund, then whether it ran."""

    title = "Refund"

    def body_html(self) -> str:
        args = self.args if isinstance(self.args, dict) else {}
        amount = args.get("amountCents")
        proposed = (
            f"refund <b>{_money(amount)}</b> on <code>{html.escape(str(args.get('orderId')))}</code>"
            if isinstance(amount, int)
            else "arguments streaming…"
        )
        result = self.result
        if isinstance(result, dict) and result.get("refundId"):
            return (
                proposed + f" → refunded {_money(int(result.get('amountCents', 0)))} as "
                f"<code>{html.escape(str(result['refundId']))}</code>"
            )
        if self.executed is False:
            return proposed + f" → not executed ({html.escape(str(result.get('reason')))})"
        if self.status == "awaiting approval":
            return proposed + " → waiting for a person to approve"
        return proposed


class FallbackComponent(ToolComponent):
    """Any tool the front end has no component for: its name and raw arguments, escaped —
    never an attempt to render what the agent sent as markup."""

    title = "Unknown tool"


class ComponentRegistry:
    """The front end's map from tool name to component, driven by AG-UI events.

    ``feed(event)`` takes events (wire dicts as ``RunResult.events`` or an ``on_event``
    callback give them, or models). Each event goes through the core
    :class:`~agentproto.agui.state.StateReducer` and the package's
    :class:`~agentproto.course.agui_runs.ToolCallCards`, which say what state every call is
    in; the registry only picks the component: the one registered for the call's
    ``toolCallName``, or :class:`FallbackComponent`. The choice is the front end's — the agent
    names a tool, it never names a widget.
    """

    def __init__(
        self,
        components: Mapping[str, type[ToolComponent]] | None = None,
        *,
        fallback: type[ToolComponent] = FallbackComponent,
    ) -> None:
        self.components: dict[str, type[ToolComponent]] = dict(
            components
            if components is not None
            else {"get_order": OrderComponent, "refund_order": RefundComponent}
        )
        self.fallback = fallback
        self.cards: dict[str, ToolComponent] = {}
        self.container = widgets.VBox()
        self.reset()

    def register(self, tool_name: str, component: type[ToolComponent]) -> None:
        self.components[tool_name] = component

    def reset(self) -> None:
        """Forget every call (a new conversation)."""
        self.reducer = StateReducer()
        self.tracker = ToolCallCards(self.reducer)
        self.cards = {}
        self.container.children = ()

    def feed(self, event: Any) -> ToolComponent | None:
        """Advance the components with one event; return the one it touched, if any."""
        model = parse_event(dict(event)).event if isinstance(event, Mapping) else event
        if model is None:  # an unknown event type: dropped, as the processing model says
            return None
        self.reducer.apply(model)
        self.tracker.feed(model)
        touched = getattr(model, "tool_call_id", None)
        added = False
        for tool_call_id, card in self.tracker.cards.items():
            component = self.cards.get(tool_call_id)
            if component is None:
                cls = self.components.get(card.name, self.fallback)
                component = self.cards[tool_call_id] = cls(tool_call_id, card.name)
                added = True
            if component.card != card:
                component.update(card)
        if added:
            self.container.children = tuple(c.box for c in self.cards.values())
        return self.cards.get(touched) if touched else None

    def feed_all(self, events: Iterable[Any]) -> ComponentRegistry:
        for event in events:
            self.feed(event)
        return self

    def describe(self) -> str:
        """One line per component, in the order the calls appeared."""
        return "\n".join(c.text() for c in self.cards.values()) or "(no tool calls)"

    def widget(self) -> widgets.VBox:
        return self.container

    def _ipython_display_(self) -> None:  # pragma: no cover - needs a front end
        from IPython.display import display

        display(self.widget())


class IntentRenderer:
    """Renders allow-listed UI intents from ``CUSTOM`` events; refuses the rest, visibly.

    ``feed(event)``: a ``CUSTOM`` event named :data:`UI_INTENT_EVENT` is validated and either
    rendered (``accepted``) or recorded with its error (``refused``); other ``CUSTOM`` names are
    ignored without a warning (spec 1.1 ``events/passthrough``: a consumer that does not
    recognise a name ignores the event); other event types are not this renderer's business.
    """

    def __init__(self, components: Mapping[str, Mapping[str, Any]] = UI_COMPONENTS) -> None:
        self.components = components
        self.accepted: list[UIIntent] = []
        self.refused: list[tuple[Any, UIIntentError]] = []
        self.ignored: list[str] = []
        self.container = widgets.VBox()

    def feed(self, event: Mapping[str, Any]) -> UIIntent | UIIntentError | None:
        if event.get("type") != "CUSTOM":
            return None
        if event.get("name") != UI_INTENT_EVENT:
            self.ignored.append(str(event.get("name")))
            return None
        try:
            intent = validate_ui_intent(event, components=self.components)
        except UIIntentError as exc:
            self.refused.append((event.get("value"), exc))
            self._add(
                widgets.HTML(
                    f"<span style='color:{PALETTE['bad']}'>refused "
                    f"({html.escape(exc.rule)}): {html.escape(str(exc))}</span>"
                )
            )
            return exc
        self.accepted.append(intent)
        self._add(self._render(intent))
        return intent

    def _add(self, view: widgets.Widget) -> None:
        self.container.children = (*self.container.children, view)

    @staticmethod
    def _render(intent: UIIntent) -> widgets.Widget:
        p = intent.props
        if intent.component == "progress":
            return widgets.FloatProgress(
                value=float(p["percent"]), min=0, max=100, description=p["label"][:20]
            )
        if intent.component == "notice":
            color = {"info": PALETTE["primary"], "warning": PALETTE["secondary"], "error": PALETTE["bad"]}[
                p["level"]
            ]
            return widgets.HTML(
                f"<div style='border-left:4px solid {color};padding-left:6px'>{html.escape(p['text'])}</div>"
            )
        if intent.component == "link_button":
            return widgets.HTML(
                f"<a href='{html.escape(p['href'], quote=True)}' target='_blank' "
                f"rel='noopener'>{html.escape(p['label'])}</a>"
            )
        return widgets.HTML(
            f"order <code>{html.escape(p['orderId'])}</code>"
            + (f" (highlight: {html.escape(p['highlight'])})" if "highlight" in p else "")
        )

    def widget(self) -> widgets.VBox:
        return self.container

    def _ipython_display_(self) -> None:  # pragma: no cover - needs a front end
        from IPython.display import display

        display(self.widget())

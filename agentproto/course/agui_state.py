"""Notebook 05 (shared state): a producer's state over a lossy channel, and the drift it causes.

A simulation that returns data, then a figure and a lab on top of it:

* :func:`order_state_stream` is a producer whose state evolves by JSON Patch, with a version
  counter in each event's ``metadata``; :func:`truth_states` is its state after every event.
* :func:`lossy_channel` drops and swaps deltas with a seeded probability, returning one
  :class:`ChannelDelivery` per slot.
* :func:`simulate_drift` applies what arrives with the package's
  :class:`~agentproto.agui.state.StateReducer` — with or without the version guard that
  detects gaps and asks for a snapshot — and measures the :func:`drift` from the producer's
  truth after every slot (the number of JSON Patch operations that would repair the
  consumer's copy), in a :class:`DriftRun`.
* :func:`plot_drift` draws the static figure; :class:`DriftLab` puts sliders on it.

The protocol parts (patch application, the version guard, ``ResyncNeeded``) are the package's;
the channel and the producer are teaching scaffolding. Everything is deterministic:
randomness comes from ``random.Random(seed)``.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import jsonpatch

from agentproto.agui.errors import ResyncNeeded
from agentproto.agui.events import BaseEvent, StateDeltaEvent, StateSnapshotEvent, event_to_json
from agentproto.agui.state import DEFAULT_VERSION_KEY, StateReducer, apply_patch, copy_json
from agentproto.course.plots import PALETTE
from agentproto.course.svg import Marker, Series, SvgLab, line_chart
from agentproto.course.widgets import lab_slider

__all__ = [
    "VERSION_KEY",
    "order_state_stream",
    "truth_states",
    "lossy_channel",
    "ChannelDelivery",
    "DriftRun",
    "simulate_drift",
    "drift",
    "plot_drift",
    "DriftLab",
]

#: The metadata key carrying the producer's state version (the reducer's guard reads it).
VERSION_KEY = DEFAULT_VERSION_KEY

_PRODUCTS = [
    ("mug", 900),
    ("tea", 450),
    ("scarf", 2400),
    ("notebook", 650),
    ("pen", 250),
    ("lamp", 3900),
    ("socks", 800),
    ("map", 1200),
]
_STATUSES = ["open", "packing", "on hold", "packing", "ready"]


def order_state_stream(steps: int = 60, *, seed: int = 7) -> list[BaseEvent]:
    """A producer's state events: one ``STATE_SNAPSHOT`` then ``steps`` ``STATE_DELTA``\\ s.

    The state is an order being assembled — items appended, quantities changed, a running
    total and status replaced, a log appended — so the patches mix the two kinds of operation
    that matter for drift: *appends* (a lost one is never repaired by later deltas) and
    *replaces* (the next one overwrites any damage). Each event's ``metadata`` carries the
    version counter :data:`VERSION_KEY` (snapshot 0, then 1, 2, …). The producer computes its
    own state with the package's :func:`apply_patch`, so every delta applies to its truth.
    """
    rng = random.Random(seed)
    state: dict[str, Any] = {"orderId": "A1024", "status": "open", "items": [], "total": 0, "log": []}
    events: list[BaseEvent] = [StateSnapshotEvent(snapshot=copy_json(state), metadata={VERSION_KEY: 0})]
    for version in range(1, steps + 1):
        roll = rng.random()
        items = state["items"]
        if roll < 0.4 or not items:
            name, price = rng.choice(_PRODUCTS)
            ops = [{"op": "add", "path": "/items/-", "value": {"sku": name, "qty": 1, "price": price}}]
            note = f"added {name}"
        elif roll < 0.7:
            i = rng.randrange(len(items))
            ops = [{"op": "replace", "path": f"/items/{i}/qty", "value": items[i]["qty"] + 1}]
            note = f"{items[i]['sku']} ×{items[i]['qty'] + 1}"
        elif roll < 0.85:
            status = rng.choice(_STATUSES)
            ops = [{"op": "replace", "path": "/status", "value": status}]
            note = f"status {status}"
        else:
            ops = [{"op": "add", "path": "/log/-", "value": f"note {version}"}]
            note = "log"
        after = apply_patch(state, ops)
        total = sum(i["qty"] * i["price"] for i in after["items"])
        if total != state["total"]:
            ops.append({"op": "replace", "path": "/total", "value": total})
        state = apply_patch(state, ops)
        events.append(StateDeltaEvent(delta=ops, metadata={VERSION_KEY: version, "note": note}))
    return events


def truth_states(events: Sequence[BaseEvent]) -> list[Any]:
    """The producer's state after each event (index 0 = the snapshot)."""
    reducer = StateReducer()
    out = []
    for event in events:
        reducer.apply(event)
        out.append(copy_json(reducer.state))
    return out


@dataclass(frozen=True)
class ChannelDelivery:
    """What the channel did in one slot: the event it delivered (or None) and why."""

    slot: int
    event: BaseEvent | None
    fate: str  # "delivered" | "dropped" | "late" (swapped with the next) | "early"


def lossy_channel(
    events: Sequence[BaseEvent], *, drop: float = 0.0, reorder: float = 0.0, seed: int = 0
) -> list[ChannelDelivery]:
    """Deliver ``events[1:]`` (the deltas; the opening snapshot always arrives) slot by slot.

    Each delta is lost with probability ``drop``; a surviving delta swaps places with the next
    surviving one with probability ``reorder``. Slot ``k`` is when the producer sent delta
    ``k``. A transport like SSE over TCP never does this to one connection — but a consumer
    behind a broker, a retrying proxy or a reconnect that replays from a cache can.
    """
    if not (0.0 <= drop <= 1.0 and 0.0 <= reorder <= 1.0):
        raise ValueError("drop and reorder are probabilities between 0 and 1")
    rng = random.Random(seed)
    slots: list[ChannelDelivery] = []
    for k, event in enumerate(events[1:], start=1):
        lost = rng.random() < drop
        slots.append(ChannelDelivery(k, None if lost else event, "dropped" if lost else "delivered"))
    k = 0
    while k < len(slots) - 1:
        a, b = slots[k], slots[k + 1]
        if a.event is not None and b.event is not None and rng.random() < reorder:
            slots[k] = ChannelDelivery(a.slot, b.event, "early")
            slots[k + 1] = ChannelDelivery(b.slot, a.event, "late")
            k += 2
        else:
            k += 1
    return slots


def drift(consumer: Any, truth: Any) -> int:
    """How far the consumer's state is from the truth: the JSON Patch operations that would
    turn one into the other (``jsonpatch.make_patch``). 0 means in sync."""
    return len(jsonpatch.make_patch(consumer, truth).patch)


@dataclass
class DriftRun:
    """One consumer's life on a lossy channel, slot by slot."""

    guard: bool
    drift: list[int]  # per slot, after everything that slot delivered
    items: list[int]  # how many items the consumer's order lists, per slot
    truth_items: list[int]  # … and the producer's
    fates: list[str]
    warnings: list[str] = field(default_factory=list)  # patches that did not apply
    resyncs: list[int] = field(default_factory=list)  # slots where the guard asked
    snapshots: int = 0  # snapshots the producer had to send (after the first)
    snapshot_bytes: int = 0
    final_state: Any = None

    @property
    def final_drift(self) -> int:
        return self.drift[-1] if self.drift else 0

    @property
    def slots_out_of_sync(self) -> int:
        return sum(1 for d in self.drift if d)


def simulate_drift(
    events: Sequence[BaseEvent],
    deliveries: Sequence[ChannelDelivery],
    *,
    guard: bool = False,
    snapshot_every: int = 0,
) -> DriftRun:
    """Apply what the channel delivered with the package's :class:`StateReducer`.

    ``guard=False``: the reducer applies every delta it receives; one that does not apply
    warns and keeps the prior state (spec ``basic/patterns/snapshots``), one that applies to
    the wrong baseline silently corrupts it. ``guard=True``: the reducer checks the version
    counter and raises :class:`~agentproto.agui.errors.ResyncNeeded` on a gap or a repeat,
    refusing deltas until a snapshot arrives; the producer answers in the next slot with a
    ``STATE_SNAPSHOT`` of its state at the time of the request. ``snapshot_every=n`` makes the
    producer also send a snapshot after every n-th delta, whatever happens.
    """
    if snapshot_every < 0:
        raise ValueError("snapshot_every must be 0 (never) or a positive number of deltas")
    truth = truth_states(events)
    reducer = StateReducer(version_key=VERSION_KEY if guard else None)
    reducer.apply(events[0])
    run = DriftRun(guard=guard, drift=[], items=[], truth_items=[], fates=[])
    pending_request: int | None = None

    def snapshot(version: int) -> None:
        event = StateSnapshotEvent(snapshot=truth[version], metadata={VERSION_KEY: version})
        reducer.apply(event)
        run.snapshots += 1
        run.snapshot_bytes += len(event_to_json(event))

    for delivery in deliveries:
        k = delivery.slot
        if pending_request is not None:  # the producer answers last slot's resync request
            snapshot(pending_request)
            pending_request = None
        if delivery.event is not None:
            try:
                for w in reducer.apply(delivery.event):
                    run.warnings.append(f"slot {k}: {w.message}")
            except ResyncNeeded:
                run.resyncs.append(k)
                pending_request = k  # the producer's state as of now
        if snapshot_every and k % snapshot_every == 0:
            snapshot(k)
            pending_request = None
        run.drift.append(drift(reducer.state, truth[k]))
        held = reducer.state.get("items") if isinstance(reducer.state, dict) else None
        run.items.append(len(held) if isinstance(held, list) else 0)
        run.truth_items.append(len(truth[k]["items"]))
        run.fates.append(delivery.fate)
    run.final_state = copy_json(reducer.state)
    return run


def _drift_summary(plain: DriftRun, guarded: DriftRun, deliveries: Sequence[ChannelDelivery]) -> str:
    lost = sum(1 for d in deliveries if d.fate == "dropped")
    swapped = sum(1 for d in deliveries if d.fate == "late")
    lines = [
        f"channel: {len(deliveries)} deltas, {lost} dropped, {swapped} pairs swapped",
        f"{'consumer':<28} {'final drift':>11} {'slots off':>9} {'warnings':>8} "
        f"{'resyncs':>7} {'snapshots':>9}",
    ]
    for name, run in (("no guard", plain), ("version guard + resync", guarded)):
        lines.append(
            f"{name:<28} {run.final_drift:>11} {run.slots_out_of_sync:>9} "
            f"{len(run.warnings):>8} {len(run.resyncs):>7} {run.snapshots:>9}"
        )
    return "\n".join(lines)


def plot_drift(
    plain: DriftRun, guarded: DriftRun, deliveries: Sequence[ChannelDelivery], *, title: str = ""
) -> Any:
    """Two panels: how many items each side's order lists, and drift from the truth per slot."""
    import matplotlib.pyplot as plt

    slots = [d.slot for d in deliveries]
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(9, 5.2), sharex=True)
    top.step(slots, plain.truth_items, where="post", color="black", lw=2.4, label="truth (producer)")
    top.step(
        slots, plain.items, where="post", color=PALETTE["bad"], lw=1.6, ls="--", label="consumer, no guard"
    )
    top.step(
        slots,
        guarded.items,
        where="post",
        color=PALETTE["good"],
        lw=1.4,
        label="consumer, version guard + resync",
    )
    top.set_ylabel("items in the order")
    top.legend(loc="upper left")
    bottom.step(slots, plain.drift, where="post", color=PALETTE["bad"], label="no guard")
    bottom.step(slots, guarded.drift, where="post", color=PALETTE["good"], label="version guard + resync")
    for d in deliveries:
        if d.fate == "dropped":
            bottom.axvline(d.slot, color=PALETTE["muted"], lw=0.8, ls=":")
        elif d.fate == "late":
            bottom.axvline(d.slot, color=PALETTE["secondary"], lw=0.8, ls=":")
    bottom.set_ylabel("drift (patch ops to truth)")
    bottom.set_xlabel("slot (the producer's n-th delta); dotted: dropped (grey), swapped (orange)")
    bottom.legend(loc="upper left")
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    return fig


class DriftLab(SvgLab):
    """Sliders for loss, reordering, seed and periodic snapshots; drift of two consumers.

    Both consumers see the *same* channel (same seed): one applies whatever arrives, the other
    runs the reducer's version guard and resynchronises with a snapshot. ``plain``,
    ``guarded`` and ``deliveries`` hold the last run for code and tests.
    """

    title = "Shared state over a lossy channel"

    def __init__(
        self,
        *,
        drop: float = 0.1,
        reorder: float = 0.05,
        seed: int = 3,
        snapshot_every: int = 0,
        steps: int = 60,
    ) -> None:
        self.events = order_state_stream(steps)
        self.drop = lab_slider("drop probability", drop, 0.0, 0.5, 0.05)
        self.reorder = lab_slider("swap probability", reorder, 0.0, 0.5, 0.05)
        self.seed = lab_slider("seed", seed, 0, 30, integer=True)
        self.snapshot_every = lab_slider("snapshot every n (0 = never)", snapshot_every, 0, 30, integer=True)
        self.plain: DriftRun | None = None
        self.guarded: DriftRun | None = None
        self.deliveries: list[ChannelDelivery] = []
        super().__init__([self.drop, self.reorder, self.seed, self.snapshot_every])

    def render(self) -> tuple[str, str]:
        self.deliveries = lossy_channel(
            self.events, drop=self.drop.value, reorder=self.reorder.value, seed=self.seed.value
        )
        every = self.snapshot_every.value
        self.plain = simulate_drift(self.events, self.deliveries, snapshot_every=every)
        self.guarded = simulate_drift(self.events, self.deliveries, guard=True, snapshot_every=every)
        xs = [d.slot for d in self.deliveries]
        markers = [
            Marker(d.slot, color=PALETTE["muted"], label="dropped" if i == 0 else "")
            for i, d in enumerate(d for d in self.deliveries if d.fate == "dropped")
        ]
        svg = line_chart(
            [
                Series("no guard", xs, self.plain.drift, color=PALETTE["bad"]),
                Series("version guard + resync", xs, self.guarded.drift, color=PALETTE["good"], dash="5,3"),
            ],
            title="drift from the producer's state (patch ops to repair)",
            xlabel="slot (the producer's n-th delta)",
            ylabel="drift",
            markers=markers,
            legend="upper left",
            ylim=(0, max([4, *self.plain.drift, *self.guarded.drift]) + 1),
        )
        return svg, _drift_summary(self.plain, self.guarded, self.deliveries)

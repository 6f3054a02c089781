"""Wait-for graphs (seed 004 §11): cycles, deadlocked groups, the check before dispatch, plans as data."""

from __future__ import annotations

import networkx as nx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentproto.orchestration.waitgraph import (
    CyclicPlanError,
    DeadlockError,
    UnknownTaskError,
    WaitPlan,
    WaitPlanError,
    break_cycles,
    check_plan,
    deadlocked_groups,
    find_cycle,
    find_cycle_through,
    format_cycle,
    load_plan,
    simple_cycles,
    strongly_connected_components,
    wait_for_graph,
)

TRAVEL = load_plan("deadlock_travel")
TRAVEL_HIDDEN = load_plan("deadlock_travel_hidden")


def plan(deps, work=None, hidden=None, discover_at=None):
    tasks = tuple(
        sorted(
            set(deps)
            | {d for ds in deps.values() for d in ds}
            | set(hidden or {})
            | {d for ds in (hidden or {}).values() for d in ds}
        )
    )
    return WaitPlan(
        tasks,
        {t: frozenset(deps.get(t, ())) for t in tasks},
        {t: frozenset((hidden or {}).get(t, ())) for t in tasks},
        work or {},
        discover_at or {},
    )


def rotate(cycle):
    i = cycle.index(min(cycle))
    return tuple(cycle[i:]) + tuple(cycle[:i])


# -- graph algorithms, hand-checked ---------------------------------------------------------------
def test_the_seeds_two_agents_waiting_on_each_other_form_a_cycle():
    assert find_cycle(TRAVEL.graph()) == ("flights", "hotel")
    assert format_cycle(("flights", "hotel")) == "flights → hotel → flights"


def test_a_cyclic_plan_is_refused_before_dispatch_and_the_error_shows_the_cycle():
    with pytest.raises(CyclicPlanError) as info:
        check_plan(TRAVEL.graph())
    assert info.value.cycle == ("flights", "hotel")
    assert "flights → hotel → flights" in str(info.value)
    assert info.value.rule == "deadlock.cyclic-plan"


def test_an_acyclic_plan_is_dispatched_in_dependency_order():
    order = check_plan({"itinerary": ["flights", "hotel"], "flights": [], "hotel": ["flights"]})
    assert order == ("flights", "hotel", "itinerary")


def test_a_task_waiting_for_itself_is_a_cycle():
    assert find_cycle({"a": ["a"]}) == ("a",)
    assert deadlocked_groups({"a": ["a"], "b": []}) == [("a",)]


def test_every_deadlocked_group_gets_its_own_witness():
    with pytest.raises(CyclicPlanError, match=r"\(and 1 more deadlocked group\(s\)\)") as info:
        check_plan({"a": ["b"], "b": ["a"], "c": ["d"], "d": ["c"], "e": ["a"]})
    assert [set(c) for c in info.value.cycles] == [{"a", "b"}, {"c", "d"}]


def test_a_deadlocked_group_need_not_be_a_knot():
    # notebook 18, Exercise 1: two cyclic components, and an arrow leaves each (D → E, F → B), so
    # neither is a knot (no path leaves a knot); under AND-dependencies both deadlock anyway
    g = {"A": ("D",), "B": (), "C": ("A",), "D": ("C", "E"), "E": ("F",), "F": ("B", "E")}
    groups = deadlocked_groups(g)
    assert sorted(groups) == [("A", "C", "D"), ("E", "F")]
    assert all(any(w not in grp for t in grp for w in g[t]) for grp in groups)


def test_a_dependency_on_a_task_not_in_the_plan_is_a_typed_error():
    with pytest.raises(UnknownTaskError, match="'hotle'"):
        wait_for_graph({"flights": ["hotle"]}, tasks=["flights", "hotel"])
    with pytest.raises(UnknownTaskError):
        WaitPlan(("flights",), {"flights": frozenset({"hotel"})})


def test_the_cycle_through_a_new_waiter_starts_at_it():
    g = {"a": ["b"], "b": ["c"], "c": ["a"], "d": ["a"]}
    assert find_cycle_through(g, "b") == ("b", "c", "a")
    assert find_cycle_through(g, "d") is None


def test_one_default_breaks_the_seeds_deadlock_where_the_seed_asks_for_two():
    assert break_cycles(TRAVEL.graph()) == [("flights", "hotel")]


def test_the_cut_prefers_an_edge_shared_by_several_cycles():
    g = {"a": ["b"], "b": ["a", "c"], "c": ["a"]}  # cycles a-b and a-b-c share a→b
    assert break_cycles(g) == [("a", "b")]


# -- graph algorithms against networkx (the oracle) --------------------------------------------------
NODES = [f"t{i}" for i in range(7)]


@st.composite
def digraphs(draw):
    n = draw(st.integers(min_value=1, max_value=len(NODES)))
    nodes = NODES[:n]
    edges = draw(st.sets(st.tuples(st.sampled_from(nodes), st.sampled_from(nodes)), max_size=n * 3))
    g = {v: [] for v in nodes}
    for a, b in sorted(edges):
        g[a].append(b)
    return g


def to_nx(g):
    G = nx.DiGraph()
    G.add_nodes_from(g)
    G.add_edges_from((a, b) for a in g for b in g[a])
    return G


@settings(max_examples=150, deadline=None)
@given(digraphs())
def test_detection_finds_a_cycle_exactly_when_networkx_does(g):
    G = to_nx(g)
    witness = find_cycle(g)
    assert (witness is None) == nx.is_directed_acyclic_graph(G)
    if witness is not None:
        assert all(G.has_edge(witness[k], witness[(k + 1) % len(witness)]) for k in range(len(witness)))
        assert len(set(witness)) == len(witness)  # elementary


@settings(max_examples=100, deadline=None)
@given(digraphs())
def test_every_cycle_networkx_finds_is_found(g):
    ours = set(simple_cycles(g))
    theirs = {rotate(c) for c in nx.simple_cycles(to_nx(g))}
    assert ours == theirs


@settings(max_examples=100, deadline=None)
@given(digraphs())
def test_deadlocked_groups_are_the_cyclic_strongly_connected_components(g):
    G = to_nx(g)
    theirs = sorted(tuple(sorted(c)) for c in nx.strongly_connected_components(G))
    assert strongly_connected_components(g) == theirs
    groups = [set(c) for c in deadlocked_groups(g)]
    for cyc in nx.simple_cycles(G):  # every cycle lies inside one reported group
        assert any(set(cyc) <= grp for grp in groups)
    assert all(nx.find_cycle(G.subgraph(grp)) for grp in groups)


@settings(max_examples=100, deadline=None)
@given(digraphs())
def test_refusal_or_dispatch_order_agrees_with_networkx(g):
    G = to_nx(g)
    try:
        order = check_plan(g)
    except CyclicPlanError as exc:
        assert not nx.is_directed_acyclic_graph(G)
        for cyc in exc.cycles:
            assert rotate(cyc) in {rotate(c) for c in nx.simple_cycles(G)}
    else:
        assert nx.is_directed_acyclic_graph(G)
        pos = {t: i for i, t in enumerate(order)}
        assert all(pos[b] < pos[a] for a, b in G.edges)  # what you wait for is dispatched first
        assert sorted(order) == sorted(g)


@settings(max_examples=150, deadline=None)
@given(digraphs())
def test_replacing_the_cut_dependencies_by_defaults_leaves_no_cycle(g):
    G = to_nx(g)
    cuts = break_cycles(g)
    assert all(G.has_edge(a, b) for a, b in cuts)
    G.remove_edges_from(cuts)
    assert nx.is_directed_acyclic_graph(G)
    assert len(cuts) <= len(list(nx.simple_cycles(to_nx(g))))


# -- plans as data ---------------------------------------------------------------------------------
def test_a_plan_loads_from_the_scenario_format():
    assert TRAVEL.tasks == ("flights", "hotel", "itinerary", "weather")
    assert TRAVEL.need("flights", "hotel") == "destination"
    assert TRAVEL_HIDDEN.deps("hotel", "hidden") == {"flights"}


def test_a_plan_with_a_duplicate_task_or_negative_work_is_refused():
    with pytest.raises(WaitPlanError, match="duplicate"):
        WaitPlan(("a", "a"), {})
    with pytest.raises(WaitPlanError, match="work of 'a'"):
        WaitPlan(("a",), {}, work={"a": -1.0})
    assert issubclass(WaitPlanError, DeadlockError) and issubclass(WaitPlanError, ValueError)


def test_defaults_remove_exactly_the_replaced_dependencies():
    repaired = TRAVEL.with_defaults([("flights", "hotel")])
    assert "hotel" not in repaired.deps("flights") and repaired.deps("hotel") == TRAVEL.deps("hotel")
    assert find_cycle(repaired.graph()) is None and find_cycle(TRAVEL.graph()) is not None


def test_help_on_from_dict_shows_a_format_that_parses():
    """The example in ``help(WaitPlan.from_dict)`` is a plan ``from_dict`` accepts."""
    import json
    import pydoc

    from agentproto.orchestration.waitgraph import WaitPlan

    doc = WaitPlan.from_dict.__doc__ or ""
    example = doc.split("::\n\n", 1)[1].split("\n\n", 1)[0]
    plan = WaitPlan.from_dict(json.loads(example))
    assert plan.declared["flights"] == {"hotel"} and plan.hidden["hotel"] == {"flights"}
    text = pydoc.render_doc(WaitPlan.from_dict, renderer=pydoc.plaintext)
    for key in ("needs", "discovers", "discover_at", "work", "UnknownTaskError"):
        assert key in text

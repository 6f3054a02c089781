"""When humans step in (seed 004 §12): four triggers as rules, the cost of asking, the interrupt."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentproto.a2a.states import TaskState
from agentproto.clock import IdFactory
from agentproto.orchestration.deadlock import simulate
from agentproto.orchestration.hitl import (
    RULES,
    Action,
    CostModel,
    EmptyInterruptError,
    HitlPolicy,
    HitlVerdict,
    PolicyError,
    actions_from_deadlock,
    ask_human_event,
    calibrated_accuracy,
    cost_curve,
    decide,
    decision_table,
    interrupt_for,
    load_actions,
    review_queue,
    sample_confidences,
)
from agentproto.orchestration.waitgraph import load_plan

SCENARIOS = Path(__file__).resolve().parents[2] / "agentproto" / "data" / "scenarios"
ACTIONS = {a.name: a for a in load_actions(SCENARIOS / "hitl_actions.json")}


# -- the four triggers, with the seed's own examples --------------------------------------------------
@pytest.mark.parametrize(
    "name, rule, state",
    [
        ("search flights", None, TaskState.WORKING),  # 99 %: the agent decides
        ("translate a document", None, TaskState.WORKING),  # 95 %
        ("interpret a legal clause", "low_confidence", TaskState.INPUT_REQUIRED),  # 60 %
        ("suggest a medical diagnosis", "low_confidence", TaskState.INPUT_REQUIRED),  # 72 %
        ("read a restricted document", "permission_boundary", TaskState.AUTH_REQUIRED),
        ("search another way (detour)", "off_goal_detour", TaskState.INPUT_REQUIRED),
        ("delete customer data", "irreversible_high_risk", TaskState.INPUT_REQUIRED),
        ("transfer ¥50,000", "irreversible_high_risk", TaskState.INPUT_REQUIRED),
        ("e-mail 100 customers", "irreversible_high_risk", TaskState.INPUT_REQUIRED),
        ("deploy to production", "irreversible_high_risk", TaskState.INPUT_REQUIRED),
        ("pay ¥30 for a coffee", None, TaskState.WORKING),  # irreversible, but the stakes are small
        ("flights: wait for hotel", "deadlock", TaskState.INPUT_REQUIRED),
    ],
)
def test_each_seed_example_fires_the_rule_the_seed_names(name, rule, state):
    d = decide(ACTIONS[name])
    assert (d.rule, d.state) == (rule, state)
    assert d.verdict is (HitlVerdict.PROCEED if rule is None else HitlVerdict.ASK)


def test_an_irreversible_high_stakes_action_is_asked_however_confident_the_agent_is():
    sure = Action("transfer", confidence=1.0, irreversible=True, stakes=50_000)
    assert decide(sure).rule == "irreversible_high_risk"


def test_the_decision_names_every_other_rule_that_would_have_fired():
    a = Action("wire money abroad", confidence=0.5, irreversible=True, stakes=9_000, needs="payments:intl")
    d = decide(a)
    assert d.rule == "permission_boundary"
    assert d.also == ("irreversible_high_risk", "low_confidence")


def test_granting_the_permission_moves_the_decision_to_the_next_rule():
    a = ACTIONS["read a restricted document"]
    assert decide(a, HitlPolicy(granted=frozenset({"docs:confidential"}))).verdict is HitlVerdict.PROCEED


def test_a_domain_can_have_its_own_threshold():
    policy = HitlPolicy(confidence_threshold=0.8, thresholds={"translation": 0.97})
    assert decide(ACTIONS["translate a document"], policy).rule == "low_confidence"
    assert decide(ACTIONS["search flights"], policy).verdict is HitlVerdict.PROCEED


def test_rules_are_checked_in_the_documented_order():
    assert [r.name for r in RULES] == [
        "permission_boundary",
        "off_goal_detour",
        "deadlock",
        "irreversible_high_risk",
        "low_confidence",
    ]


@pytest.mark.parametrize(
    "bad",
    [dict(confidence_threshold=1.2), dict(thresholds={"x": -0.1}), dict(stakes_limit=-1), dict(rules=())],
)
def test_a_policy_out_of_range_is_a_typed_error(bad):
    with pytest.raises(PolicyError):
        HitlPolicy(**bad)


def test_an_action_with_an_impossible_confidence_is_a_typed_error():
    with pytest.raises(PolicyError, match="confidence"):
        Action("x", confidence=1.5)
    with pytest.raises(PolicyError, match="unknown action field"):
        Action.from_dict({"name": "x", "confidnce": 0.5})


def test_the_decision_table_has_one_line_per_action():
    table = decision_table(ACTIONS.values())
    assert len(table.splitlines()) == len(ACTIONS) + 1
    assert "irreversible_high_risk" in table


def test_a_deadlock_escalation_becomes_an_action_that_trips_the_deadlock_rule():
    run = simulate(load_plan(SCENARIOS / "deadlock_travel.json"), "detection+escalation")
    (action,) = actions_from_deadlock(run)
    d = decide(action)
    assert d.rule == "deadlock" and "a default for destination" in d.reason


# -- the AG-UI interrupt ------------------------------------------------------------------------------
def asks():
    policy = HitlPolicy()
    return [(a, policy.decide(a)) for a in ACTIONS.values()]


def test_asking_a_human_is_a_run_finished_with_an_interrupt_outcome():
    ev = ask_human_event(asks(), thread_id="thread-1", run_id="run-1", ids=IdFactory("int"))
    assert ev["type"] == "RUN_FINISHED" and ev["threadId"] == "thread-1" and ev["runId"] == "run-1"
    assert ev["outcome"]["type"] == "interrupt"
    items = ev["outcome"]["interrupts"]
    assert len(items) == sum(1 for _, d in asks() if d.asks)  # only the actions that ask
    assert len({i["id"] for i in items}) == len(items)  # ids unique within the run
    by_rule = {i["metadata"]["rule"]: i for i in items}
    assert by_rule["deadlock"]["responseSchema"]["required"] == ["default"]
    transfer = next(i for i in items if i["message"].startswith("transfer"))
    assert transfer["toolCallId"] == "call-transfer-1"


def _reasons_by_message() -> dict[str, str]:
    ev = ask_human_event(asks(), thread_id="t", run_id="r", ids=IdFactory("int"))
    return {i["message"].split(":")[0]: i["reason"] for i in ev["outcome"]["interrupts"]}


def test_an_interrupt_bound_to_a_tool_call_has_the_core_reason_tool_call():
    # AG-UI interrupts page, "Reason taxonomy": tool_call — "toolCallId must be set"
    ev = ask_human_event(asks(), thread_id="t", run_id="r", ids=IdFactory("int"))
    bound = [i for i in ev["outcome"]["interrupts"] if "toolCallId" in i]
    assert bound and all(i["reason"] == "tool_call" for i in bound)
    assert all(i["toolCallId"] for i in ev["outcome"]["interrupts"] if i["reason"] == "tool_call")
    # the rule that fired is still recorded for the audit
    assert bound[0]["metadata"]["rule"] == "irreversible_high_risk"
    assert "editedArgs" in bound[0]["responseSchema"]["properties"]  # approve-with-edits signal


def test_a_free_standing_irreversible_action_asks_for_confirmation_without_a_tool_call():
    reasons = _reasons_by_message()
    assert reasons["delete customer data"] == "confirmation"
    ev = ask_human_event(asks(), thread_id="t", run_id="r", ids=IdFactory("int"))
    confirmations = [i for i in ev["outcome"]["interrupts"] if i["reason"] == "confirmation"]
    assert confirmations and all("toolCallId" not in i for i in confirmations)
    assert all("editedArgs" not in i["responseSchema"]["properties"] for i in confirmations)


def test_a_missing_grant_waits_for_authorization_and_a_detour_for_input():
    # A2A v1.0.1 §7.6: AUTH_REQUIRED is for authorization the agent needs; a detour that may leave
    # the user's goal is a question about intent, so it waits for input (a yes/no, not a grant)
    grant, detour = ACTIONS["read a restricted document"], ACTIONS["search another way (detour)"]
    assert decide(grant).state is TaskState.AUTH_REQUIRED
    assert decide(detour).state is TaskState.INPUT_REQUIRED
    reasons = _reasons_by_message()
    assert reasons["read a restricted document"] == "agentproto:permission"
    assert reasons["search another way (detour)"] == "confirmation"
    item = interrupt_for(detour, decide(detour), "int-1")
    assert item["metadata"] == {"rule": "off_goal_detour", "a2aState": "TASK_STATE_INPUT_REQUIRED"}
    assert item["responseSchema"]["required"] == ["approved"] and "toolCallId" not in item
    # a detour that also needs a missing grant is asked for the grant first
    both = Action("detour through a paid API", off_goal=True, needs="api:paid")
    assert (decide(both).rule, decide(both).also) == ("permission_boundary", ("off_goal_detour",))


def test_the_kit_keeps_irreversible_approvals_in_input_required():
    # a kit choice: §7.6 lists "human approval before a destructive action" as in-task
    # authorization, so AUTH_REQUIRED would fit too; the kit reserves it for a missing grant
    for name in ("delete customer data", "transfer ¥50,000", "deploy to production"):
        assert decide(ACTIONS[name]).state is TaskState.INPUT_REQUIRED
    assert [r.name for r in RULES if r.state is TaskState.AUTH_REQUIRED] == ["permission_boundary"]


def test_custom_reasons_are_namespaced_and_never_core():
    # "Agents should namespace custom reasons as <framework>:<name>"; "core:" is reserved
    reasons = _reasons_by_message()
    assert reasons["read a restricted document"] == "agentproto:permission"
    assert reasons["interpret a legal clause"] == "agentproto:review"
    core = {"tool_call", "input_required", "confirmation"}
    for rule in RULES:
        assert rule.interrupt_reason in core or rule.interrupt_reason.startswith("agentproto:")
        assert not rule.interrupt_reason.startswith("core:")
        assert rule.interrupt_reason != "tool_call"  # only a bound action gets tool_call


def test_any_rule_with_a_tool_call_id_asks_with_tool_call():
    policy = HitlPolicy()
    for action in (
        Action("read file", needs="docs:secret", tool_call_id="call-a"),
        Action("guess", confidence=0.1, tool_call_id="call-b"),
    ):
        item = interrupt_for(action, policy.decide(action), "int-1")
        assert item["reason"] == "tool_call" and item["toolCallId"] == action.tool_call_id


def test_the_interrupt_parses_as_an_agui_event():
    from agentproto.agui.events import RunFinishedEvent
    from agentproto.agui.parse import parse_event

    ev = ask_human_event(
        asks(), thread_id="t", run_id="r", ids=IdFactory("int"), expires_at="2026-01-01T00:05:00Z"
    )
    parsed = parse_event(ev)
    assert isinstance(parsed.event, RunFinishedEvent) and parsed.warnings == []


@pytest.mark.interop
def test_the_official_sdk_accepts_the_interrupt():
    core = pytest.importorskip("ag_ui.core")
    ev = ask_human_event(asks(), thread_id="t", run_id="r", ids=IdFactory("int"))
    model = core.RunFinishedEvent.model_validate(ev)
    assert model.outcome.type == "interrupt"
    assert len(model.outcome.interrupts) == len(ev["outcome"]["interrupts"])


def test_nothing_to_ask_is_not_an_interrupt():
    proceed = [(a, d) for a, d in asks() if not d.asks]
    with pytest.raises(EmptyInterruptError):
        ask_human_event(proceed, thread_id="t", run_id="r", ids=IdFactory("int"))
    a, d = proceed[0]
    with pytest.raises(PolicyError):
        interrupt_for(a, d, "int-1")


# -- the cost model -----------------------------------------------------------------------------------
def test_the_break_even_confidence_by_hand():
    # review costs 5 min × $1 = $5; it saves 0.9 × $30 = $27 per error caught → ask below 1 − 5/27
    assert CostModel(30, 5, 1, 0.9).break_even_confidence() == pytest.approx(1 - 5 / 27)
    assert CostModel(cost_per_error=1, minutes_per_review=10).break_even_confidence() == 0.0  # never worth it


def test_the_cost_curve_by_hand_on_three_actions():
    model = CostModel(cost_per_error=100, minutes_per_review=1, cost_per_minute=2, catch_rate=1.0)
    curve = cost_curve([0.5, 0.9, 0.99], model, thresholds=[0.0, 0.95, 1.0])
    # threshold 0: nobody asked; expected errors 0.5 + 0.1 + 0.01 = 0.61 per 3 actions
    assert curve.errors[0] == pytest.approx(0.61 / 3 * 1000)
    # threshold 0.95: the 0.5 and 0.9 actions are reviewed and caught; 0.01 slips through
    assert curve.errors[1] == pytest.approx(0.01 / 3 * 1000)
    assert curve.minutes[1] == pytest.approx(2 / 3 * 1000)
    assert curve.total[1] == pytest.approx((0.01 * 100 + 2 * 2) / 3 * 1000)
    assert curve.sweet_spot()[0] == 0.95


@settings(max_examples=25, deadline=None)
@given(st.floats(5, 500), st.floats(0.5, 20), st.floats(0.5, 1.0))
def test_the_sweet_spot_of_a_calibrated_agent_matches_the_closed_form(cost, minutes, catch):
    model = CostModel(cost_per_error=cost, minutes_per_review=minutes, catch_rate=catch)
    grid = [k / 200 for k in range(201)]
    curve = cost_curve(sample_confidences(3000, seed=1), model, thresholds=grid)
    at_closed_form = curve.at(model.break_even_confidence())["total"]
    lowest = curve.sweet_spot()[1]
    # asking below the closed-form threshold costs no more than the best threshold on the grid
    # (to within 0.1 %: the grid step and the finite sample)
    assert at_closed_form <= lowest * 1.001


def test_an_overconfident_agent_needs_a_higher_threshold():
    conf = sample_confidences(2000)
    calibrated = cost_curve(conf, CostModel()).sweet_spot()[0]
    overconfident = cost_curve(conf, CostModel(), temperature=2.0).sweet_spot()[0]
    assert overconfident > calibrated


def test_calibration_by_hand():
    assert calibrated_accuracy(0.9) == pytest.approx(0.9)
    assert calibrated_accuracy(0.9, temperature=2.0) == pytest.approx(0.75)  # odds 9:1 → 3:1
    assert calibrated_accuracy(0.5, temperature=3.0) == pytest.approx(0.5)


def test_beta_nine_one_escalates_t_to_the_ninth():
    curve = cost_curve(sample_confidences(20000, seed=3), thresholds=[0.8])
    assert curve.escalated[0] == pytest.approx(0.8**9, abs=0.01)


# -- the review queue -----------------------------------------------------------------------------------
def test_an_offered_load_past_100_percent_makes_escalations_wait_far_longer():
    light = review_queue(0.7, rate=1.0, minutes=480)
    heavy = review_queue(0.95, rate=1.0, minutes=480)
    assert light.offered_load < 1 < heavy.offered_load  # offered load, not utilisation: it passes 1
    # by hand: escalations per minute × minutes per review ÷ reviewers
    assert heavy.offered_load == pytest.approx(heavy.escalated / 480 * 5)
    assert heavy.mean_wait > 10 * light.mean_wait


def test_a_second_reviewer_shortens_the_wait_and_runs_are_reproducible():
    one = review_queue(0.85, rate=1.0, minutes=480)
    assert review_queue(0.85, rate=1.0, minutes=480) == one
    assert review_queue(0.85, rate=1.0, minutes=480, reviewers=2).mean_wait < one.mean_wait
    with pytest.raises(PolicyError):
        review_queue(0.5, reviewers=0)

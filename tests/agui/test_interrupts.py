"""The interrupt/resume contract (spec 1.1 ``basic/patterns/interrupt-resume``), rule by rule."""

from __future__ import annotations

import json

import pytest

from agentproto.agui import interrupts as ir
from agentproto.agui.interrupts import (
    APPROVAL_RESPONSE_SCHEMA,
    InterruptRecord,
    ThreadRecord,
    build_resume,
    cancelled,
    resolved,
    validate_resume,
)
from agentproto.clock import FakeClock, iso_utc

NOW = FakeClock.DEFAULT_START_MS
LATER = iso_utc(NOW + 60_000)
EARLIER = iso_utc(NOW - 1)


def approval(interrupt_id="int-1", *, expires_at=LATER, tool_call_id="tc-1"):
    return ir.tool_approval_interrupt(interrupt_id, tool_call_id, "Refund 128.00 USD?", expires_at=expires_at)


def thread_with(*interrupts, run_id="run-1", thread_id="t-1"):
    return ThreadRecord.from_pending(thread_id, run_id, interrupts)


def run_input(resume=None, *, thread_id="t-1", run_id="run-2"):
    data = {"threadId": thread_id, "runId": run_id, "messages": []}
    if resume is not None:
        data["resume"] = resume
    return data


def entry(interrupt_id="int-1", status="resolved", payload=None, **extra):
    out = {"interruptId": interrupt_id, "status": status, **extra}
    if payload is not None:
        out["payload"] = payload
    return out


APPROVE = {"approved": True}


# --- rules that accept --------------------------------------------------------------------------


def test_a_resume_covering_every_pending_interrupt_is_accepted():
    thread = thread_with(approval("int-1"), approval("int-2", tool_call_id="tc-2"))
    plan = validate_resume(
        thread, run_input([entry("int-2", payload=APPROVE), entry("int-1", "cancelled")]), NOW
    )
    assert plan.kind == "resume"
    assert plan.interrupted_run_id == "run-1"
    assert plan.answer_for("int-1").status == "cancelled"
    assert plan.answer_for("int-2").payload == APPROVE


def test_an_input_on_a_thread_with_nothing_pending_is_an_ordinary_run():
    assert validate_resume(thread_with(), run_input(), NOW).kind == "new"


def test_a_denial_is_a_resolved_payload_not_a_status():
    plan = validate_resume(thread_with(approval()), run_input([entry(payload={"approved": False})]), NOW)
    assert plan.kind == "resume" and plan.answers[0].payload == {"approved": False}


def test_approve_with_edits_is_a_resolved_payload_with_edited_args():
    payload = {"approved": True, "editedArgs": {"amountCents": 5000}}
    plan = validate_resume(thread_with(approval()), run_input([entry(payload=payload)]), NOW)
    assert plan.answers[0].payload["editedArgs"] == {"amountCents": 5000}


def test_an_expired_interrupt_can_still_be_cancelled():
    thread = thread_with(approval(expires_at=EARLIER))
    plan = validate_resume(thread, run_input([entry(status="cancelled")]), NOW)
    assert plan.kind == "resume" and plan.answers[0].status == "cancelled"


def test_a_replayed_resume_is_recognised_and_not_acted_on_twice():
    decision = entry(payload=APPROVE)
    record = InterruptRecord(approval(), "run-1", "resolved", decision, settled_by="run-2")
    thread = ThreadRecord("t-1", (record,), "run-1")
    plan = validate_resume(thread, run_input([dict(decision)], run_id="run-3"), NOW)
    assert (plan.kind, plan.replay_of) == ("replay", "run-2")


def test_replay_identity_ignores_envelope_metadata():
    decision = entry(payload=APPROVE)
    record = InterruptRecord(approval(), "run-1", "resolved", decision, settled_by="run-2")
    thread = ThreadRecord("t-1", (record,), "run-1")
    again = entry(payload=APPROVE, metadata={"clickedAt": "twice"})
    assert validate_resume(thread, run_input([again]), NOW).kind == "replay"


def test_an_unparseable_expires_at_never_expires():
    thread = thread_with(approval(expires_at="next tuesday"))
    assert validate_resume(thread, run_input([entry(payload=APPROVE)]), NOW).kind == "resume"


def test_a_producer_proceeds_without_an_unrecognised_entry_and_warns():
    # spec 1.1 interrupt-resume, "Resuming": the run SHOULD proceed without the entry, and the
    # producer SHOULD surface a warning — every producer, not only a stateless one.
    plan = validate_resume(thread_with(), run_input([entry("int-9", payload=APPROVE)]), NOW)
    assert plan.kind == "new" and plan.answers == ()
    (notice,) = plan.notices
    assert (notice.code, notice.path, notice.interrupt_id) == (
        "resume.unrecognised-entry",
        "/resume/0",
        "int-9",
    )
    assert plan.warnings == ("Ignored resume entry for interrupt int-9: thread t-1 never raised it",)


def test_an_unrecognised_entry_beside_a_covering_one_is_dropped_and_the_rest_resumes():
    plan = validate_resume(
        thread_with(approval()),
        run_input([entry("int-1", payload=APPROVE), entry("int-404", payload=APPROVE)]),
        NOW,
    )
    assert plan.kind == "resume" and [a.interrupt_id for a in plan.answers] == ["int-1"]
    assert [(n.code, n.path) for n in plan.notices] == [("resume.unrecognised-entry", "/resume/1")]


def test_a_cancelled_entry_with_a_payload_is_accepted_and_the_payload_ignored():
    # The schema allows a payload on any entry; the concept page says it "should be omitted".
    plan = validate_resume(
        thread_with(approval()), run_input([entry(status="cancelled", payload={"approved": False})]), NOW
    )
    assert plan.kind == "resume" and plan.answers[0].status == "cancelled"
    assert "payload" not in plan.answers[0].entry and plan.answers[0].payload is None
    (notice,) = plan.notices
    assert (notice.code, notice.path) == ("resume.cancelled-payload-ignored", "/resume/0/payload")


def test_a_repeated_cancel_with_a_payload_is_still_a_replay_of_the_recorded_cancel():
    record = InterruptRecord(approval(), "run-1", "cancelled", entry(status="cancelled"), settled_by="run-2")
    thread = ThreadRecord("t-1", (record,), "run-1")
    plan = validate_resume(thread, run_input([entry(status="cancelled", payload={"why": 1})]), NOW)
    assert (plan.kind, plan.replay_of) == ("replay", "run-2")


# --- rules that refuse --------------------------------------------------------------------------


def test_another_threads_interrupt_id_is_dropped_without_saying_whose_it_is():
    plan = validate_resume(
        thread_with(), run_input([entry("int-7", payload=APPROVE)]), NOW, owner_of={"int-7": "t-other"}.get
    )
    assert plan.kind == "new" and plan.answers == ()
    (notice,) = plan.notices
    assert notice.code == "resume.unrecognised-entry" and notice.owner_thread == "t-other"
    assert "t-other" not in json.dumps(notice.to_json())  # the owner is for the server's log only


def test_a_consumer_check_refuses_another_threads_interrupt_id():
    with pytest.raises(ir.ThreadMismatchError) as info:
        validate_resume(
            thread_with(),
            run_input([entry("int-7", payload=APPROVE)]),
            NOW,
            owner_of={"int-7": "t-other"}.get,
            strict=True,
        )
    assert info.value.code == "resume.wrong-thread"
    assert "belongs to thread t-other" in info.value.message


def test_a_ledger_of_another_thread_cannot_judge_the_input():
    with pytest.raises(ir.ThreadMismatchError):
        validate_resume(thread_with(thread_id="t-2"), run_input(), NOW)


def test_a_consumer_check_refuses_an_interrupt_id_the_thread_never_raised():
    # On the consumer side it is a MUST: an entry names an interrupt of the run being continued.
    with pytest.raises(ir.UnknownInterruptError) as info:
        validate_resume(
            thread_with(approval()),
            run_input([entry("int-1", payload=APPROVE), entry("int-404", payload=APPROVE)]),
            NOW,
            strict=True,
        )
    assert info.value.details["interruptId"] == "int-404"


def test_only_unrecognised_entries_leave_the_open_interrupt_uncovered():
    with pytest.raises(ir.UncoveredInterruptError):
        validate_resume(thread_with(approval()), run_input([entry("int-404", payload=APPROVE)]), NOW)


def test_ids_must_come_from_the_most_recent_interrupted_run():
    old = InterruptRecord(
        approval("int-old"), "run-1", "resolved", entry("int-old", payload=APPROVE), settled_by="run-2"
    )
    new = InterruptRecord(approval("int-new"), "run-2")
    thread = ThreadRecord("t-1", (old, new), "run-2")
    stale_then_new = run_input(
        [entry("int-old", payload={"approved": False}), entry("int-new", payload=APPROVE)]
    )
    plan = validate_resume(thread, stale_then_new, NOW)
    assert plan.kind == "resume" and [a.interrupt_id for a in plan.answers] == ["int-new"]
    assert [(n.code, n.path) for n in plan.notices] == [("resume.stale-entry", "/resume/0")]
    assert "most recent interrupted run run-2" in plan.warnings[0]
    with pytest.raises(ir.StaleInterruptError) as info:
        validate_resume(thread, stale_then_new, NOW, strict=True)
    assert "most recent interrupted run run-2" in info.value.message


def test_a_repeat_mixed_with_new_answers_is_dropped_and_never_acted_on_again():
    old = InterruptRecord(
        approval("int-old"), "run-1", "resolved", entry("int-old", payload=APPROVE), settled_by="run-2"
    )
    new = InterruptRecord(approval("int-new"), "run-2")
    thread = ThreadRecord("t-1", (old, new), "run-2")
    mixed = run_input([entry("int-old", payload=APPROVE), entry("int-new", payload=APPROVE)])
    plan = validate_resume(thread, mixed, NOW)
    assert [a.interrupt_id for a in plan.answers] == ["int-new"]  # int-old is not answered twice
    assert [n.code for n in plan.notices] == ["resume.already-settled"]
    with pytest.raises(ir.StaleInterruptError):
        validate_resume(thread, mixed, NOW, strict=True)


def test_every_pending_interrupt_must_be_covered():
    thread = thread_with(approval("int-1"), approval("int-2"), approval("int-3"))
    with pytest.raises(ir.UncoveredInterruptError) as info:
        validate_resume(thread, run_input([entry("int-2", payload=APPROVE)]), NOW)
    assert info.value.message == "Thread has 2 pending interrupt(s) not addressed by resume: int-1, int-3"


def test_an_empty_resume_list_does_not_cover_a_pending_interrupt():
    with pytest.raises(ir.UncoveredInterruptError):
        validate_resume(thread_with(approval()), run_input([]), NOW)


def test_new_input_on_a_thread_with_pending_interrupts_must_carry_resume():
    with pytest.raises(ir.ResumeRequiredError) as info:
        validate_resume(thread_with(approval()), run_input(), NOW)
    assert info.value.details["pendingInterruptIds"] == ["int-1"]


def test_one_interrupt_cannot_be_answered_twice_in_one_resume():
    with pytest.raises(ir.DuplicateEntryError):
        validate_resume(
            thread_with(approval()), run_input([entry(payload=APPROVE), entry(status="cancelled")]), NOW
        )


def test_a_different_answer_to_a_settled_interrupt_is_dropped_not_acted_on():
    record = InterruptRecord(approval(), "run-1", "resolved", entry(payload=APPROVE), settled_by="run-2")
    thread = ThreadRecord("t-1", (record,), "run-1")
    plan = validate_resume(thread, run_input([entry(payload={"approved": False})]), NOW)
    assert plan.kind == "new" and plan.answers == ()
    (notice,) = plan.notices
    assert notice.code == "resume.already-settled" and "already resolved by run run-2" in notice.message


def test_a_consumer_check_refuses_a_different_answer_to_a_settled_interrupt():
    record = InterruptRecord(approval(), "run-1", "resolved", entry(payload=APPROVE), settled_by="run-2")
    thread = ThreadRecord("t-1", (record,), "run-1")
    with pytest.raises(ir.ResumeConflictError) as info:
        validate_resume(thread, run_input([entry(payload={"approved": False})]), NOW, strict=True)
    assert info.value.details["settledBy"] == "run-2"


@pytest.mark.parametrize(
    "payload, where",
    [
        ({"approved": "yes"}, "/approved"),
        ({}, "/"),
        ({"approved": True, "editedArgs": []}, "/editedArgs"),
        ({"approved": True, "sneaky": 1}, "/"),
    ],
)
def test_the_payload_must_match_the_response_schema(payload, where):
    with pytest.raises(ir.PayloadSchemaError) as info:
        validate_resume(thread_with(approval()), run_input([entry(payload=payload)]), NOW)
    assert info.value.details["path"] == where
    assert info.value.http_status == 422


def test_a_resolved_entry_without_payload_fails_a_schema_that_wants_one():
    with pytest.raises(ir.PayloadSchemaError):
        validate_resume(thread_with(approval()), run_input([entry()]), NOW)


def test_an_interrupt_without_response_schema_accepts_any_payload():
    bare = {"id": "int-1", "reason": "confirmation"}
    plan = validate_resume(thread_with(bare), run_input([entry(payload=[1, "two"])]), NOW)
    assert plan.kind == "resume"


def test_an_unusable_response_schema_is_the_producers_bug_and_only_warns():
    broken = {"id": "int-1", "reason": "input_required", "responseSchema": {"type": 12}}
    plan = validate_resume(thread_with(broken), run_input([entry(payload=1)]), NOW)
    assert "unusable responseSchema" in plan.warnings[0]


def test_an_expired_interrupt_cannot_be_resolved():
    thread = thread_with(approval(expires_at=EARLIER))
    with pytest.raises(ir.InterruptExpiredError) as info:
        validate_resume(thread, run_input([entry(payload=APPROVE)]), NOW)
    assert info.value.message == f"Interrupt int-1 expired at {EARLIER}"


def test_expiry_is_judged_at_or_before_now():
    at_now = thread_with(approval(expires_at=iso_utc(NOW)))
    with pytest.raises(ir.InterruptExpiredError):
        validate_resume(at_now, run_input([entry(payload=APPROVE)]), NOW)


def test_every_refusal_has_a_stable_code_and_a_json_body():
    with pytest.raises(ir.ResumeError) as info:
        validate_resume(thread_with(approval()), run_input(), NOW)
    body = info.value.to_json()
    assert body["error"]["code"] == "resume.required"
    assert body["error"]["message"].startswith("Thread t-1 has 1 pending interrupt(s)")


def test_validation_accepts_the_core_pydantic_input_model():
    from agentproto.agui.parse import parse_run_agent_input

    model, _ = parse_run_agent_input(run_input([entry(payload=APPROVE)]))
    assert validate_resume(thread_with(approval()), model, NOW).kind == "resume"


# --- consumer side: building the resume list ---------------------------------------------------


def test_build_resume_answers_every_open_interrupt_in_raised_order():
    pending = [approval("int-1"), approval("int-2")]
    entries = build_resume(pending, {"int-2": cancelled(), "int-1": resolved(APPROVE)})
    assert entries == [
        {"interruptId": "int-1", "status": "resolved", "payload": APPROVE},
        {"interruptId": "int-2", "status": "cancelled"},
    ]


def test_build_resume_refuses_to_leave_an_interrupt_out():
    with pytest.raises(ir.BuildResumeError) as info:
        build_resume([approval("int-1"), approval("int-2")], {"int-1": resolved(APPROVE)})
    assert str(info.value) == "buildResumeArray: missing responses for open interrupts: int-2"


def test_build_resume_refuses_answers_to_unknown_interrupts():
    with pytest.raises(ir.BuildResumeError) as info:
        build_resume([approval("int-1")], {"int-1": cancelled(), "int-9": cancelled()})
    assert str(info.value) == "buildResumeArray: responses reference unknown interrupt ids: int-9"


def test_build_resume_omits_payload_on_cancelled_entries():
    (only,) = build_resume([approval()], {"int-1": {"status": "cancelled", "payload": 1}})
    assert "payload" not in only


def test_pending_interrupts_reads_only_an_interrupt_outcome():
    finished = {
        "type": "RUN_FINISHED",
        "threadId": "t",
        "runId": "r",
        "outcome": {"type": "interrupt", "interrupts": [approval()]},
    }
    assert [i["id"] for i in ir.pending_interrupts(finished)] == ["int-1"]
    assert ir.pending_interrupts({"type": "RUN_FINISHED", "threadId": "t", "runId": "r"}) == []


def test_resume_key_is_the_same_for_the_same_decision_and_differs_otherwise():
    a = ir.resume_key("t", entry(payload={"approved": True, "x": [1, 2]}))
    b = ir.resume_key("t", entry(payload={"x": [1, 2], "approved": True}))
    assert a == b
    assert a != ir.resume_key("t", entry(payload={"approved": False}))
    assert a != ir.resume_key("t2", entry(payload={"approved": True, "x": [1, 2]}))


@pytest.mark.parametrize(
    "value, expected",
    [
        ("2026-01-01T00:00:00Z", NOW),
        ("2026-01-01T00:00:00.000Z", NOW),
        ("2026-01-01T01:00:00+01:00", NOW),
        ("2026-01-01T00:00:00", NOW),  # no offset: read as UTC
        ("soon", None),
        (None, None),
        (1767225600000, None),  # not ISO 8601 text
    ],
)
def test_expires_at_is_read_as_iso_8601(value, expected):
    assert ir.parse_expires_at(value) == expected


# --- producer side ---------------------------------------------------------------------------


def test_an_interrupting_run_emits_snapshots_before_run_finished():
    from agentproto.agui.events import dump_event

    events = ir.finish_with_interrupts(
        "t-1",
        "run-1",
        [approval()],
        state={"step": "await"},
        messages=[{"id": "m1", "role": "user", "content": "hi"}],
    )
    wire = [dump_event(e) for e in events]
    assert [e["type"] for e in wire] == ["STATE_SNAPSHOT", "MESSAGES_SNAPSHOT", "RUN_FINISHED"]
    assert wire[2]["outcome"]["interrupts"][0]["responseSchema"] == APPROVAL_RESPONSE_SCHEMA


def test_an_interrupt_outcome_needs_at_least_one_interrupt():
    with pytest.raises(ir.InterruptSpecError):
        ir.finish_with_interrupts("t", "r", [], state={}, messages=[])


def test_interrupt_ids_are_unique_within_the_run():
    with pytest.raises(ir.InterruptSpecError):
        ir.finish_with_interrupts("t", "r", [approval(), approval()], state={}, messages=[])


def test_tool_approval_interrupt_names_the_proposed_call():
    interrupt = approval()
    assert (interrupt["reason"], interrupt["toolCallId"], interrupt["expiresAt"]) == (
        "tool_call",
        "tc-1",
        LATER,
    )


@pytest.mark.interop
def test_the_interrupt_outcome_parses_with_the_official_models():
    core = pytest.importorskip("ag_ui.core")
    from agentproto.agui.events import event_to_json

    (*_, finished) = ir.finish_with_interrupts("t-1", "run-1", [approval()], state={}, messages=[])
    parsed = core.RunFinishedEvent.model_validate_json(event_to_json(finished))
    (interrupt,) = parsed.outcome.interrupts
    assert (interrupt.id, interrupt.tool_call_id) == ("int-1", "tc-1")
    entries = build_resume([interrupt], {"int-1": resolved(APPROVE)})
    assert core.ResumeEntry.model_validate(entries[0]).payload == APPROVE


def test_build_resume_accepts_the_stores_interrupt_records():
    from agentproto.agui.interrupts import InterruptRecord, build_resume, resolved

    record = InterruptRecord({"id": "int-1", "reason": "confirmation"}, run_id="run-1")
    assert build_resume([record], {"int-1": resolved({"approved": True})}) == [
        {"interruptId": "int-1", "status": "resolved", "payload": {"approved": True}}
    ]


def test_build_resume_refuses_something_that_is_not_an_interrupt():
    from agentproto.agui.interrupts import build_resume

    with pytest.raises(TypeError, match="not an interrupt"):
        build_resume([42], {})

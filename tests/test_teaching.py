"""The notebook helpers behave the same when driven from code as when clicked."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from agentproto.clock import FakeClock, IdFactory, iso_utc
from agentproto.course import (
    ExerciseFailed,
    IdNormalizer,
    Question,
    Quiz,
    Stepper,
    check,
    check_equal,
    doctor,
    expect_error,
    measure_redraw,
    show_trace,
)
from agentproto.course.doctor import check_environment

ROOT = Path(__file__).resolve().parents[1]
UUID_A = "0f8fad5b-d9cb-469f-a165-70867728950e"
UUID_B = "7c9e6679-7425-40de-944b-e07fc1f90ae7"


# -- clock and ids ------------------------------------------------------------------------
def test_fake_clock_moves_only_when_told():
    clock = FakeClock(start_ms=1000)
    assert clock.now_ms() == clock.now_ms() == 1000
    assert clock.advance(250) == 1250
    with pytest.raises(ValueError):
        clock.advance(-1)


def test_fake_clock_can_tick_on_every_read():
    clock = FakeClock(start_ms=0, tick_ms=10)
    assert [clock.now_ms() for _ in range(3)] == [0, 10, 20]


def test_id_factory_counts_per_prefix():
    runs, msgs = IdFactory("run"), IdFactory("msg")
    assert [runs(), msgs(), runs()] == ["run-1", "msg-1", "run-2"]


def test_iso_utc_has_millisecond_precision_and_z():
    assert iso_utc(FakeClock.DEFAULT_START_MS + 5) == "2026-01-01T00:00:00.005Z"


# -- trace display ----------------------------------------------------------------------
def test_trace_drops_timestamps_and_renames_generated_ids_in_order():
    events = [
        {"type": "RUN_STARTED", "threadId": "t-1", "runId": UUID_A, "timestamp": 123},
        {"type": "TEXT_MESSAGE_START", "messageId": UUID_B, "role": "assistant"},
        {"type": "RUN_FINISHED", "threadId": "t-1", "runId": UUID_A},
    ]
    trace = show_trace(events)
    assert trace.kinds() == ["RUN_STARTED", "TEXT_MESSAGE_START", "RUN_FINISHED"]
    assert "timestamp" not in trace.events[0]
    assert trace.events[0]["runId"] == "id-1" and trace.events[1]["messageId"] == "id-2"
    assert trace.events[2]["runId"] == "id-1"
    assert trace.events[0]["threadId"] == "t-1"  # hand-written ids are kept
    assert "id-1" in str(trace) and "<table" in trace._repr_html_()


def test_trace_can_rename_every_id_and_share_names_across_calls():
    names = IdNormalizer("all")
    first = show_trace([{"type": "RUN_STARTED", "threadId": "t", "runId": "r"}], ids=names)
    second = show_trace([{"type": "RUN_FINISHED", "threadId": "t", "runId": "r"}], ids=names)
    assert first.events[0] == {"type": "RUN_STARTED", "threadId": "id-1", "runId": "id-2"}
    assert second.events[0]["runId"] == "id-2"


def test_trace_names_a2a_stream_responses_by_their_member():
    trace = show_trace(
        [
            {"task": {"id": UUID_A, "status": {"state": "TASK_STATE_SUBMITTED"}}},
            {"jsonrpc": "2.0", "id": 1, "result": {"statusUpdate": {"taskId": UUID_A}}},
        ]
    )
    assert trace.kinds() == ["task", "statusUpdate"]


def test_trace_rows_are_numbered_like_the_lint_report():
    from agentproto.agui import lint_source

    wire = [
        {"type": "RUN_STARTED", "threadId": "t", "runId": "r"},
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": "hi"},
    ]
    trace = show_trace(wire)
    assert [n for n, _, _ in trace.rows] == [0, 1]
    report = lint_source(wire)
    assert report.error is not None and report.error["event"] == 1
    assert trace.rows[report.error["event"]][1] == "TEXT_MESSAGE_CONTENT"


def test_trace_of_nothing_says_so():
    assert str(show_trace([])) == "(no events)"


# -- quiz -------------------------------------------------------------------------------
def make_quiz() -> Quiz:
    return Quiz(
        "Q",
        [
            Question(
                "Which event ends a run?",
                ["TOOL_CALL_END", "RUN_FINISHED"],
                answer=1,
                explain="RUN_FINISHED or RUN_ERROR.",
            ),
            Question("Is TOOL_CALL_END the result?", ["yes", "no"], answer=1),
        ],
    )


def test_quiz_answers_by_index_letter_or_text():
    quiz = make_quiz()
    assert quiz.answer(1, "RUN_FINISHED") is True
    assert quiz.answer(2, "a") is False
    assert quiz.answer(2, 1) is True
    assert quiz.score == (2, 2)


def test_quiz_rejects_unknown_options_and_questions():
    quiz = make_quiz()
    with pytest.raises(ValueError):
        quiz.answer(1, "RUN_ERROR")
    with pytest.raises(ValueError):
        quiz.answer(3, 0)
    with pytest.raises(ValueError):
        Question("?", ["a"], answer=2)


def test_quiz_widget_check_button_grades_the_radio_choices():
    quiz = make_quiz()
    quiz.choices[0].value = 1
    quiz.choices[1].value = 0
    quiz.check_button.click()
    assert quiz.score == (1, 2)
    assert "✓ Q1" in quiz.feedback.value and "✗ Q2" in quiz.feedback.value
    assert "Score: 1/2" in quiz.feedback.value
    assert len(quiz.widget().children) == 2 * 2 + 3


def test_the_check_button_grades_only_the_readers_picks_not_the_answers_given_in_code():
    quiz = make_quiz()
    quiz.answer(1, 1)
    quiz.answer(2, 1)  # the notebook's answer key, run before anyone clicks (Voilà)
    quiz.choices[0].value = 0
    quiz.check_button.click()
    assert "✗ Q1" in quiz.feedback.value and "· Q2: not answered yet" in quiz.feedback.value
    assert quiz.score == (0, 2)


def test_quiz_report_marks_unanswered_questions():
    quiz = make_quiz()
    quiz.answer(1, 1)
    assert "· Q2: not answered yet" in quiz.report()


# -- self-checks ------------------------------------------------------------------------
def test_check_prints_a_tick_or_raises_with_the_hint(capsys):
    check("two is even", 2 % 2 == 0)
    assert "✓ two is even" in capsys.readouterr().out
    with pytest.raises(ExerciseFailed, match="hint: think harder"):
        check("three is even", lambda: 3 % 2 == 0, hint="think harder")


def test_check_equal_shows_expected_and_got():
    with pytest.raises(ExerciseFailed, match="expected 4, got 5"):
        check_equal("sum", 5, 4)


def test_expect_error_returns_the_error_and_shows_its_rule(capsys):
    class RuleError(Exception):
        rule = "text.content-unopened"

    def boom():
        raise RuleError("No active text message")

    exc = expect_error(boom, error=RuleError, match="No active")
    assert isinstance(exc, RuleError)
    assert "✗ RuleError [text.content-unopened]: No active text message" in capsys.readouterr().out


def test_expect_error_fails_when_nothing_goes_wrong():
    with pytest.raises(ExerciseFailed, match="returned normally"):
        expect_error(lambda: 1)
    with pytest.raises(ExerciseFailed, match="lacks"):
        expect_error(lambda: 1 / 0, error=ZeroDivisionError, match="overflow")


def test_expect_error_async_reads_coroutines_and_async_iterators(capsys):
    import asyncio

    from agentproto.course.checks import expect_error_async

    async def boom():
        raise KeyError("gone")

    async def stream():
        yield 1
        raise ValueError("cut off")

    async def fine():
        return 1

    async def run():
        first = await expect_error_async(boom, error=KeyError)
        second = await expect_error_async(stream, error=ValueError, match="cut")
        with pytest.raises(ExerciseFailed, match="returned normally"):
            await expect_error_async(fine)
        with pytest.raises(ExerciseFailed, match="lacks"):
            await expect_error_async(stream, error=ValueError, match="overflow", quiet=True)
        return first, second

    first, second = asyncio.run(run())
    assert isinstance(first, KeyError) and isinstance(second, ValueError)
    assert "✗ ValueError: cut off" in capsys.readouterr().out


# -- stepper ----------------------------------------------------------------------------
def test_stepper_buttons_move_and_clamp():
    stepper = Stepper(["a", "b", "c"], lambda i, item: f"<i>{item}</i>", title="demo")
    assert "step 1 of 3" in stepper.view.value and "<i>a</i>" in stepper.view.value
    stepper.next_button.click()
    stepper.next_button.click()
    stepper.next_button.click()  # clamps at the end
    assert stepper.index == 2 and "<i>c</i>" in stepper.view.value
    stepper.prev_button.click()
    assert stepper.index == 1
    stepper.reset_button.click()
    assert stepper.index == 0
    stepper.slider.value = 2
    assert "<i>c</i>" in stepper.view.value
    with pytest.raises(ValueError):
        Stepper([], lambda i, x: "")


def test_measure_redraw_reports_a_median_in_ms():
    calls = []
    ms = measure_redraw(lambda: calls.append(1), repeat=3)
    assert len(calls) == 3 and ms >= 0


# -- doctor ---------------------------------------------------------------------------------
def test_doctor_passes_in_the_test_environment():
    report = check_environment()
    assert report.ok, str(report)
    assert "[OK]   pydantic" in str(report)
    assert report.extras()["server"] and report.extras()["course"]
    assert "[OK]   course data" in str(report) and report.fix() == ""


def test_doctor_knows_which_extra_brings_each_package_as_pyproject_says():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    declared = {("", canonicalize_name(Requirement(r).name)) for r in project["dependencies"]}
    for extra in ("server", "course", "grpc", "interop"):
        declared |= {
            (extra, canonicalize_name(Requirement(r).name))
            for r in project["optional-dependencies"][extra]
            if canonicalize_name(Requirement(r).name) != "agentproto"
        }
    listed = {(extra, canonicalize_name(dist)) for extra, dist, _, _ in doctor.PACKAGES}
    assert listed == declared


def _doctor_without(*modules: str) -> dict:
    """check_environment() in a fresh interpreter where ``modules`` cannot be imported."""
    script = (
        "import json, sys\n"
        f"for name in {list(modules)!r}: sys.modules[name] = None\n"
        "from agentproto.course.doctor import check_environment\n"
        "r = check_environment()\n"
        "print(json.dumps({'ok': r.ok, 'extras': r.extras(), 'fix': r.fix(), 'text': str(r)}))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=True
    )
    return json.loads(out.stdout)


def test_doctor_reports_a_missing_course_extra_and_how_to_install_it():
    result = _doctor_without("ipywidgets", "matplotlib")
    assert not result["ok"]
    assert result["extras"]["course"] is False and result["extras"]["server"] is True
    assert result["fix"].startswith('pip install --upgrade ".[course]" in a clone')
    assert "[FAIL] ipywidgets" in result["text"] and "[OK]   httpx" in result["text"]


def test_a_missing_optional_extra_is_reported_but_does_not_fail():
    result = _doctor_without("ag_ui")
    assert result["ok"] and result["extras"]["interop"] is False
    assert "[--]   ag-ui-protocol" in result["text"] and "interop ✗ (optional)" in result["text"]


def test_the_grpc_binding_is_needed_by_the_course():
    result = _doctor_without("grpc")
    assert not result["ok"] and result["extras"]["grpc"] is False
    assert result["fix"].startswith('pip install --upgrade ".[grpc]"')


def test_importing_the_doctor_or_the_course_package_loads_no_course_library():
    script = (
        "import sys, agentproto.course, agentproto.course.doctor\n"
        "print(sorted(m for m in ('ipywidgets', 'matplotlib', 'IPython', 'networkx',\n"
        "                         'numpy') if m in sys.modules))"
    )
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=True
    )
    assert out.stdout.strip() == "[]"


# -- the package surface ----------------------------------------------------------------------
def test_every_advertised_name_loads_from_agentproto_course():
    import agentproto.course as course

    for name in course.__all__:
        assert getattr(course, name) is not None, name
    assert set(course.__all__) <= set(dir(course))
    with pytest.raises(AttributeError):
        course.no_such_name  # noqa: B018


def test_the_static_and_the_lazy_surface_agree():
    import agentproto.course as course

    tree = ast.parse((ROOT / "agentproto/course/__init__.py").read_text())
    static = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and getattr(node.test, "id", "") == "TYPE_CHECKING":
            for imp in node.body:
                assert isinstance(imp, ast.ImportFrom)
                static.update({alias.name: imp.module for alias in imp.names})
    assert static == course._HOMES
    assert sorted(static) == sorted(course.__all__)


def test_trace_shows_models_in_their_wire_form():
    from agentproto.a2a.types import StreamResponse
    from agentproto.agui.events import RunStartedEvent, StateSnapshotEvent

    trace = show_trace(
        [
            RunStartedEvent(thread_id="t-1", run_id="r-1"),
            StateSnapshotEvent(snapshot=None),  # data-null survives
        ]
    )
    assert trace.events == [
        {"type": "RUN_STARTED", "threadId": "t-1", "runId": "r-1"},
        {"type": "STATE_SNAPSHOT", "snapshot": None},
    ]
    update = StreamResponse.model_validate(
        {"statusUpdate": {"taskId": "t", "contextId": "c", "status": {"state": "TASK_STATE_WORKING"}}}
    )
    a2a = show_trace([update])
    assert a2a.kinds() == ["statusUpdate"]
    assert a2a.events[0]["statusUpdate"]["status"] == {"state": "TASK_STATE_WORKING"}


def test_an_answer_key_captures_what_it_prints_and_shows_it_closed(capsys):
    from agentproto.course import answer_key

    with answer_key("Solution <1>") as key:
        print("a < b & c")
    assert key.text == "a < b & c\n"
    shown = key._repr_html_()
    assert shown.startswith('<details class="answer-key"><summary>Solution &lt;1&gt;')
    assert "<pre>a &lt; b &amp; c\n</pre></details>" in shown and "<details open" not in shown
    assert "a < b" not in capsys.readouterr().out  # outside IPython: the closed summary only


def test_an_answer_key_that_fails_shows_what_it_printed_and_raises(capsys):
    from agentproto.course import answer_key

    with pytest.raises(ValueError), answer_key("Solution 2"):
        print("partial work")
        raise ValueError("the check failed")
    assert "partial work" in capsys.readouterr().out

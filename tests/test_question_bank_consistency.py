"""The interview bank agrees with the course: what a question's key points name is taught where it points.

Every question in ``agentproto/data/course/question_bank.json`` cites the notebook that teaches it
(``notebook``). For each one, the protocol names its key points, question and multiple-choice item
mention — event types and states (``TOOL_CALL_END``, ``INPUT_REQUIRED``), field names
(``toolCallId``, ``referenceTaskIds``) and error codes (``-32009``) — must appear in that notebook's
text (markdown and code). A bank answer that drifts away from its notebook, or a notebook that stops
teaching what the bank asks, fails here.
"""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path

import pytest

from agentproto.resources import read_json

NOTEBOOKS = Path(__file__).resolve().parents[1] / "notebooks"

#: Protocol names: A2A/JSON-RPC error codes, UPPER_SNAKE event/state/rule names, camelCase fields.
NAME = re.compile(r"-32\d{3}|\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b|\b[a-z]+(?:[A-Z][a-z0-9]*)+\b")

BANK = read_json("course", "question_bank.json")
QUESTIONS = BANK["questions"]


@cache
def notebook_text(number: int) -> str:
    (path,) = NOTEBOOKS.glob(f"{number:02d}_*.ipynb")
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    return "\n".join("".join(cell["source"]) for cell in cells)


def taught_names(question: dict) -> set[str]:
    """The protocol names a question's key points, prompt and choice item mention."""
    parts = [*question["key_points"], question["question"]]
    choice = question.get("choice")
    if choice:
        parts += [choice["prompt"], *choice["options"], choice["explain"]]
    return set(NAME.findall(" ".join(parts)))


def test_the_bank_has_the_seventy_eight_questions_this_test_was_written_for():
    assert len(QUESTIONS) == 78
    assert len({q["id"] for q in QUESTIONS}) == 78


def test_the_name_pattern_finds_what_it_should():
    found = set(NAME.findall("TOOL_CALL_END vs RESULT, toolCallId, -32009, INPUT_REQUIRED, plain words"))
    assert found == {"TOOL_CALL_END", "toolCallId", "-32009", "INPUT_REQUIRED"}


@pytest.mark.parametrize("question", QUESTIONS, ids=[q["id"] for q in QUESTIONS])
def test_every_name_in_a_questions_key_points_is_taught_in_its_notebook(question):
    text = notebook_text(question["notebook"])
    missing = sorted(name for name in taught_names(question) if name not in text)
    assert not missing, (
        f"{question['id']} points at notebook {question['notebook']:02d}, which never mentions {missing}"
    )


def test_the_tool_card_answer_agrees_with_notebooks_02_and_07():
    """TOOL_CALL_END closes the arguments; only TOOL_CALL_RESULT makes a card 'done'."""
    (q,) = [q for q in QUESTIONS if q["id"] == "agui-tool-end-vs-result"]
    answers = (q["pass_answer"] + " " + q["full_marks_answer"]).lower()
    assert "end means the tool finished" not in answers
    assert "to 'running' on end" not in answers
    assert "arguments are complete" in answers or "closes the arguments" in answers
    for number in (2, 7):
        assert "awaiting approval" in notebook_text(number)


def test_the_deadlock_quiz_does_not_say_prevention_is_enough():
    (q,) = [q for q in QUESTIONS if q["id"] == "ma-deadlock"]
    assert "prevention beats" not in q["choice"]["explain"].lower()
    assert "not enough" in q["full_marks_answer"] or "not sufficient" in q["choice"]["explain"]
    assert "Prevention is not enough" in notebook_text(18)


@pytest.mark.parametrize("question", QUESTIONS, ids=[q["id"] for q in QUESTIONS])
def test_every_name_in_a_questions_answers_is_taught_in_its_notebook(question):
    """The pass and full-marks answers may only lean on names the cited notebook teaches."""
    text = notebook_text(question["notebook"])
    names = set(NAME.findall(question["pass_answer"] + " " + question["full_marks_answer"]))
    missing = sorted(name for name in names if name not in text)
    assert not missing, (
        f"{question['id']}'s answers name {missing}, which notebook {question['notebook']:02d} never teaches"
    )


def test_a_truncated_run_is_never_called_a_failure_or_a_success_by_the_bank():
    """Spec 1.1 basic/transports, Truncation: no outcome; MUST NOT be reported as a success."""
    for q in QUESTIONS:
        options = (q.get("choice") or {}).get("options", [])
        text = " ".join([q["pass_answer"], q["full_marks_answer"], *options])
        assert "truncated: treat it as failed" not in text, q["id"]
        assert "failed, truncated" not in text.lower(), q["id"]


def test_the_bank_uses_the_specs_interrupt_reasons():
    """AG-UI interrupts page, Reason taxonomy: a tool-bound interrupt is tool_call, not confirmation."""
    (q,) = [q for q in QUESTIONS if q["id"] == "ma-when-humans-step-in"]
    assert "tool_call" in q["full_marks_answer"] and "agentproto:" in q["full_marks_answer"]
    assert "tool_call" in notebook_text(19) and "agentproto:permission" in notebook_text(19)


def test_the_event_families_answer_names_the_specs_eight():
    (q,) = [q for q in QUESTIONS if q["id"] == "agui-event-families"]
    assert "eight families" in q["full_marks_answer"]
    assert "8 families" in notebook_text(3) or "eight families" in notebook_text(3)


#: A2A sources name a section (``spec A2A v1.0.1 §3.1.4``); AG-UI sources name a 1.1 page
#: (``spec AG-UI 1.1 events/reasoning``), the path under ``docs/spec/1.1/`` without ``.mdx``.
SPEC_SOURCE = re.compile(r"^spec (?:A2A v1\.0\.1 §\d+(?:\.\d+)*|AG-UI 1\.1 [a-z0-9-]+(?:/[a-z0-9-]+)*)$")
SECTION = re.compile(r"§\d+(?:\.\d+)*")


def spec_citation_problems(question: dict) -> list[str]:
    """Why a question sourced from a spec does not name a spec section in its full-marks answer."""
    source, answer = question["source"], question["full_marks_answer"]
    if not source.startswith("spec "):
        return []
    if not SPEC_SOURCE.match(source):
        return [f"source {source!r} is neither 'spec A2A v1.0.1 §N' nor 'spec AG-UI 1.1 <page>'"]
    if source.startswith("spec A2A"):
        return [] if SECTION.search(answer) else ["the full-marks answer names no A2A § section"]
    page = source.removeprefix("spec AG-UI 1.1 ")
    if page in answer or page.rsplit("/", 1)[-1] in answer:
        return []
    return [f"the full-marks answer never names the AG-UI page {page!r}"]


SPEC_QUESTIONS = [q for q in QUESTIONS if q["source"].startswith("spec ")]


def test_the_bank_has_questions_written_from_both_specs():
    sources = {q["source"].split()[1] for q in SPEC_QUESTIONS}
    assert sources == {"A2A", "AG-UI"}, sources


@pytest.mark.parametrize("question", SPEC_QUESTIONS, ids=[q["id"] for q in SPEC_QUESTIONS])
def test_every_spec_sourced_question_names_a_spec_section_in_its_full_marks_answer(question):
    assert not spec_citation_problems(question), (question["id"], spec_citation_problems(question))


@pytest.mark.parametrize(
    ("source", "answer", "problem"),
    [
        (
            "spec A2A v1.0.1 §3.1.5",
            "Cancelling a finished task fails; switch on the reason.",
            "no A2A § section",
        ),
        ("spec AG-UI 1.1 events/reasoning", "The consumer replaces the value (see lifecycle).", "AG-UI page"),
        ("spec A2A", "§3.1.5 names TaskNotCancelableError.", "neither"),
        ("spec AG-UI 1.1 Events Reasoning", "events/reasoning says so.", "neither"),
    ],
)
def test_the_spec_citation_check_catches_a_question_without_a_section(source, answer, problem):
    bad = {"source": source, "full_marks_answer": answer}
    (found,) = spec_citation_problems(bad)
    assert problem in found


def test_the_spec_citation_check_accepts_good_and_ignores_non_spec_sources():
    good_a2a = {"source": "spec A2A v1.0.1 §3.1.5", "full_marks_answer": "§5.4 maps it to -32002."}
    good_agui = {
        "source": "spec AG-UI 1.1 basic/versioning",
        "full_marks_answer": "versioning, Retired shapes.",
    }
    course = {"source": "course", "full_marks_answer": "No section at all."}
    assert spec_citation_problems(good_a2a) == spec_citation_problems(good_agui) == []
    assert spec_citation_problems(course) == []

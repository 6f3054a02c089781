"""The interview drill: the bank's schema, the drill and mock-interview widgets, quizzes."""

from __future__ import annotations

import copy

import jsonschema
import matplotlib.pyplot as plt
import pytest

from agentproto.clock import FakeClock
from agentproto.course.curriculum import LESSONS
from agentproto.course.drill import (
    QUESTION_BANK_SCHEMA,
    Drill,
    MockInterview,
    QuestionBank,
    QuestionBankError,
    bank_quiz,
    check_bank,
    check_question,
    draw_choice_questions,
    plot_session,
)
from agentproto.resources import read_json
from agentproto.system import SystemClock


@pytest.fixture(scope="module")
def raw():
    return read_json("course", "question_bank.json")


@pytest.fixture(scope="module")
def bank(raw):
    return QuestionBank.from_dict(raw)


# --- the bank ---------------------------------------------------------------------------------------


def test_the_bank_matches_its_json_schema(raw):
    jsonschema.Draft202012Validator.check_schema(QUESTION_BANK_SCHEMA)
    jsonschema.validate(raw, QUESTION_BANK_SCHEMA)
    check_bank(raw)


def test_the_bank_has_forty_to_eighty_questions_across_every_topic(bank):
    assert 38 <= len(bank) <= 80
    assert {q.topic for q in bank.questions} == set(bank.topics)
    assert sum(q.choice is not None for q in bank.questions) >= 15


def test_every_question_points_at_a_notebook_in_the_course_map(bank):
    numbers = {lesson.number for lesson in LESSONS}
    assert {q.notebook for q in bank.questions} <= numbers


@pytest.mark.parametrize(
    "follow_up",
    [
        "agui-why-event-stream",
        "agui-tool-end-vs-result",
        "agui-interrupt-ends-run",
        "agui-lost-delta",
        "sec-forged-tool-results",
        "a2a-vs-mcp",
        "a2a-stuck-working",
        "agui-multisession-frontend",
    ],
)
def test_every_deep_follow_up_of_seed_000_q12_is_in_the_bank(bank, follow_up):
    assert "seed 000 Q12" in bank.get(follow_up).sources


@pytest.mark.parametrize("section", range(1, 14))
def test_every_section_of_seed_004_is_covered(bank, section):
    assert bank.with_source(f"seed 004 §{section}"), f"no question for seed 004 §{section}"


@pytest.mark.parametrize("question", range(1, 13))
def test_every_question_of_seed_000_is_covered(bank, question):
    assert bank.with_source(f"seed 000 Q{question}"), f"no question for seed 000 Q{question}"


def test_sources_are_matched_exactly_not_by_prefix(bank):
    assert all("seed 004 §1" in q.sources for q in bank.with_source("seed 004 §1"))
    assert not any("seed 004 §10" in q.sources for q in bank.with_source("seed 004 §1"))


def test_answers_use_current_spec_names(bank):
    # The full-marks answers teach v1.0 / 1.1, so v0.3-only spellings appear only as corrections.
    for q in bank.questions:
        text = q.full_marks_answer
        assert "message/send" not in text or "v0.3" in text, q.id
        assert "agent.json" not in text or "v0.3" in text, q.id


def test_the_right_answers_are_spread_over_the_options(bank):
    answers = [q.choice.answer for q in bank.questions if q.choice]
    assert len(set(answers)) == 3 and max(answers.count(i) for i in set(answers)) < len(answers) * 0.6


@pytest.mark.parametrize(
    "breakage, message",
    [
        (lambda d: d["questions"][0].pop("pass_answer"), "'pass_answer' is a required property"),
        (lambda d: d["questions"][0].update(topic="cooking"), "unknown topic 'cooking'"),
        (lambda d: d["questions"][0].update(notebook=99), "not in the course map"),
        (lambda d: d["questions"][1].update(id=d["questions"][0]["id"]), "used twice"),
        (lambda d: d["questions"][0].update(id="Has Spaces"), "does not match"),
        (
            lambda d: next(q for q in d["questions"] if "choice" in q)["choice"].update(answer=7),
            "is not one of",
        ),
        (lambda d: d.update(extra=True), "Additional properties"),
    ],
)
def test_a_broken_bank_is_refused_with_every_problem_named(raw, breakage, message):
    data = copy.deepcopy(raw)
    breakage(data)
    with pytest.raises(QuestionBankError) as info:
        check_bank(data)
    assert any(message in p for p in info.value.problems), info.value.problems


def test_a_single_question_can_be_checked(raw):
    good = dict(raw["questions"][0])
    check_question(good, topics=raw["topics"])
    with pytest.raises(QuestionBankError, match="full_marks_answer"):
        check_question({**good, "full_marks_answer": "short"})


# --- the drill widget ----------------------------------------------------------------------------------


def test_the_same_seed_gives_the_same_order_and_another_seed_another(bank):
    assert Drill(bank, seed=5).order == Drill(bank, seed=5).order
    assert Drill(bank, seed=5).order != Drill(bank, seed=6).order
    assert sorted(Drill(bank, seed=5).order) == sorted(q.id for q in bank.questions)


def test_filtering_by_topic_keeps_only_that_topic(bank):
    drill = Drill(bank, seed=1)
    drill.topic.value = "security"
    assert {bank.get(i).topic for i in drill.order} == {"security"}
    assert drill.index == 0 and len(drill.order) == len(bank.by_topic("security"))


def test_answers_stay_hidden_until_revealed(bank):
    drill = Drill(bank, seed=2)
    q = drill.current
    assert q.question in drill.view.value and q.pass_answer not in drill.view.value
    drill.reveal_pass_button.click()
    assert "Pass:" in drill.view.value and "Full marks:" not in drill.view.value
    drill.reveal_full_button.click()
    assert "Full marks:" in drill.view.value and "Key points:" in drill.view.value
    drill.next_button.click()
    assert "Pass:" not in drill.view.value  # a new card starts hidden


def test_grading_moves_on_and_keeps_a_running_score(bank):
    drill = Drill(bank, seed=2)
    first, second, third = drill.order[:3]
    drill.full_button.click()
    drill.pass_button.click()
    drill.missed_button.click()
    assert drill.grades == {first: "full", second: "pass", third: "missed"}
    assert drill.score == (3, 6) and drill.index == 3
    assert "3/6 points (50%)" in drill.score_view.value


def test_navigation_is_clamped_and_shuffle_reorders(bank):
    drill = Drill(bank, seed=0)
    drill.prev_button.click()
    assert drill.index == 0
    before = drill.order
    drill.shuffle_button.click()
    assert drill.seed == 1 and drill.order != before


def test_bad_levels_are_refused(bank):
    drill = Drill(bank)
    with pytest.raises(ValueError):
        drill.reveal("perfect")
    with pytest.raises(ValueError):
        drill.grade("excellent")
    with pytest.raises(ValueError):
        Drill(bank, topic="cooking")


# --- the mock interview ---------------------------------------------------------------------------------


def test_a_mock_interview_runs_on_virtual_time(bank):
    interview = MockInterview(bank, questions=3, seconds_per_question=120, seed=4)
    assert len(interview.order) == 3
    interview.spend_60_button.click()
    interview.spend_30_button.click()
    assert interview.elapsed_s == 90 and "1:30 of 2:00" in interview.timer_view.value
    interview.full_button.click()
    interview.spend(150)
    assert "over time" in interview.timer_view.value
    interview.full_button.click()
    interview.reveal_full_button.click()
    interview.spend(20)
    interview.full_button.click()
    assert interview.finished and "Interview over" in interview.timer_view.value
    assert [(a.counted, a.note) for a in interview.answers] == [
        ("full", ""),
        ("pass", "over time"),
        ("pass", "peeked"),
    ]
    assert interview.score == (4, 6)
    assert interview.report().splitlines()[-1] == "score 4/6 in 4:20"


def test_a_mock_interview_does_not_go_back_or_continue_past_the_end(bank):
    interview = MockInterview(bank, questions=2, seed=0)
    assert interview.prev_button.disabled
    interview.missed_button.click()
    with pytest.raises(ValueError, match="does not go back"):
        interview.go(0)
    interview.pass_button.click()
    with pytest.raises(ValueError, match="over"):
        interview.grade("full")


def test_a_real_clock_cannot_be_advanced(bank):
    interview = MockInterview(bank, questions=1, clock=SystemClock())
    with pytest.raises(TypeError):
        interview.spend(30)


def test_the_session_plot_draws_one_bar_per_answer(bank):
    interview = MockInterview(bank, questions=2, seconds_per_question=60, clock=FakeClock())
    interview.spend(45)
    interview.grade("full")
    interview.spend(75)
    interview.grade("pass")
    fig = plot_session(interview)
    assert len(fig.axes[0].patches) == 2
    plt.close(fig)


# --- quizzes --------------------------------------------------------------------------------------------


def test_a_bank_quiz_is_seeded_and_answerable(bank):
    drawn = draw_choice_questions(bank, n=5, seed=9)
    assert [q.id for q in drawn] == [q.id for q in draw_choice_questions(bank, n=5, seed=9)]
    quiz = bank_quiz(bank, n=5, seed=9)
    for number, q in enumerate(drawn, start=1):
        assert quiz.answer(number, q.choice.answer)
    assert quiz.score == (5, 5)


def test_a_quiz_cannot_ask_for_more_than_the_bank_holds(bank):
    with pytest.raises(ValueError, match="only"):
        bank_quiz(bank, n=200)


# --- exercise self-checks: not solved yet is not a failure --------------------------------------------

from agentproto.course.checks import (  # noqa: E402
    ExerciseFailed,
    ExerciseNotSolved,
    check,
    check_equal,
    is_unsolved,
)


@pytest.mark.parametrize("placeholder", [None, ..., "", "TODO", "...", {"a": None, "b": None}, [None]])
def test_a_placeholder_answer_is_reported_as_not_solved_yet(placeholder):
    with pytest.raises(ExerciseNotSolved, match=r"^not solved yet: the answer — hint: look again$"):
        check_equal("the answer", placeholder, 42, hint="look again")


def test_not_solved_is_still_caught_as_an_exercise_failure():
    assert issubclass(ExerciseNotSolved, ExerciseFailed)
    with pytest.raises(ExerciseFailed):
        check_equal("x", None, 1)


def test_a_wrong_answer_is_still_a_failure():
    with pytest.raises(ExerciseFailed, match="✗ x: expected 1, got 2") as info:
        check_equal("x", 2, 1)
    assert not isinstance(info.value, ExerciseNotSolved)


def test_none_is_a_real_answer_when_none_is_expected(capsys):
    check_equal("nothing", None, None)
    assert "✓ nothing" in capsys.readouterr().out


def test_check_reports_a_placeholder_answer_without_evaluating_the_condition():
    def boom():
        raise RuntimeError("must not be evaluated")

    with pytest.raises(ExerciseNotSolved, match="not solved yet: it is bytes"):
        check("it is bytes", boom, answer=None)
    with pytest.raises(ExerciseFailed, match="✗ it is bytes"):
        check("it is bytes", False, answer="oops")


def test_a_half_filled_answer_is_checked_normally():
    assert not is_unsolved({"a": "safe", "b": None})
    assert not is_unsolved(0) and not is_unsolved(False) and not is_unsolved({})


def test_require_answer_spots_templates_and_empties():
    from agentproto.course.checks import require_answer

    template = {"type": "STEP_STARTED", "stepName": "plan"}
    for unsolved in (None, [], set(), {}, {"a": None}):
        with pytest.raises(ExerciseNotSolved, match="not solved yet: Exercise 1"):
            require_answer(unsolved, "Exercise 1")
    with pytest.raises(ExerciseNotSolved):
        require_answer(dict(template), "Exercise 3", placeholder=template)
    require_answer({**template, "stepName": 7}, "Exercise 3", placeholder=template)
    require_answer([], "Exercise 2", empty_is_unsolved=False)
    require_answer(0, "Exercise 2")

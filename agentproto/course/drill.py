"""Interview drill: the course's question bank as flash cards, a timed mock interview, quizzes.

The bank (``agentproto/data/course/question_bank.json``, shipped with the package and read
through :mod:`agentproto.resources`) holds one entry per interview question: the question,
a *pass* answer (what most candidates say), a *full-marks* answer (mechanism, edge cases,
current spec names), the key points an interviewer listens for, follow-ups, and — where one
fits — a multiple-choice form. :data:`QUESTION_BANK_SCHEMA` is its JSON Schema;
:func:`check_bank` adds the rules a schema cannot express (unique ids, known topics, notebooks
that exist in the course map, an answer index inside its options).

Theory of operation
-------------------
* :class:`Drill` — a deck: filter by topic, seeded shuffle (the same seed gives the same order
  on every machine), reveal the pass answer, then the full-marks answer with its key points,
  grade yourself *missed* (0), *pass* (1) or *full* (2) and see a running score. Every control
  is an attribute, so a test clicks exactly what a learner clicks.
* :class:`MockInterview` — a drill under interview rules: a fixed number of questions, a time
  budget per question on an injected clock (a :class:`~agentproto.clock.FakeClock` that moves
  only when you say you spoke for 30 s — no sleeping; pass a real clock to time yourself),
  no going back; answering over time, or after peeking at an answer, caps the question at
  *pass*.
* :func:`bank_quiz` — a :class:`~agentproto.course.quiz.Quiz` drawn (seeded) from the
  questions that have a multiple-choice form.
"""

from __future__ import annotations

import html
import json
import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import ipywidgets as widgets

from agentproto._schemas import jsonschema
from agentproto.clock import Clock, FakeClock
from agentproto.course.quiz import Question, Quiz
from agentproto.course.widgets import show
from agentproto.errors import AgentProtoError
from agentproto.resources import read_json

if TYPE_CHECKING:
    from matplotlib.artist import Artist
    from matplotlib.figure import Figure

__all__ = [
    "QUESTION_BANK_SCHEMA",
    "GRADES",
    "QuestionBankError",
    "Choice",
    "BankQuestion",
    "QuestionBank",
    "check_bank",
    "check_question",
    "Drill",
    "MockAnswer",
    "MockInterview",
    "bank_quiz",
    "draw_choice_questions",
    "plot_session",
]


#: Self-grades and the points they are worth.
GRADES: dict[str, int] = {"missed": 0, "pass": 1, "full": 2}

_QUESTION_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": [
        "id",
        "topic",
        "notebook",
        "source",
        "question",
        "pass_answer",
        "full_marks_answer",
        "key_points",
        "follow_ups",
    ],
    "additionalProperties": False,
    "properties": {
        "id": {"type": "string", "pattern": "^[a-z0-9]+(-[a-z0-9]+)*$"},
        "topic": {"type": "string", "minLength": 1},
        "notebook": {"type": "integer", "minimum": 0},
        "source": {"type": "string", "minLength": 1},
        "question": {"type": "string", "minLength": 10},
        "pass_answer": {"type": "string", "minLength": 10},
        "full_marks_answer": {"type": "string", "minLength": 80},
        "key_points": {"type": "array", "minItems": 2, "items": {"type": "string", "minLength": 3}},
        "follow_ups": {"type": "array", "minItems": 1, "items": {"type": "string", "minLength": 5}},
        "choice": {
            "type": "object",
            "required": ["prompt", "options", "answer", "explain"],
            "additionalProperties": False,
            "properties": {
                "prompt": {"type": "string", "minLength": 5},
                "options": {
                    "type": "array",
                    "minItems": 2,
                    "maxItems": 6,
                    "items": {"type": "string", "minLength": 1},
                },
                "answer": {"type": "integer", "minimum": 0},
                "explain": {"type": "string", "minLength": 5},
            },
        },
    },
}

#: JSON Schema (2020-12) of ``data/question_bank.json``.
QUESTION_BANK_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "agentproto interview question bank",
    "type": "object",
    "required": ["version", "title", "topics", "questions"],
    "additionalProperties": False,
    "properties": {
        "version": {"const": 1},
        "title": {"type": "string"},
        "description": {"type": "string"},
        "topics": {"type": "object", "minProperties": 1, "additionalProperties": {"type": "string"}},
        "questions": {"type": "array", "minItems": 1, "items": {"$ref": "#/$defs/question"}},
    },
    "$defs": {"question": _QUESTION_SCHEMA},
}


class QuestionBankError(AgentProtoError, ValueError):
    """The bank (or a question) breaks the schema or a cross-field rule; ``problems`` lists all."""

    rule = "bank.invalid"

    def __init__(self, problems: Sequence[str]) -> None:
        self.problems = list(problems)
        super().__init__("; ".join(self.problems))


def _schema_problems(instance: Any, schema: dict[str, Any], where: str = "") -> list[str]:
    validator = jsonschema().Draft202012Validator(schema)
    out = []
    for error in sorted(validator.iter_errors(instance), key=lambda e: list(e.absolute_path)):
        path = "/".join(str(p) for p in error.absolute_path)
        prefix = "/".join(p for p in (where, path) if p) or "(root)"
        out.append(f"{prefix}: {error.message}")
    return out


def _question_problems(
    item: Mapping[str, Any], topics: Iterable[str] | None, notebooks: set[int] | None
) -> list[str]:
    """Rules beyond the schema for one well-typed question."""
    out = []
    qid = item.get("id", "?")
    if topics is not None and item.get("topic") not in set(topics):
        out.append(f"{qid}: unknown topic {item.get('topic')!r}")
    if notebooks is not None and item.get("notebook") not in notebooks:
        out.append(f"{qid}: notebook {item.get('notebook')} is not in the course map")
    choice = item.get("choice")
    if choice:
        if not 0 <= choice["answer"] < len(choice["options"]):
            out.append(
                f"{qid}: choice answer {choice['answer']} is not one of {len(choice['options'])} options"
            )
        if len(set(choice["options"])) != len(choice["options"]):
            out.append(f"{qid}: choice options repeat")
    return out


def _course_notebooks() -> set[int]:
    from agentproto.course.curriculum import LESSONS

    return {lesson.number for lesson in LESSONS}


def check_question(item: Mapping[str, Any], *, topics: Iterable[str] | None = None) -> None:
    """Validate one question dict (schema + cross-field rules); raise :class:`QuestionBankError`."""
    problems = _schema_problems(
        item,
        _QUESTION_SCHEMA,
        where=str(item.get("id", "question")) if isinstance(item, Mapping) else "question",
    )
    if not problems:
        problems = _question_problems(item, topics, _course_notebooks())
    if problems:
        raise QuestionBankError(problems)


def check_bank(data: Mapping[str, Any]) -> None:
    """Validate a whole bank; raise :class:`QuestionBankError` listing every problem found."""
    problems = _schema_problems(data, QUESTION_BANK_SCHEMA)
    if problems:
        raise QuestionBankError(problems)
    notebooks = _course_notebooks()
    seen: set[str] = set()
    for item in data["questions"]:
        if item["id"] in seen:
            problems.append(f"{item['id']}: the id is used twice")
        seen.add(item["id"])
        problems += _question_problems(item, data["topics"], notebooks)
    if problems:
        raise QuestionBankError(problems)


# --------------------------------------------------------------------------- the bank as objects


@dataclass(frozen=True)
class Choice:
    """The multiple-choice form of a question; ``answer`` indexes ``options``."""

    prompt: str
    options: tuple[str, ...]
    answer: int
    explain: str


@dataclass(frozen=True)
class BankQuestion:
    """One interview question with its graded answers."""

    id: str
    topic: str
    notebook: int
    source: str
    question: str
    pass_answer: str
    full_marks_answer: str
    key_points: tuple[str, ...]
    follow_ups: tuple[str, ...]
    choice: Choice | None = None

    @classmethod
    def from_dict(cls, item: Mapping[str, Any]) -> BankQuestion:
        choice = item.get("choice")
        return cls(
            id=item["id"],
            topic=item["topic"],
            notebook=item["notebook"],
            source=item["source"],
            question=item["question"],
            pass_answer=item["pass_answer"],
            full_marks_answer=item["full_marks_answer"],
            key_points=tuple(item["key_points"]),
            follow_ups=tuple(item["follow_ups"]),
            choice=None
            if not choice
            else Choice(choice["prompt"], tuple(choice["options"]), choice["answer"], choice["explain"]),
        )

    @property
    def sources(self) -> tuple[str, ...]:
        """``source`` split on ``/``: ``("seed 000 Q12", "seed 004 §9")``."""
        return tuple(part.strip() for part in self.source.split("/"))

    def as_quiz_question(self) -> Question:
        """The multiple-choice form as a :class:`Question` (``ValueError`` if there is none)."""
        if self.choice is None:
            raise ValueError(f"question {self.id} has no multiple-choice form")
        return Question(
            self.choice.prompt, list(self.choice.options), self.choice.answer, self.choice.explain
        )


@dataclass(frozen=True)
class QuestionBank:
    """The validated bank: topics (key → description) and questions in file order."""

    title: str
    topics: Mapping[str, str]
    questions: tuple[BankQuestion, ...]

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> QuestionBank:
        check_bank(data)
        return cls(
            data["title"], dict(data["topics"]), tuple(BankQuestion.from_dict(q) for q in data["questions"])
        )

    @classmethod
    def load(cls, path: str | Path | None = None) -> QuestionBank:
        """Read and validate the packaged bank (``agentproto/data/course/question_bank.json``),
        or the file at ``path``."""
        if path is None:
            return cls.from_dict(read_json("course", "question_bank.json"))
        with open(path, encoding="utf-8") as f:
            return cls.from_dict(json.load(f))

    def get(self, question_id: str) -> BankQuestion:
        for question in self.questions:
            if question.id == question_id:
                return question
        raise KeyError(question_id)

    def by_topic(self, topic: str | None) -> list[BankQuestion]:
        """Questions of one topic (``None`` or ``"all"``: every question)."""
        if topic in (None, "all"):
            return list(self.questions)
        if topic not in self.topics:
            raise ValueError(f"unknown topic {topic!r}; choose one of {', '.join(self.topics)}")
        return [q for q in self.questions if q.topic == topic]

    def with_source(self, source: str) -> list[BankQuestion]:
        """Questions that cite exactly ``source`` (``"seed 004 §10"``, ``"seed 000 Q12"`` …)."""
        return [q for q in self.questions if source in q.sources]

    def __len__(self) -> int:
        return len(self.questions)


# --------------------------------------------------------------------------- the drill


def _para(label: str, text: str, colour: str) -> str:
    return (
        f'<div style="margin:6px 0"><b style="color:{colour}">{html.escape(label)}</b> '
        f"{html.escape(text)}</div>"
    )


class Drill:
    """Flash cards over the bank: topic filter, seeded shuffle, reveal, self-grade, score."""

    def __init__(self, bank: QuestionBank | None = None, *, seed: int = 0, topic: str = "all") -> None:
        self.bank = bank if bank is not None else QuestionBank.load()
        if topic != "all" and topic not in self.bank.topics:
            raise ValueError(f"unknown topic {topic!r}; choose one of {', '.join(self.bank.topics)}")
        self.seed = seed
        self.grades: dict[str, str] = {}
        self.revealed: set[str] = set()
        self.index = 0
        self.deck: list[BankQuestion] = []
        options = [("all topics", "all")] + [(k, k) for k in self.bank.topics]
        self.topic = widgets.Dropdown(options=options, value=topic, description="topic")
        self.shuffle_button = widgets.Button(description="Shuffle")
        self.prev_button = widgets.Button(description="◀ Prev")
        self.next_button = widgets.Button(description="Next ▶")
        self.reveal_pass_button = widgets.Button(description="Reveal pass answer")
        self.reveal_full_button = widgets.Button(description="Reveal full marks")
        self.missed_button = widgets.Button(description="Missed (0)", button_style="danger")
        self.pass_button = widgets.Button(description="Pass (1)", button_style="warning")
        self.full_button = widgets.Button(description="Full marks (2)", button_style="success")
        self.view = widgets.HTML()
        self.score_view = widgets.HTML()
        self.topic.observe(lambda _c: self._rebuild(), names="value")
        self.shuffle_button.on_click(lambda _b: self.shuffle(self.seed + 1))
        self.prev_button.on_click(lambda _b: self.go(self.index - 1))
        self.next_button.on_click(lambda _b: self.go(self.index + 1))
        self.reveal_pass_button.on_click(lambda _b: self.reveal("pass"))
        self.reveal_full_button.on_click(lambda _b: self.reveal("full"))
        self.missed_button.on_click(lambda _b: self.grade("missed"))
        self.pass_button.on_click(lambda _b: self.grade("pass"))
        self.full_button.on_click(lambda _b: self.grade("full"))
        self._rebuild()

    # -- the deck --------------------------------------------------------------------------

    def _deck(self) -> list[BankQuestion]:
        deck = self.bank.by_topic(self.topic.value)
        random.Random(self.seed).shuffle(deck)
        return deck

    def _rebuild(self) -> None:
        self.deck = self._deck()
        self.index = 0
        self.revealed = set()
        self.redraw()

    def shuffle(self, seed: int) -> None:
        """Reorder the deck with a new seed (same seed, same order — on every machine)."""
        self.seed = seed
        self._rebuild()

    @property
    def current(self) -> BankQuestion:
        return self.deck[self.index]

    @property
    def order(self) -> list[str]:
        """The ids of the current deck, in drill order."""
        return [q.id for q in self.deck]

    def go(self, index: int) -> None:
        """Show question ``index`` of the deck (clamped), answers hidden."""
        self.index = max(0, min(len(self.deck) - 1, index))
        self.revealed = set()
        self.redraw()

    def reveal(self, level: str) -> None:
        """Show the ``"pass"`` or the ``"full"`` answer (full marks also shows the pass answer)."""
        if level not in ("pass", "full"):
            raise ValueError("reveal 'pass' or 'full'")
        self.revealed |= {"pass", "full"} if level == "full" else {"pass"}
        self.redraw()

    def grade(self, level: str) -> None:
        """Record a self-grade for the current question and move on."""
        if level not in GRADES:
            raise ValueError(f"grade one of {', '.join(GRADES)}")
        self.grades[self.current.id] = level
        if self.index < len(self.deck) - 1:
            self.go(self.index + 1)
        else:
            self.redraw()

    # -- score -----------------------------------------------------------------------------

    @property
    def score(self) -> tuple[int, int]:
        """(points, maximum points) over the graded questions."""
        points = sum(GRADES[g] for g in self.grades.values())
        return points, 2 * len(self.grades)

    def summary(self) -> str:
        points, best = self.score
        counts = {g: sum(1 for v in self.grades.values() if v == g) for g in GRADES}
        share = f" ({100 * points / best:.0f}%)" if best else ""
        return (
            f"{len(self.grades)} graded: {counts['full']} full, {counts['pass']} pass, "
            f"{counts['missed']} missed — {points}/{best} points{share}"
        )

    # -- drawing ---------------------------------------------------------------------------

    def _card_html(self) -> str:
        q = self.current
        head = (
            f'<div style="color:#57606a">{self.index + 1} of {len(self.deck)} · {q.topic} · '
            f"notebook {q.notebook:02d} · {html.escape(q.source)} · <code>{q.id}</code></div>"
        )
        body = f'<div style="font-size:1.1em; margin:6px 0"><b>{html.escape(q.question)}</b></div>'
        if "pass" in self.revealed:
            body += _para("Pass:", q.pass_answer, "#9a6700")
        if "full" in self.revealed:
            body += _para("Full marks:", q.full_marks_answer, "#1a7f37")
            body += _para("Key points:", " · ".join(q.key_points), "#0969da")
            body += _para("Follow-ups:", " | ".join(q.follow_ups), "#8250df")
        if q.id in self.grades:
            body += f'<div style="color:#57606a">graded: {self.grades[q.id]}</div>'
        return head + body

    def redraw(self) -> None:
        self.view.value = self._card_html() if self.deck else "<i>no questions</i>"
        self.score_view.value = f"<b>Score:</b> {html.escape(self.summary())}"

    def widget(self) -> widgets.VBox:
        return widgets.VBox(
            [
                widgets.HBox([self.topic, self.shuffle_button, self.prev_button, self.next_button]),
                self.view,
                widgets.HBox([self.reveal_pass_button, self.reveal_full_button]),
                widgets.HBox([self.missed_button, self.pass_button, self.full_button]),
                self.score_view,
            ]
        )

    def _ipython_display_(self) -> None:  # pragma: no cover - needs a front end
        show(self.widget())


# --------------------------------------------------------------------------- the mock interview


@dataclass(frozen=True)
class MockAnswer:
    """One answered question of a mock interview."""

    question_id: str
    elapsed_s: float
    self_grade: str
    counted: str
    note: str = ""

    @property
    def points(self) -> int:
        return GRADES[self.counted]


def _mmss(seconds: float) -> str:
    seconds = int(round(seconds))
    return f"{seconds // 60}:{seconds % 60:02d}"


class MockInterview(Drill):
    """A timed drill: ``questions`` questions, ``seconds_per_question`` each, on ``clock``.

    With the default :class:`FakeClock`, time passes only through :meth:`spend` (or the
    ``+30 s`` / ``+60 s`` buttons): "I talked for 90 seconds". Pass ``SystemClock()`` to be
    timed for real. Going back is not allowed; over time, or after revealing an answer before
    grading, *full* counts as *pass*.
    """

    def __init__(
        self,
        bank: QuestionBank | None = None,
        *,
        questions: int = 5,
        seconds_per_question: float = 120,
        seed: int = 0,
        topic: str = "all",
        clock: Clock | None = None,
    ) -> None:
        self.clock: Clock = clock if clock is not None else FakeClock()
        self.questions_asked = questions
        self.limit_s = seconds_per_question
        self.answers: list[MockAnswer] = []
        self._started_ms = self.clock.now_ms()
        self._peeked = False
        self.spend_30_button = widgets.Button(description="+30 s")
        self.spend_60_button = widgets.Button(description="+60 s")
        self.timer_view = widgets.HTML()
        super().__init__(bank, seed=seed, topic=topic)
        self.prev_button.disabled = True
        self.spend_30_button.on_click(lambda _b: self.spend(30))
        self.spend_60_button.on_click(lambda _b: self.spend(60))

    def _deck(self) -> list[BankQuestion]:
        return super()._deck()[: self.questions_asked]

    def _rebuild(self) -> None:
        self.answers = []
        self._started_ms = self.clock.now_ms()
        self._peeked = False
        super()._rebuild()

    @property
    def finished(self) -> bool:
        return len(self.answers) >= len(self.deck)

    @property
    def elapsed_s(self) -> float:
        """Time spent on the current question so far."""
        return (self.clock.now_ms() - self._started_ms) / 1000

    def spend(self, seconds: float) -> None:
        """Let ``seconds`` of virtual time pass (a :class:`FakeClock` is required)."""
        advance = getattr(self.clock, "advance", None)
        if advance is None:
            raise TypeError("this interview runs on a real clock: time passes by itself")
        advance(seconds * 1000)
        self.redraw()

    def go(self, index: int) -> None:
        if index < self.index:
            raise ValueError("a mock interview does not go back")
        super().go(index)

    def reveal(self, level: str) -> None:
        if self.current.id not in {a.question_id for a in self.answers}:
            self._peeked = True
        super().reveal(level)

    def grade(self, level: str) -> None:
        """Grade the current question; time and peeking decide what counts."""
        if level not in GRADES:
            raise ValueError(f"grade one of {', '.join(GRADES)}")
        if self.finished:
            raise ValueError("the interview is over; see report()")
        elapsed = self.elapsed_s
        counted, notes = level, []
        if elapsed > self.limit_s:
            notes.append("over time")
        if self._peeked:
            notes.append("peeked")
        if notes and counted == "full":
            counted = "pass"
        self.answers.append(MockAnswer(self.current.id, elapsed, level, counted, ", ".join(notes)))
        self.grades[self.current.id] = counted
        self._started_ms = self.clock.now_ms()
        self._peeked = False
        if self.index < len(self.deck) - 1:
            Drill.go(self, self.index + 1)
        else:
            self.redraw()

    @property
    def score(self) -> tuple[int, int]:
        return sum(a.points for a in self.answers), 2 * len(self.deck)

    def report(self) -> str:
        """One line per answered question, then the total."""
        lines = [
            f"{'question':<28} {'time':>5} / {_mmss(self.limit_s)}  {'self-grade':<10} {'counted':<7} note"
        ]
        for a in self.answers:
            lines.append(
                f"{a.question_id:<28} {_mmss(a.elapsed_s):>5}        "
                f"{a.self_grade:<10} {a.counted:<7} {a.note}"
            )
        points, best = self.score
        total = sum(a.elapsed_s for a in self.answers)
        lines.append(
            f"score {points}/{best} in {_mmss(total)}"
            + ("" if self.finished else f" ({len(self.answers)} of {len(self.deck)} answered)")
        )
        return "\n".join(lines)

    def redraw(self) -> None:
        super().redraw()
        if self.finished:
            self.timer_view.value = "<b>Interview over.</b>"
        else:
            over = self.elapsed_s > self.limit_s
            colour = "#cf222e" if over else "#57606a"
            self.timer_view.value = (
                f'<span style="color:{colour}">time on this question: '
                f"{_mmss(self.elapsed_s)} of {_mmss(self.limit_s)}"
                f"{' — over time' if over else ''}</span>"
            )

    def widget(self) -> widgets.VBox:
        return widgets.VBox(
            [
                widgets.HBox([self.spend_30_button, self.spend_60_button, self.timer_view]),
                self.view,
                widgets.HBox([self.reveal_pass_button, self.reveal_full_button]),
                widgets.HBox([self.missed_button, self.pass_button, self.full_button]),
                self.score_view,
            ]
        )


# --------------------------------------------------------------------------- quizzes and plots


def bank_quiz(
    bank: QuestionBank | None = None,
    *,
    n: int = 6,
    seed: int = 0,
    topic: str | None = None,
    title: str = "Mixed quiz",
) -> Quiz:
    """A :class:`Quiz` of ``n`` multiple-choice forms drawn from the bank with ``seed``."""
    drawn = draw_choice_questions(bank, n=n, seed=seed, topic=topic)
    return Quiz(title, [q.as_quiz_question() for q in drawn])


def draw_choice_questions(
    bank: QuestionBank | None = None, *, n: int = 6, seed: int = 0, topic: str | None = None
) -> list[BankQuestion]:
    """``n`` questions that have a multiple-choice form, drawn with ``seed`` (what
    :func:`bank_quiz` asks)."""
    bank = bank if bank is not None else QuestionBank.load()
    pool = [q for q in bank.by_topic(topic) if q.choice is not None]
    if n > len(pool):
        raise ValueError(f"only {len(pool)} questions with a multiple-choice form")
    return random.Random(seed).sample(pool, n)


def plot_session(interview: MockInterview, *, title: str = "Mock interview") -> Figure:
    """Horizontal bars: time per answered question against the budget, coloured by grade."""
    import matplotlib.pyplot as plt
    from matplotlib.patches import Rectangle

    from agentproto.course.plots import PALETTE

    colours = {"full": PALETTE["good"], "pass": PALETTE["secondary"], "missed": PALETTE["bad"]}
    answers = interview.answers
    fig, ax = plt.subplots(figsize=(8, 0.5 + 0.45 * max(1, len(answers))))
    labels = [a.question_id for a in answers]
    ax.barh(labels, [a.elapsed_s for a in answers], color=[colours[a.counted] for a in answers])
    ax.axvline(interview.limit_s, color=PALETTE["muted"], linestyle="--", label="budget")
    for i, a in enumerate(answers):
        if a.note:
            ax.text(a.elapsed_s, i, f"  {a.note}", va="center", fontsize=8)
    ax.invert_yaxis()
    longest = max([interview.limit_s, *(a.elapsed_s for a in answers)])
    ax.set_xlim(0, longest * 1.25)  # room for the notes
    ax.set_xlabel("seconds spent (virtual clock)")
    ax.set_title(title)
    handles: list[Artist] = [Rectangle((0, 0), 1, 1, color=c) for c in colours.values()]
    ax.legend(handles + [ax.lines[0]], [*colours, "budget"], loc="lower right", fontsize=8)
    fig.tight_layout()
    return fig

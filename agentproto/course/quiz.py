"""A small multiple-choice quiz that works as a widget and from code.

In a notebook, display the quiz and click; in a test (or a terminal), call
:meth:`Quiz.answer`. Both paths share the same grading, so a test that drives the widget
(``quiz.choices[0].value = ...; quiz.check_button.click()``) checks exactly what a learner sees.

>>> q = Quiz("Warm-up", [Question("2 + 2?", ["3", "4"], answer=1, explain="Arithmetic.")])
>>> q.answer(1, "4")
True
>>> q.score
(1, 1)
"""

from __future__ import annotations

import html
from dataclasses import dataclass

import ipywidgets as widgets

__all__ = ["Question", "Quiz"]


@dataclass(frozen=True)
class Question:
    """One question: ``answer`` is the index of the right option in ``options``."""

    prompt: str
    options: tuple[str, ...] | list[str]
    answer: int
    explain: str = ""

    def __post_init__(self) -> None:
        if not 0 <= self.answer < len(self.options):
            raise ValueError(f"answer index {self.answer} is not one of the {len(self.options)} options")

    def index_of(self, choice: int | str) -> int:
        """Accept an option index (0-based), a letter (``"b"``) or the option text itself."""
        if isinstance(choice, int):
            if not 0 <= choice < len(self.options):
                raise ValueError(f"no option {choice}; choose 0..{len(self.options) - 1}")
            return choice
        text = choice.strip()
        if text in self.options:
            return list(self.options).index(text)
        if len(text) == 1 and text.isalpha():
            idx = ord(text.lower()) - ord("a")
            if 0 <= idx < len(self.options):
                return idx
        raise ValueError(f"{choice!r} is not an option of: {self.prompt}")


class Quiz:
    """A list of :class:`Question` objects with a widget view and a code API."""

    def __init__(self, title: str, questions: list[Question]) -> None:
        if not questions:
            raise ValueError("a quiz needs at least one question")
        self.title = title
        self.questions = list(questions)
        self.responses: dict[int, int] = {}  # question number (1-based) -> chosen index
        self.choices = [
            widgets.RadioButtons(
                options=[(f"{chr(97 + i)}) {opt}", i) for i, opt in enumerate(q.options)],
                value=None,
                # a radio label is one fixed-height line: as wide as the longest option, so a long
                # option is never wrapped onto a hidden second line (the cell scrolls instead)
                layout=widgets.Layout(width="max-content"),
            )
            for q in self.questions
        ]
        self.check_button = widgets.Button(description="Check my answers", button_style="primary")
        self.feedback = widgets.HTML(value="")
        self.check_button.on_click(lambda _b: self._check_widgets())

    # -- code API ---------------------------------------------------------------------
    def answer(self, number: int, choice: int | str) -> bool:
        """Record an answer to question ``number`` (1-based); return whether it is right."""
        q = self._question(number)
        idx = q.index_of(choice)
        self.responses[number] = idx
        return idx == q.answer

    @property
    def score(self) -> tuple[int, int]:
        """(right answers, number of questions)."""
        right = sum(1 for n, idx in self.responses.items() if self.questions[n - 1].answer == idx)
        return right, len(self.questions)

    def report(self) -> str:
        """One line per question: ✓/✗/· with the explanation for answered ones."""
        lines = []
        for n, q in enumerate(self.questions, start=1):
            if n not in self.responses:
                lines.append(f"· Q{n}: not answered yet")
                continue
            ok = self.responses[n] == q.answer
            mark = "✓" if ok else "✗"
            right = "" if ok else f" (right answer: {chr(97 + q.answer)}) {q.options[q.answer]})"
            lines.append(f"{mark} Q{n}{right}. {q.explain}".rstrip())
        got, total = self.score
        lines.append(f"Score: {got}/{total}")
        return "\n".join(lines)

    # -- widget view --------------------------------------------------------------------
    def _check_widgets(self) -> None:
        # Only what the reader picked counts: answers given in code (the notebook's answer key,
        # run before anyone clicks in Voilà) must not show up as the reader's.
        self.responses = {
            n: box.value for n, box in enumerate(self.choices, start=1) if box.value is not None
        }
        self.feedback.value = "<pre>" + html.escape(self.report()) + "</pre>"

    def widget(self) -> widgets.VBox:
        items: list[widgets.Widget] = [widgets.HTML(f"<h4>{html.escape(self.title)}</h4>")]
        for n, (q, box) in enumerate(zip(self.questions, self.choices), start=1):
            items += [widgets.HTML(f"<b>Q{n}.</b> {html.escape(q.prompt)}"), box]
        items += [self.check_button, self.feedback]
        return widgets.VBox(items)

    def _ipython_display_(self) -> None:  # pragma: no cover - needs a front end
        from agentproto.course.widgets import show

        show(self.widget())

    def _question(self, number: int) -> Question:
        if not 1 <= number <= len(self.questions):
            raise ValueError(f"no question {number}; this quiz has {len(self.questions)}")
        return self.questions[number - 1]

"""Answer keys that stay closed until the reader opens them.

A quiz's answers and an exercise's worked solution belong in the notebook: the tests run them,
so they are always right. A learner should meet them only by choice, though, and an instructor
should not put them on the projector by accident. :func:`answer_key` captures what a cell prints
and shows it as one collapsed ``<details class="answer-key">`` block, which is closed in
JupyterLab, in Voilà and on the course website alike, and opens on a click with no kernel
needed. The cell itself is tagged ``answer-key`` and its source is hidden
(``jupyter.source_hidden``), so the code, which contains the answers, starts collapsed as well.

>>> with answer_key("Solution 1") as key:
...     print("42")
[Solution 1: closed; open it in JupyterLab, Voilà or the course site]
>>> key.text
'42\\n'
"""

from __future__ import annotations

import contextlib
import html
import io
import sys
from collections.abc import Iterator

from IPython.display import display

__all__ = ["AnswerKey", "answer_key"]


class AnswerKey:
    """Captured text shown as a closed ``<details>`` block (``title`` is its summary line)."""

    def __init__(self, title: str) -> None:
        self.title = title
        self.text = ""

    def _repr_html_(self) -> str:
        return (
            f'<details class="answer-key"><summary>{html.escape(self.title)} (click to open)</summary>'
            f"<pre>{html.escape(self.text)}</pre></details>"
        )

    def __repr__(self) -> str:
        return f"[{self.title}: closed; open it in JupyterLab, Voilà or the course site]"


@contextlib.contextmanager
def answer_key(title: str = "Answer key") -> Iterator[AnswerKey]:
    """Capture what the block prints and display it afterwards as a closed answer key.

    If the block raises, what it printed so far goes to the cell's output first, so a failing
    solution is as readable as any other failing cell.
    """
    key = AnswerKey(title)
    buffer = io.StringIO()
    try:
        with contextlib.redirect_stdout(buffer):
            yield key
    except BaseException:
        sys.stdout.write(buffer.getvalue())
        raise
    key.text = buffer.getvalue()
    display(key)

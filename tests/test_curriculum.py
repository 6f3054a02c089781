"""The course map is one list (agentproto.course.curriculum) and everything agrees with it."""

from __future__ import annotations

import json
import re
from pathlib import Path

from agentproto.course.curriculum import LESSONS, render_readme

NOTEBOOK_DIR = Path(__file__).resolve().parents[1] / "notebooks"

ROOT = Path(__file__).resolve().parents[1]


def test_notebooks_readme_table_is_generated_from_the_curriculum():
    readme = (NOTEBOOK_DIR / "README.md").read_text()
    assert readme == render_readme(readme, NOTEBOOK_DIR), (
        "notebooks/README.md is stale: run `python -m agentproto.course.curriculum`"
    )


def test_every_notebook_file_is_in_the_curriculum():
    files = {p.name for p in NOTEBOOK_DIR.glob("[0-9][0-9]_*.ipynb")}
    assert files <= {lesson.filename for lesson in LESSONS}


def test_every_notebook_links_only_to_notebooks_that_exist():
    names = {p.name for p in NOTEBOOK_DIR.glob("*.ipynb")}
    for path in NOTEBOOK_DIR.glob("[0-9][0-9]_*.ipynb"):
        nb = json.loads(path.read_text())
        for cell in nb["cells"]:
            if cell["cell_type"] != "markdown":
                continue
            for target in re.findall(r"\]\(([^)#]+\.ipynb)", "".join(cell["source"])):
                assert target in names, f"{path.name} links to missing {target}"


def test_every_notebook_opens_with_a_title_and_objectives():
    for path in sorted(NOTEBOOK_DIR.glob("[0-9][0-9]_*.ipynb")):
        nb = json.loads(path.read_text())
        first = "".join(nb["cells"][0]["source"])
        assert first.startswith("# "), f"{path.name} does not open with a title"
        assert "Objectives" in first or "objectives" in first, f"{path.name} has no objectives"


def test_every_notebook_ends_with_a_quiz_answered_in_code():
    for path in sorted(NOTEBOOK_DIR.glob("[0-9][0-9]_*.ipynb")):
        source = "".join("".join(c["source"]) for c in json.loads(path.read_text())["cells"])
        assert "quiz.answer(" in source and "quiz.report()" in source, (
            f"{path.name} has no quiz answered in code"
        )


def _code_cells(path: Path) -> list[dict]:
    return [c for c in json.loads(path.read_text())["cells"] if c["cell_type"] == "code"]


def _reveals_answers(cell: dict, after_solutions: bool) -> bool:
    return "quiz.answer(" in "".join(cell["source"]) or after_solutions


def test_every_answer_key_is_closed_until_the_reader_opens_it():
    """The quiz's answers and every worked solution print one closed <details>, code hidden too.

    Stored outputs are what the site and JupyterLab show before anything runs, and what Voilà
    regenerates live; a stream output here would put the answers on the page in the open.
    """
    for path in sorted(NOTEBOOK_DIR.glob("[0-9][0-9]_*.ipynb")):
        cells = json.loads(path.read_text())["cells"]
        after_solutions, keys = False, 0
        for cell in cells:
            text = "".join(cell["source"])
            if cell["cell_type"] == "markdown":
                after_solutions = text.strip().lower().startswith("## solution") or (
                    after_solutions and not text.startswith("**Next")
                )
                continue
            if not _reveals_answers(cell, after_solutions):
                continue
            keys += 1
            where = f"{path.name}: {text[:60]!r}"
            assert "answer-key" in cell["metadata"].get("tags", []), where
            assert cell["metadata"].get("jupyter", {}).get("source_hidden") is True, where
            assert "with answer_key(" in text, where
            kinds = [o["output_type"] for o in cell["outputs"]]
            assert kinds == ["display_data"], f"{where} shows {kinds}"
            shown = cell["outputs"][0]["data"]["text/html"]
            shown = "".join(shown) if isinstance(shown, list) else shown
            assert shown.startswith('<details class="answer-key">') and " open" not in shown.split(">")[0], (
                where
            )
        assert keys, f"{path.name} has no answer key"


def test_no_notebook_stops_its_servers_after_the_quiz():
    """In Voilà every cell runs before anyone can click: a server stopped at the end would leave
    the widgets above answering "not running". Servers end with the kernel instead."""
    for path in sorted(NOTEBOOK_DIR.glob("[0-9][0-9]_*.ipynb")):
        cells = _code_cells(path)
        quiz = max(i for i, c in enumerate(cells) if re.search(r"^quiz = ", "".join(c["source"]), re.M))
        for cell in cells[quiz:]:
            text = "".join(cell["source"])
            assert not re.search(r"^\s*\w+\.stop\(\)", text, re.M) or "answer_key(" in text, (
                f"{path.name} stops a server after its quiz: {text[:80]!r}"
            )

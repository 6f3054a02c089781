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

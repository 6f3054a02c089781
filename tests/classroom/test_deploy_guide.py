"""docs/workshop.md: the laptop install routes and the 90-minute run sheet hold together.

The install commands are checked against the project (the wheel's name, the Makefile's
wheelhouse target, the extras); the run sheet's clock against its own minutes, its notebooks
against notebooks/, and the per-notebook timing table against the whole course. Nothing here
asserts a measured time.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
GUIDE = (ROOT / "docs" / "workshop.md").read_text()
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
NOTEBOOKS = sorted(p.name[:2] for p in (ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))


def section(title: str) -> str:
    start = GUIDE.index(title)
    end = GUIDE.find("\n## ", start + len(title))
    return GUIDE[start : end if end != -1 else None]


def table_rows(text: str, first_header: str) -> list[list[str]]:
    """The body rows of the first Markdown table in *text* whose header starts with *first_header*."""
    lines = text[text.index(f"| {first_header} |") :].splitlines()
    rows = []
    for line in lines[2:]:
        if not line.startswith("|"):
            break
        rows.append([cell.strip() for cell in line.strip("|").split("|")])
    return rows


def test_the_guide_says_plainly_that_the_kit_is_not_on_the_public_index():
    assert "not on the public package index" in GUIDE
    install = section("## Installing on the learners' laptops")
    assert not re.search(r'^\$ pip install "agentproto\[course\]"', install, re.M)


def test_the_wheel_route_names_the_wheel_the_build_makes():
    install = section("## Installing on the learners' laptops")
    wheel = f"agentproto-{PROJECT['version']}-py3-none-any.whl"
    assert "pip wheel --no-deps -w dist ." in install
    assert f"{wheel}[course]" in install, f"the guide should install {wheel}"
    assert f'"{wheel}[course]"' in install or f'"dist/{wheel}[course]"' in install


def test_the_clone_and_wheelhouse_routes_use_commands_the_project_has():
    install = section("## Installing on the learners' laptops")
    makefile = (ROOT / "Makefile").read_text()
    assert re.search(r"^lab:", makefile, re.M) and "make lab" in install
    assert re.search(r"^wheelhouse:", makefile, re.M), "the guide documents make wheelhouse"
    assert "build/wheelhouse" in install and "make wheelhouse" in install
    assert "--no-index --find-links" in install and '"agentproto[course]"' in install
    assert "-c requirements/lock.txt" in install
    assert "same OS, CPU architecture and Python version" in install
    assert "course" in PROJECT["optional-dependencies"]


def _minutes(clock: str) -> int:
    hours, minutes = clock.split(":")
    return int(hours) * 60 + int(minutes)


def test_the_run_sheet_is_90_minutes_with_a_break_and_consistent_clock():
    rows = [r for r in table_rows(section("## Run sheet"), "clock") if r[1]]
    clock = 0
    for row in rows:
        assert _minutes(row[0]) == clock, f"row {row[2]!r} starts at {row[0]}, expected {clock} min"
        clock += int(row[1])
    assert clock == 90
    assert any("Break" in row[2] for row in rows)
    assert all(row[5] for row in rows if "Break" not in row[2]), "every block needs talking points"


def test_the_run_sheet_has_an_agui_half_and_an_a2a_half_on_real_notebooks():
    text = section("## Run sheet")
    rows = table_rows(text, "clock")
    half, named = None, {"AG-UI": set(), "A2A": set(), "Close": set()}
    for row in rows:
        if row[0] in ("**AG-UI**", "**A2A**", "**Close**"):
            half = row[0].strip("*")
            continue
        for number in re.findall(r"\b(\d\d)\b(?= §|'s)", row[3]):
            assert number in NOTEBOOKS, f"the run sheet names notebook {number}"
            if half and "Break" not in row[2]:
                named[half].add(int(number))
    assert named["AG-UI"] and all(1 <= n <= 8 for n in named["AG-UI"]), named
    assert named["A2A"] and all(9 <= n <= 12 for n in named["A2A"]), named


def test_the_stuck_points_cover_the_usual_ones_each_with_a_fix():
    rows = table_rows(section("## Run sheet"), "symptom")
    text = " ".join(" ".join(row) for row in rows).lower()
    for topic in ("kernel", "token", "port", "run all", "widget", "cull"):
        assert topic in text, f"no stuck point about {topic}"
    assert all(len(row) == 3 and row[2] for row in rows), "every stuck point needs a fix"


def test_every_notebook_has_a_measured_run_time_with_its_date():
    text = section("## Run sheet")
    assert re.search(r"How long each notebook takes to run \(measured [^)]*20\d\d\)", text)
    rows = table_rows(text, "notebook")
    numbers = sorted(m.group(1) for row in rows if (m := re.match(r"(\d\d)\b", row[0])))
    assert numbers == NOTEBOOKS
    assert "2-core" in GUIDE and re.search(r"How long the install takes \(measured [^)]*20\d\d\)", GUIDE)


def test_the_retired_claims_are_gone():
    assert "10 minutes at the start" not in GUIDE
    assert "Notebook 06 failed for every learner whenever" not in GUIDE
    assert "ReadTimeout" not in GUIDE or "since" in GUIDE

"""The spec coverage map (docs/spec-coverage.md) lists every unit of the two specifications the course
teaches, at the versions it names, and everything it cites exists.

The units are data, docs/spec-sections.json: every .mdx page of AG-UI 1.1 (docs/spec/1.1) and its
``##`` sections; every ``###``/``####`` heading of A2A v1.0.1 docs/specification.md §1–§13 and every
rpc of a2a.proto's service. The map has one table row per unit:
``spec | section | taught in (notebook file) | notebook heading | demonstrated by``, or
``not taught: <reason>`` in the third column.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SECTIONS = ROOT / "docs" / "spec-sections.json"
MAP = ROOT / "docs" / "spec-coverage.md"
NOTEBOOKS = ROOT / "notebooks"

NOT_TAUGHT = "not taught:"
NOTEBOOK_CELL = re.compile(r"^`(\d\d_[A-Za-z0-9_]+\.ipynb)`$")
HEADING = re.compile(r"^#{1,6}\s+(.*?)\s*#*\s*$")


def _data() -> dict:
    return json.loads(SECTIONS.read_text(encoding="utf-8"))


def _agui_units(agui: dict) -> list[str]:
    units = []
    for page in agui["pages"]:
        base = page["path"].removesuffix(".mdx")
        units.append(base)
        units.extend(f"{base} › {section}" for section in page["sections"])
    return units


def _a2a_units(a2a: dict) -> list[str]:
    units = []
    for s in a2a["sections"]:
        units.append(f"§{s['number']} {s['title']}" if s["number"] else f"§{s['under']} › {s['title']}")
    units.extend(f"rpc {name}" for name in a2a["proto"]["rpcs"])
    return units


def _units() -> dict[str, list[str]]:
    data = _data()
    return {data["agui"]["spec"]: _agui_units(data["agui"]), data["a2a"]["spec"]: _a2a_units(data["a2a"])}


def _rows() -> list[dict]:
    """Every row of the map's coverage tables (those headed ``| spec | section | …``)."""
    rows = []
    in_table = False
    for number, line in enumerate(MAP.read_text(encoding="utf-8").splitlines(), 1):
        if not line.startswith("|"):
            in_table = False
            continue
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if cells[:2] == ["spec", "section"]:
            in_table = True
            continue
        if not in_table or set(line) <= set("|-: "):
            continue
        assert len(cells) == 5, f"line {number}: {len(cells)} cells, not 5: {line}"
        spec, section, taught_in, heading, demo = cells
        rows.append(
            {
                "line": number,
                "spec": spec,
                "section": section,
                "taught_in": taught_in,
                "heading": heading,
                "demo": demo,
            }
        )
    return rows


def _headings(notebook: Path) -> set[str]:
    """The text of every markdown heading in a notebook (outside fenced code)."""
    found = set()
    for cell in json.loads(notebook.read_text(encoding="utf-8"))["cells"]:
        if cell["cell_type"] != "markdown":
            continue
        source = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
        fenced = False
        for line in source.splitlines():
            if line.lstrip().startswith(("```", "~~~")):
                fenced = not fenced
                continue
            match = None if fenced else HEADING.match(line)
            if match:
                found.add(match.group(1))
    return found


def test_the_section_data_is_complete_for_the_versions_it_names():
    data = _data()
    agui, a2a = data["agui"], data["a2a"]
    assert agui["spec"] == "AG-UI 1.1" and agui["root"] == "docs/spec/1.1"
    paths = [page["path"] for page in agui["pages"]]
    assert len(paths) == len(set(paths)) == 27, "docs/spec/1.1 holds 27 .mdx pages"
    assert all(p.endswith(".mdx") for p in paths)
    assert sum(p.startswith("events/") for p in paths) == 9, "the nine events/ pages"
    assert {page["commit"] for page in agui["pages"]} == set(agui["commits"])
    assert all(re.fullmatch(r"[0-9a-f]{40}", commit) for commit in agui["commits"])

    assert a2a["spec"] == "A2A v1.0.1" and a2a["tag"] == "v1.0.1"
    numbered = [s["number"] for s in a2a["sections"] if s["number"]]
    assert len(numbered) == len(set(numbered)) == 176, "§1–§13 have 176 numbered ###/#### sections"
    assert all(1 <= int(n.split(".")[0]) <= 13 and n.count(".") in (1, 2) for n in numbered)
    assert len(a2a["sections"]) - len(numbered) == 6, "plus six unnumbered sub-headings (§6.5, §6.9)"
    assert all(s["under"] in numbered for s in a2a["sections"] if not s["number"])
    assert a2a["proto"]["service"] == "A2AService" and len(set(a2a["proto"]["rpcs"])) == 11


def test_the_map_has_exactly_one_row_per_unit():
    units = _units()
    rows = _rows()
    for spec, expected in units.items():
        listed = [row["section"] for row in rows if row["spec"] == spec]
        duplicates = sorted(s for s, n in Counter(listed).items() if n > 1)
        assert not duplicates, f"{spec}: listed more than once: {duplicates}"
        missing = [u for u in expected if u not in set(listed)]
        extra = [s for s in listed if s not in set(expected)]
        assert not missing, f"{spec}: units without a row: {missing}"
        assert not extra, f"{spec}: rows for no unit of the data: {extra}"
        assert listed == expected, f"{spec}: rows are not in the data's order"


def test_the_map_names_the_versions_it_was_read_at():
    data = _data()
    text = MAP.read_text(encoding="utf-8")
    for commit in data["agui"]["commits"]:
        assert f"`{commit}`" in text, f"the map does not name AG-UI commit {commit}"
    assert f"tag `{data['a2a']['tag']}`" in text
    # Each AG-UI page's heading is followed by the commit that page was read at.
    for page in data["agui"]["pages"]:
        pattern = rf"^### `{re.escape(page['path'])}` — .*\n\nRead at commit `{page['commit']}`\.$"
        assert re.search(pattern, text, re.M), f"{page['path']}: its heading or commit line is missing"


def test_the_totals_at_the_top_match_the_rows():
    text = MAP.read_text(encoding="utf-8")
    rows = _rows()
    for spec in _units():
        mine = [row for row in rows if row["spec"] == spec]
        untaught = sum(row["taught_in"].startswith(NOT_TAUGHT) for row in mine)
        expected = f"| {spec} | {len(mine)} | {len(mine) - untaught} | {untaught} |"
        assert expected in text, f"the totals row for {spec} should read {expected}"


@pytest.mark.parametrize("spec", ["AG-UI 1.1", "A2A v1.0.1"])
def test_every_taught_row_cites_a_notebook_heading_that_exists(spec):
    cache: dict[str, set[str]] = {}
    problems = []
    for row in _rows():
        if row["spec"] != spec or row["taught_in"].startswith(NOT_TAUGHT):
            continue
        match = NOTEBOOK_CELL.match(row["taught_in"])
        if not match:
            problems.append(f"line {row['line']}: not a notebook file in backticks: {row['taught_in']}")
            continue
        name = match.group(1)
        if name not in cache:
            path = NOTEBOOKS / name
            cache[name] = _headings(path) if path.is_file() else set()
        if not cache[name]:
            problems.append(f"line {row['line']}: notebooks/{name} does not exist")
        elif row["heading"] not in cache[name]:
            problems.append(f"line {row['line']}: {name} has no heading {row['heading']!r}")
        if row["demo"] in ("", "—"):
            problems.append(f"line {row['line']}: {row['section']} says nothing about what demonstrates it")
    assert not problems, "\n".join(problems)


def test_every_untaught_row_gives_a_reason():
    problems = []
    for row in _rows():
        if not row["taught_in"].startswith(NOT_TAUGHT):
            continue
        reason = row["taught_in"][len(NOT_TAUGHT) :].strip()
        if len(reason) < 10:
            problems.append(f"line {row['line']}: {row['section']}: no reason given")
        if row["heading"] != "—" or row["demo"] != "—":
            problems.append(f"line {row['line']}: an untaught row cites a heading or a demonstration")
    assert not problems, "\n".join(problems)

"""The browser check's stand-in for nbval's run: the comparison must reject what nbval rejects."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
pytest.importorskip("nbval")

from tests.stored_outputs import differences  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


def notebook(*cells):
    nb = nbformat.v4.new_notebook()
    nb.cells = list(cells)
    return nb


def code(source: str, *outputs, count: int | None = 1, tags=()):
    cell = nbformat.v4.new_code_cell(source, execution_count=count, outputs=list(outputs))
    if tags:
        cell.metadata["tags"] = list(tags)
    return cell


def stdout(text: str):
    return nbformat.v4.new_output("stream", name="stdout", text=text)


def display(data: dict):
    return nbformat.v4.new_output("display_data", data=data)


def test_a_stored_notebook_matches_itself():
    stored = nbformat.read(ROOT / "notebooks" / "02_run_anatomy.ipynb", as_version=4)
    assert differences(copy.deepcopy(stored), stored) == []


def test_a_changed_output_is_reported_with_its_cell_and_both_sides():
    stored = notebook(code("print(1)", stdout("1\n")), code("print(2)", stdout("2\n")))
    ran = notebook(code("print(1)", stdout("1\n")), code("print(2)", stdout("3\n")))
    (problem,) = differences(ran, stored)
    assert problem.startswith("Cell 1: outputs differ\n mismatch 'stdout'")
    assert problem.index("\n  2\n") < problem.index("disagrees") < problem.index("\n  3\n")


def test_a_missing_output_is_reported():
    stored = notebook(code("show()", display({"text/plain": "x", "text/html": "<b>x</b>"})))
    assert differences(notebook(code("show()")), stored) != []


def test_streams_are_coalesced_and_carriage_returns_resolved_as_nbval_does():
    stored = notebook(code("p()", stdout("a\nb\n")))
    ran = notebook(code("p()", stdout("a\n"), stdout("x\rb\n")))
    assert differences(ran, stored) == []


def test_what_nbval_skips_is_not_compared():
    view = "application/vnd.jupyter.widget-view+json"
    stored = notebook(code("w", display({"text/plain": "W", view: {"model_id": "aaa"}, "image/png": "AAA"})))
    ran = notebook(
        code("w", display({"text/plain": "W", view: {"model_id": "bbb"}, "image/png": "BBB"}), count=7)
    )
    assert differences(ran, stored) == []


def test_nbval_markers_and_tags_are_honoured():
    stored = notebook(
        code("# NBVAL_IGNORE_OUTPUT\nnow()", stdout("12:00\n")),
        code("later()", stdout("12:01\n"), tags=["nbval-ignore-output"]),
        code("# NBVAL_SKIP\nnever()", stdout("x\n")),
    )
    ran = notebook(
        code("# NBVAL_IGNORE_OUTPUT\nnow()", stdout("13:00\n")),
        code("later()", stdout("13:01\n")),
        code("# NBVAL_SKIP\nnever()", stdout("y\n")),
    )
    assert differences(ran, stored) == []


def test_an_unrun_reference_cell_with_outputs_is_an_error():
    stored = notebook(code("print(1)", stdout("1\n"), count=None))
    assert differences(notebook(code("print(1)", stdout("1\n"))), stored) == [
        "Cell 0: unrun reference cell has outputs"
    ]


def test_the_sanitizers_apply_to_both_sides(tmp_path):
    sanitize = tmp_path / "sanitize.cfg"
    sanitize.write_text("[ids]\nregex: id-[0-9a-f]+\nreplace: ID\n")
    stored = notebook(code("new()", stdout("made id-1a2b\n")))
    ran = notebook(code("new()", stdout("made id-99ff\n")))
    assert differences(ran, stored, sanitize) == []
    assert differences(ran, stored) != []  # the repository's sanitizers know no such pattern


def test_a_notebook_with_other_code_is_not_compared_cell_by_cell():
    stored = notebook(code("a()", stdout("1\n")))
    assert differences(notebook(code("b()", stdout("1\n"))), stored) == [
        "the executed notebook's code cells are not the stored notebook's"
    ]

"""nbval's check of stored outputs, applied to a notebook that another front end executed.

``pytest --nbval`` runs a notebook in a kernel of its own and compares each code cell's fresh
outputs with the stored ones. The browser check already runs every notebook, where the learner
runs it (JupyterLab, the course-only environment, a copy outside the clone), and saves it; this
module holds that saved notebook against the repository's copy with nbval's own comparison, so
that one execution serves both checks:

* the same cell options: nbval's comment markers (``# NBVAL_IGNORE_OUTPUT``, ``# NBVAL_SKIP``, …)
  and metadata tags (``nbval-ignore-output``, …); a cell stored without an execution count is
  not compared, and one stored with outputs but never run is an error, as in nbval;
* the same normalisation: streams coalesced, ``\\r`` and ``\\b`` resolved, the sanitizers of
  ``notebooks/sanitize.cfg`` applied to both sides;
* the same comparison (``IPyNbCell.compare_outputs``), leaving out what nbval leaves out without
  ``--nbdime``: metadata, tracebacks, execution counts, widget model ids and images.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from types import SimpleNamespace

from nbformat import NotebookNode
from nbval.plugin import (
    IPyNbCell,
    coalesce_streams,
    find_comment_markers,
    find_metadata_tags,
    get_sanitize_patterns,
    nocolors,
)

SANITIZE = Path(__file__).resolve().parents[1] / "notebooks" / "sanitize.cfg"
#: What nbval's IPyNbFile skips when comparing, ``--nbdime`` not given (nbval/plugin.py).
SKIP_COMPARE = (
    "metadata",
    "traceback",
    "prompt_number",
    "output_type",
    "name",
    "execution_count",
    "application/vnd.jupyter.widget-view+json",
    "image/png",
    "image/jpeg",
)


class _Cell:
    """What nbval's ``IPyNbCell.compare_outputs`` reads of the cell it compares."""

    colors = nocolors
    compare_outputs = IPyNbCell.compare_outputs
    format_output_compare = IPyNbCell.format_output_compare
    sanitize = IPyNbCell.sanitize

    def __init__(self, patterns: dict[str, str]) -> None:
        self.parent = SimpleNamespace(skip_compare=SKIP_COMPARE, sanitize_patterns=patterns)
        self.config = None
        # no pytest assertion rewriting here: nbval falls back to printing both sides
        self.ihook = SimpleNamespace(pytest_assertrepr_compare=lambda **_: [])
        self.comparison_traceback: list[str] = []


def differences(executed: NotebookNode, stored: NotebookNode, sanitize: Path = SANITIZE) -> list[str]:
    """One entry per code cell whose fresh outputs nbval would reject (empty: the outputs are
    current). ``executed`` and ``stored`` are the same notebook, run and as committed."""
    patterns = dict(get_sanitize_patterns(sanitize.read_text(encoding="utf-8")))
    fresh = [c for c in executed.cells if c.cell_type == "code"]
    kept = [c for c in stored.cells if c.cell_type == "code"]
    if [c.source for c in fresh] != [c.source for c in kept]:
        return ["the executed notebook's code cells are not the stored notebook's"]
    problems = []
    for number, (ran, ref) in enumerate(zip(fresh, kept, strict=True)):
        options = defaultdict(bool, find_metadata_tags(ref.metadata))
        options.update(find_comment_markers(ref.source))
        if options["skip"]:
            continue
        if ref.execution_count is None:
            if ref.outputs:
                problems.append(f"Cell {number}: unrun reference cell has outputs")
            continue
        if not options.get("check", True):
            continue
        cell = _Cell(patterns)
        if not cell.compare_outputs(coalesce_streams(ran.outputs), coalesce_streams(ref.outputs)):
            problems.append(f"Cell {number}: outputs differ\n" + "\n".join(cell.comparison_traceback))
    return problems

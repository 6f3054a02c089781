"""Notebooks that read packaged data run anywhere: copied alone into a folder outside the clone.

nbval runs every notebook inside ``notebooks/``, next to the repository, where a notebook that
opened ``../data/…`` by path would still work. Here the notebooks that read the package's data
(the glossary, the question bank) are copied on their own into a temporary folder and executed
there with nbclient, in a ``python3`` kernel of the interpreter running the tests — so the same
test run against an installed wheel shows that the data ships inside the package.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
pytest.importorskip("ipykernel")

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = ["00_start_here.ipynb", "21_interview_drill.ipynb"]
CELL_TIMEOUT_S = 120


@pytest.fixture
def current_env_kernel(tmp_path_factory, monkeypatch):
    """A ``python3`` kernel spec that starts this very interpreter, first on JUPYTER_PATH."""
    root = tmp_path_factory.mktemp("jupyter")
    spec = root / "kernels" / "python3"
    spec.mkdir(parents=True)
    (spec / "kernel.json").write_text(
        json.dumps(
            {
                "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
                "display_name": "Python 3 (tests)",
                "language": "python",
            }
        )
    )
    monkeypatch.setenv("JUPYTER_PATH", str(root))
    return "python3"


def run_copy(name: str, folder: Path, kernel: str) -> nbformat.NotebookNode:
    copy = folder / name
    shutil.copyfile(ROOT / "notebooks" / name, copy)
    nb = nbformat.read(copy, as_version=4)
    client = nbclient.NotebookClient(
        nb,
        kernel_name=kernel,
        timeout=CELL_TIMEOUT_S,
        startup_timeout=60,
        allow_errors=False,
        resources={"metadata": {"path": str(folder)}},
    )
    client.execute()  # raises CellExecutionError at the first cell that fails
    return nb


def text_of(nb: nbformat.NotebookNode) -> str:
    parts = []
    for cell in nb.cells:
        for output in cell.get("outputs", []):
            parts.append(output.get("text", ""))
            data = output.get("data", {})
            parts += [data.get("text/plain", ""), data.get("text/markdown", "")]
    return "\n".join(parts)


@pytest.mark.slow
@pytest.mark.parametrize("name", NOTEBOOKS)
def test_a_notebook_copied_out_of_the_repository_runs_without_error(name, tmp_path, current_env_kernel):
    assert not tmp_path.resolve().is_relative_to(ROOT)
    nb = run_copy(name, tmp_path, current_env_kernel)
    errors = [o for c in nb.cells for o in c.get("outputs", []) if o.get("output_type") == "error"]
    assert errors == []
    if name.startswith("00_"):
        # The kernel really ran in the copy's folder: only this notebook is "available" there.
        assert "1 of 22 notebooks are available in this copy." in text_of(nb)
        assert "| term | 中文 | meaning |" in text_of(nb)  # the glossary came from the package
    else:
        assert "questions; " in text_of(nb)  # the question bank came from the package

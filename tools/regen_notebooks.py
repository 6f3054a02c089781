#!/usr/bin/env python
"""Re-execute notebooks and store clean, current outputs.

Usage: ``python tools/regen_notebooks.py [notebooks/NN_name.ipynb ...]`` (default: all).

Each notebook runs top to bottom in a fresh kernel with ``notebooks/`` as the working directory
(as under nbval), then volatile metadata is stripped so diffs show only real changes. A notebook
whose run prints to stderr or raises where no cell is tagged ``raises-exception`` is reported
and left unchanged; ``pytest --nbval`` then proves that the stored outputs are current.

The widgets' state is kept (``metadata.widgets``, as nbclient records it) so that the course
website can embed the widgets as they were left, and JupyterLab can show them before a kernel
runs. Widget model ids are random on every run; they are renamed ``0000…0001``, ``0000…0002``
… in order of appearance, so that a re-run that changes nothing changes no byte.
"""

from __future__ import annotations

import json
import re
import sys
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = ROOT / "notebooks"
KEEP_CELL_METADATA = {"tags", "jupyter", "editable", "deletable"}
WIDGET_STATE = "application/vnd.jupyter.widget-state+json"
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
MODEL_ID = re.compile(r"(?<![0-9a-f])[0-9a-f]{32}(?![0-9a-f])")


def clean(nb: nbformat.NotebookNode) -> None:
    widgets = nb.metadata.get("widgets", {}).get(WIDGET_STATE)
    nb.metadata = nbformat.from_dict(
        {
            "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
            "language_info": {"name": "python"},
        }
    )
    if widgets and widgets.get("state"):
        nb.metadata["widgets"] = nbformat.from_dict({WIDGET_STATE: widgets})
    count = 0
    for cell in nb.cells:
        cell.metadata = nbformat.from_dict(
            {k: v for k, v in cell.metadata.items() if k in KEEP_CELL_METADATA}
        )
        cell.pop("id", None)
        if cell.cell_type == "code":
            cell.outputs = merge_streams(cell.outputs)
            count += 1
            cell.execution_count = count
            for out in cell.outputs:
                if "execution_count" in out:
                    out.execution_count = count
                if out.get("output_type") in ("display_data", "execute_result"):
                    out.setdefault("metadata", {})  # required there by the nbformat schema
    renumber_widget_models(nb)


def renumber_widget_models(nb: nbformat.NotebookNode) -> None:
    """Give the widget models stable ids, in order of first appearance (state, then outputs)."""
    state = nb.metadata.get("widgets", {}).get(WIDGET_STATE, {}).get("state", {})
    if not state:
        return
    names: dict[str, str] = {}
    for model_id in state:
        names.setdefault(model_id, f"{len(names) + 1:032x}")

    def rename(text: str) -> str:
        return MODEL_ID.sub(lambda m: names.get(m.group(0), m.group(0)), text)

    nb.metadata["widgets"] = nbformat.from_dict(json.loads(rename(json.dumps(nb.metadata["widgets"]))))
    for cell in nb.cells:
        for out in cell.get("outputs", []):
            view = out.get("data", {}).get(WIDGET_VIEW)
            if view and "model_id" in view:
                view["model_id"] = names.get(view["model_id"], view["model_id"])


def merge_streams(outputs: list) -> list:
    """Join consecutive stdout (or stderr) chunks into one output, as a reader sees them."""
    merged: list = []
    for out in outputs:
        if (
            out.get("output_type") == "stream"
            and merged
            and merged[-1].get("output_type") == "stream"
            and merged[-1].get("name") == out.get("name")
        ):
            merged[-1]["text"] += out["text"]
        else:
            merged.append(out)
    return merged


def problems(nb: nbformat.NotebookNode) -> list[str]:
    found = []
    for i, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        tags = set(cell.metadata.get("tags", []))
        for out in cell.outputs:
            if out.output_type == "error" and "raises-exception" not in tags:
                found.append(f"cell {i}: {out.ename}: {out.evalue}")
            if out.get("name") == "stderr":
                found.append(f"cell {i}: stderr: {out.text[:200]!r}")
    return found


def regen(path: Path, timeout: int = 300) -> tuple[bool, float]:
    nb = nbformat.read(path, as_version=4)
    nbformat.validator.normalize(nb)
    for cell in nb.cells:
        cell.pop("id", None)
    nb.nbformat_minor = 4
    client = NotebookClient(
        nb,
        timeout=timeout,
        kernel_name="python3",
        allow_errors=True,
        resources={"metadata": {"path": str(NOTEBOOKS)}},
    )
    t0 = time.perf_counter()
    client.execute()
    elapsed = time.perf_counter() - t0
    bad = problems(nb)
    if bad:
        print(f"FAILED {path.name} ({elapsed:.1f}s):")
        for line in bad:
            print("   ", line)
        return False, elapsed
    clean(nb)
    nbformat.write(nb, path)
    print(f"ok     {path.name} ({elapsed:.1f}s)")
    return True, elapsed


def main(argv: list[str]) -> int:
    paths = [Path(a).resolve() for a in argv] or sorted(NOTEBOOKS.glob("[0-9][0-9]_*.ipynb"))
    results = [regen(p) for p in paths]
    return 0 if all(ok for ok, _ in results) else 1


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))

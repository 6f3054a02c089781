#!/usr/bin/env python
"""``make present NB=notebooks/10_a2a_task_lifecycle.ipynb``: one notebook as a live slide-free page.

Usage: ``python tools/present.py NOTEBOOK [--port 8866] [--open]``

Serves the notebook through Voilà on 127.0.0.1: Voilà runs it in a fresh kernel and shows its
prose, outputs and live widgets, and none of its code — what an instructor puts on the
projector while talking through a lesson. Ctrl-C stops it. Exit status: Voilà's; ``2`` if the
notebook does not exist.

Voilà runs a scratch copy: the notebook's folder is copied into a temporary folder (the kernel
runs there, as it would in the notebook's own folder) with the presented notebook's stored
outputs cleared, so nothing is written next to the original and a stored output that does not
match the notebook format's schema cannot stop the page. The copy is removed at the end.
"""

from __future__ import annotations

import argparse
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

import nbformat

DEFAULT_PORT = 8866


def voila_command(notebook: Path, port: int, open_browser: bool = False) -> list[str]:
    """The Voilà command line: loopback only, sources stripped, tracebacks shown to the presenter."""
    cmd = [
        sys.executable,
        "-m",
        "voila",
        notebook.name,
        f"--port={port}",
        "--Voila.ip=127.0.0.1",
        "--strip_sources=True",
        "--VoilaConfiguration.show_tracebacks=True",
        "--VoilaConfiguration.file_allowlist=['.*\\.(png|jpg|gif|svg|csv|json)']",
    ]
    if not open_browser:
        cmd.append("--no-browser")
    return cmd


def scratch_copy(notebook: Path) -> Path:
    """The notebook's folder copied to a temporary folder; the notebook's outputs cleared."""
    folder = Path(tempfile.mkdtemp(prefix="agentproto-present-"))
    for item in notebook.parent.iterdir():
        if item.is_file() and item.suffix in (".ipynb", ".md", ".json", ".csv", ".png", ".svg"):
            shutil.copyfile(item, folder / item.name)
    nb = nbformat.read(notebook, as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
    nb.metadata.pop("widgets", None)
    nbformat.write(nb, folder / notebook.name)
    return folder / notebook.name


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("notebook", type=Path)
    parser.add_argument("--port", type=int, default=DEFAULT_PORT)
    parser.add_argument("--open", action="store_true", help="open a web browser on the page")
    args = parser.parse_args(argv)
    notebook = args.notebook.resolve()
    if not notebook.is_file() or notebook.suffix != ".ipynb":
        print(f"present: no notebook {args.notebook}", file=sys.stderr)
        return 2
    copy = scratch_copy(notebook)
    cmd = voila_command(copy, args.port, args.open)
    print(
        f"Presenting {notebook.name} on http://127.0.0.1:{args.port}/ (code hidden). Ctrl-C stops it.",
        flush=True,
    )
    proc = subprocess.Popen(cmd, cwd=copy.parent)

    def forward(signum: int, _frame: object) -> None:
        proc.send_signal(signum)

    signal.signal(signal.SIGTERM, forward)
    try:
        return proc.wait()
    except KeyboardInterrupt:  # Voilà got the Ctrl-C too
        try:
            return proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            return proc.wait()
    finally:
        if proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        shutil.rmtree(copy.parent, ignore_errors=True)


if __name__ == "__main__":
    raise SystemExit(main())

#!/usr/bin/env python
"""``make present [NB=notebooks/10_a2a_task_lifecycle.ipynb]``: the course as live, code-free pages.

Usage: ``python tools/present.py [NOTEBOOK | FOLDER] [--port 8866] [--open]``

Serves the course folder (``notebooks/``, or the folder of the notebook given) through Voilà's
tree mode on 127.0.0.1: every notebook is a page at ``/voila/render/NN_name.ipynb`` of the
one server, and ``/`` lists them, so the presenter moves from lesson to lesson without a
restart. Each page runs its notebook in a fresh kernel and shows its prose, outputs and live
widgets, and none of its code — what an instructor puts on the projector while talking
through a lesson. The URL of the notebook asked for (or of the listing) is printed, and with
``--open`` opened in a web browser once Voilà answers. Ctrl-C stops it. Exit status: Voilà's;
``2`` if the notebook or folder does not exist.

Kernels: a page's kernel lives while the page is open — its servers (notebook 06's portal, ...)
keep answering the widgets. Leaving or reloading a page shuts its kernel down (Voilà's page
sends that request when it unloads; :data:`VOILA_CONFIG` makes sure the server accepts it), and
going back to a page runs it again in a new kernel: Voilà serves pages as ``no-store``, so the
browser fetches them afresh. A page left before it finished loading, or a browser that died,
never sends that request; such a kernel, once it has had no page connected and no activity for
:data:`CULL_IDLE_S` seconds, is culled, so a class on one laptop does not pile up kernels. A
kernel with a page connected is never culled, however long the presenter talks.

Voilà runs a scratch copy: the folder's notebooks and data files are copied into a temporary
folder (kernels run there, as they would in the course folder) with every notebook's stored
outputs cleared, so nothing is written next to the originals and a stored output that does not
match the notebook format's schema cannot stop a page. The copy (and the configuration file
beside it) is removed at the end.
"""

from __future__ import annotations

import argparse
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
import webbrowser
from pathlib import Path

import nbformat
from jupyter_core.paths import jupyter_config_path

DEFAULT_PORT = 8866
ROOT = Path(__file__).resolve().parents[1]
COURSE = ROOT / "notebooks"
#: Files of the course folder that the scratch copy carries (notebooks and what they may read).
COPIED_SUFFIXES = (".ipynb", ".md", ".json", ".csv", ".png", ".svg")
#: A kernel with no page connected and no activity for this long is shut down ...
CULL_IDLE_S = 600
#: ... checked this often.
CULL_INTERVAL_S = 60
#: The Voilà configuration a command line cannot carry (a function), written beside the scratch
#: copy. Voilà's page asks the server to shut its kernel down when it unloads, with the ``_xsrf``
#: cookie as its proof; but only Voilà's listing sets that cookie, so a page opened straight from
#: its URL (the one ``make present NB=...`` prints) is refused with a 403 and its kernel stays
#: (voila-dashboards/voila#1458). The hook has each page set the cookie, as the listing does.
VOILA_CONFIG = '''\
"""Written by tools/present.py for `make present`: the part of its Voila configuration that
a command line cannot carry."""


def set_xsrf_cookie(handler, notebook, cwd):
    """Give the page the _xsrf cookie that its "shut my kernel down" request needs."""
    handler.xsrf_token  # tornado sets the cookie on first access


c.VoilaConfiguration.prelaunch_hook = set_xsrf_cookie
'''


def voila_command(
    root: Path, port: int, *, cull_idle_s: int = CULL_IDLE_S, cull_interval_s: int = CULL_INTERVAL_S
) -> list[str]:
    """The Voilà command line for the folder ``root`` (made by :func:`scratch_course`) in tree mode.

    Its configuration comes first from the file :func:`scratch_course` wrote beside ``root``,
    then from the usual Jupyter places. Loopback only, on exactly ``port`` (no silent move to
    another one), sources stripped, tracebacks shown to the presenter, kernels culled as the
    module docstring says (the test of that policy shortens the two times). Voilà never opens
    a browser itself: it would open the listing, not the page asked for.
    """
    return [
        sys.executable,
        "-m",
        "voila",
        str(root),
        *(f"--Voila.config_file_paths={path}" for path in [root.parent, *jupyter_config_path()]),
        f"--port={port}",
        "--Voila.ip=127.0.0.1",
        "--Voila.port_retries=0",
        "--no-browser",
        "--strip_sources=True",
        "--VoilaConfiguration.show_tracebacks=True",
        "--VoilaConfiguration.file_allowlist=.*\\.(png|jpg|gif|svg|csv|json)",
        # JupyterLab's Jupytext menu does not load in Voilà's page (a console error) and has
        # nothing to do there
        "--VoilaConfiguration.extension_denylist=jupyterlab-jupytext",
        f"--MappingKernelManager.cull_idle_timeout={cull_idle_s}",
        f"--MappingKernelManager.cull_interval={cull_interval_s}",
        "--MappingKernelManager.cull_connected=False",
        "--MappingKernelManager.cull_busy=False",
    ]


def page_url(base: str, notebook: str | None = None) -> str:
    """The URL of ``notebook``'s page (a name in the served folder), or of the listing."""
    base = base.rstrip("/") + "/"
    return f"{base}voila/render/{notebook}" if notebook else base


def scratch_course(folder: Path) -> Path:
    """``folder``'s notebooks and data files copied to a temporary folder, outputs cleared.

    The copy is ``TMP/<folder's name>``, and beside it ``TMP/voila.py`` holds
    :data:`VOILA_CONFIG`; remove the whole ``TMP`` (the copy's parent) when done.
    """
    scratch = Path(tempfile.mkdtemp(prefix="agentproto-present-"))
    (scratch / "voila.py").write_text(VOILA_CONFIG, encoding="utf-8")
    copy = scratch / folder.name
    copy.mkdir()
    for item in sorted(folder.iterdir()):
        if not item.is_file() or item.suffix not in COPIED_SUFFIXES:
            continue
        if item.suffix != ".ipynb":
            shutil.copyfile(item, copy / item.name)
            continue
        nb = nbformat.read(item, as_version=4)
        for cell in nb.cells:
            if cell.cell_type == "code":
                cell.outputs, cell.execution_count = [], None
        nb.metadata.pop("widgets", None)
        nbformat.write(nb, copy / item.name)
    return copy


def wait_until_serving(base: str, proc: subprocess.Popen, timeout_s: float = 90) -> bool:
    """Wait until Voilà at ``base`` answers (a static file, no kernel started); False if it
    exited or did not answer in time."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline and proc.poll() is None:
        try:
            with urllib.request.urlopen(base.rstrip("/") + "/voila/static/", timeout=2):
                return True
        except urllib.error.HTTPError as exc:  # a 404 is an answer too
            return exc.code < 500
        except OSError:
            time.sleep(0.3)
    return False


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "target",
        type=Path,
        nargs="?",
        default=COURSE,
        help="a notebook (its folder is served, its page shown) or a folder (default: notebooks/)",
    )
    parser.add_argument("--port", type=int, default=DEFAULT_PORT)
    parser.add_argument("--open", action="store_true", help="open a web browser on the page")
    args = parser.parse_args(argv)
    target = args.target.resolve()
    if target.is_dir():
        folder, notebook = target, None
    elif target.is_file() and target.suffix == ".ipynb":
        folder, notebook = target.parent, target.name
    else:
        print(f"present: no notebook or folder {args.target}", file=sys.stderr)
        return 2
    copy = scratch_course(folder)
    base = f"http://127.0.0.1:{args.port}/"
    url = page_url(base, notebook)
    shown = notebook or f"the notebooks of {folder.name}/"
    print(f"Presenting {shown} on {url} (code hidden).", flush=True)
    print(f"Every notebook of the folder: {base} — Ctrl-C stops it.", flush=True)
    proc = subprocess.Popen(voila_command(copy, args.port), cwd=copy)

    def forward(signum: int, _frame: object) -> None:
        proc.send_signal(signum)

    signal.signal(signal.SIGTERM, forward)
    try:
        if args.open and wait_until_serving(base, proc):
            webbrowser.open(url)
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

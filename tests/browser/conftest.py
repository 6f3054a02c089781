"""The browser check's fixtures: JupyterLab on a copy of the course, and headless Chromium.

JupyterLab and its kernels come from the learner's environment: the built wheel with the
``course`` extra only, in a venv outside the checkout (envs.shared_course_env), serving the
notebooks copied alone into a scratch folder. So a notebook that needs a test tool or another
extra, or reads a file of the clone by a relative path, fails here as it would for a learner.

Module-scoped, so each of the two browser modules (the course's two halves) gets its own
JupyterLab, browser and page, and the halves can run on two xdist workers at once. The page
(``lab_page``) is opened once: each notebook is opened in it, as a learner opens one notebook
after another, rather than booting JupyterLab again for every notebook.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from pathlib import Path

import httpx
import nbformat
import pytest

from tests.envs import clean_env, shared_course_env
from tests.servers import free_port

ROOT = Path(__file__).resolve().parents[2]


class Lab:
    """A running JupyterLab: its base URL, and the folder it serves (``notebooks/`` inside)."""

    def __init__(self, base: str, root: Path) -> None:
        self.base, self.root = base, root


@pytest.fixture(scope="module")
def lab(tmp_path_factory, chromium_path) -> Lab:
    """JupyterLab of the course environment on a free loopback port, serving a copy of the course."""
    course_env = shared_course_env(tmp_path_factory)
    root = tmp_path_factory.mktemp("course")
    shutil.copytree(ROOT / "notebooks", root / "notebooks")
    for path in (root / "notebooks").glob("*.ipynb"):  # start from blank outputs, as a learner
        nb = nbformat.read(path, as_version=4)  # who clears them would
        for cell in nb.cells:
            if cell.cell_type == "code":
                cell.outputs, cell.execution_count = [], None
        nbformat.write(nb, path)
    port = free_port()
    log = open(root / "jupyter.log", "wb")
    proc = subprocess.Popen(
        [
            str(course_env / "bin" / "jupyter"),
            "lab",
            "--no-browser",
            "--ip=127.0.0.1",
            f"--port={port}",
            "--IdentityProvider.token=",
            "--ServerApp.password=",
            "--ServerApp.disable_check_xsrf=True",
            f"--ServerApp.root_dir={root}",
            "--LabApp.news_url=",
            # window.jupyterapp: the check opens, saves and closes notebooks with JupyterLab's
            # own commands, in one page
            "--LabApp.expose_app_in_browser=True",
            # a private, empty workspace store: no tabs restored from an earlier session
            f"--LabApp.workspaces_dir={root / 'workspaces'}",
            f"--LabApp.user_settings_dir={root / 'settings'}",
        ]
        + (["--allow-root"] if hasattr(os, "geteuid") and os.geteuid() == 0 else []),
        stdout=log,
        stderr=subprocess.STDOUT,
        cwd=root,
        env=clean_env(
            JUPYTER_CONFIG_DIR=str(root / "jupyter-config"), JUPYTER_DATA_DIR=str(root / "jupyter-data")
        ),
    )
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"{base}/api/status", timeout=2).status_code == 200:
                break
        except httpx.HTTPError:
            pass
        if proc.poll() is not None:
            pytest.fail("jupyter lab exited:\n" + (root / "jupyter.log").read_text()[-2000:])
        time.sleep(0.5)
    else:
        proc.terminate()
        pytest.fail("jupyter lab did not start within 90 s")
    yield Lab(base, root)
    proc.terminate()
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()
    log.close()


class LabPage:
    """One JupyterLab page in Chromium, and the JavaScript errors it has raised so far."""

    def __init__(self, page) -> None:
        self.page, self.errors = page, []
        page.on("pageerror", lambda exc: self.errors.append(str(exc)))

    def command(self, name: str, args: dict | None = None):
        """Run a JupyterLab command (as a menu or a shortcut would) and wait for its promise."""
        return self.page.evaluate(
            "([name, args]) => window.jupyterapp.commands.execute(name, args).then(() => null)",
            [name, args or {}],
        )

    def start(self, name: str) -> None:
        """Start a JupyterLab command and return at once (e.g. Run All Cells: the check then
        waits for the cells, with its own deadline)."""
        self.page.evaluate("(name) => { window.jupyterapp.commands.execute(name); }", name)

    def close_all(self) -> None:
        """Shut down the kernel of every open document and close it, unsaved changes dropped:
        the next notebook starts alone, with no kernel of an earlier one left running. (The
        shutdown is asked for, not waited for: the next kernel may start while this one ends.)"""
        self.page.evaluate(
            """() => {
                const sessions = window.jupyterapp.serviceManager.sessions;
                for (const w of [...window.jupyterapp.shell.widgets('main')]) {
                    const session = w.sessionContext?.session;
                    if (session) { sessions.shutdown(session.id); }
                    if (w.context) { w.context.model.dirty = false; }
                    w.dispose();
                }
            }"""
        )


@pytest.fixture(scope="module")
def lab_page(lab, browser):
    """JupyterLab loaded once in a fresh workspace, with no document open."""
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.goto(f"{lab.base}/lab/workspaces/browser-check?reset", wait_until="domcontentloaded")
    shell = "() => window.jupyterapp && document.querySelector('.jp-LabShell')"
    page.wait_for_function(shell, timeout=90_000)
    page.evaluate("() => window.jupyterapp.started.then(() => window.jupyterapp.restored)")
    yield LabPage(page)
    page.close()

"""``make present``: one notebook through Voilà, shown in Chromium with outputs and widgets, no code.

Starts ``tools/present.py`` on a free loopback port with notebook 10, opens the page in
headless Chromium, waits until Voilà has run every cell, and checks what an audience sees:
outputs, plots and live widgets (a click reaches the kernel and comes back), no source code,
no error. Then stops Voilà and its kernel. Skipped when Chromium is absent, unless
``REQUIRE_BROWSER=1``.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
from servers import CHROMIUM_ARGS, free_port

pytestmark = [pytest.mark.browser, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOK = ROOT / "notebooks" / "10_a2a_task_lifecycle.ipynb"


def _code_lines() -> list[str]:
    """Distinctive lines of the notebook's code cells (long, not comments)."""
    import nbformat

    nb = nbformat.read(NOTEBOOK, as_version=4)
    lines = [ln.strip() for c in nb.cells if c.cell_type == "code" for ln in c.source.splitlines()]
    return [ln for ln in lines if len(ln) > 30 and not ln.startswith("#")]


@pytest.fixture(scope="module")
def voila(tmp_path_factory, chromium_path) -> str:
    port = free_port()
    log_path = tmp_path_factory.mktemp("present") / "voila.log"
    log = open(log_path, "wb")  # closed below
    proc = subprocess.Popen(
        [sys.executable, str(ROOT / "tools" / "present.py"), str(NOTEBOOK), "--port", str(port)],
        cwd=ROOT,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    base = f"http://127.0.0.1:{port}/"
    try:
        deadline = time.monotonic() + 90
        while True:
            try:  # a static file answers without running the notebook
                if httpx.get(base + "voila/static/", timeout=2).status_code < 500:
                    break
            except httpx.HTTPError:
                pass
            if proc.poll() is not None:
                pytest.fail("present.py exited:\n" + log_path.read_text()[-3000:])
            if time.monotonic() > deadline:
                pytest.fail("Voilà did not start within 90 s:\n" + log_path.read_text()[-3000:])
            time.sleep(0.5)
        yield base
    finally:
        try:
            os.killpg(proc.pid, signal.SIGTERM)  # present.py, Voilà and the kernel: a group of our own
        except ProcessLookupError:
            pass
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        log.close()


def test_the_notebook_is_presented_with_outputs_and_widgets_and_no_code(voila, chromium_path, tmp_path):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium_path, headless=True, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1300, "height": 1000})
            errors: list[str] = []
            page.on("pageerror", lambda exc: errors.append(str(exc)))
            page.goto(voila, wait_until="domcontentloaded", timeout=120_000)
            # Voilà streams the page while the kernel runs the cells; the widgets come last
            page.wait_for_selector(".jp-OutputArea-output", state="attached", timeout=120_000)
            page.wait_for_selector(".jupyter-widgets button", state="attached", timeout=120_000)
            page.wait_for_load_state("load", timeout=120_000)
            page.screenshot(path=str(tmp_path / "present.png"), full_page=True)
            text = page.inner_text("body")
            assert "Traceback" not in text and "Error displaying widget" not in text
            assert (
                page.locator(".jp-OutputArea-output[data-mime-type='application/vnd.jupyter.stderr']").count()
                == 0
            )
            # no code: no input areas, no editors
            assert (
                page.locator(
                    ".jp-CodeCell .jp-InputArea, .jp-CodeMirrorEditor, .cm-editor, .highlight-ipynb"
                ).count()
                == 0
            )
            shown = [line for line in _code_lines() if line in text]
            assert not shown, f"source code on the page: {shown[:5]}"
            # prose, outputs, plots and widgets are there
            assert page.locator(".jp-MarkdownOutput, .jp-RenderedMarkdown").count() > 3
            assert page.locator(".jp-OutputArea-output").count() > 3
            images = page.evaluate("[...document.images].map(i => i.complete && i.naturalWidth > 0)")
            assert images and all(images)
            assert page.locator(".jupyter-widgets").count() > 0
            # the widgets are live: a click reaches the kernel and its answer comes back
            button = page.locator(".jupyter-widgets button", has_text="Check my answers").first
            button.scroll_into_view_if_needed()
            button.click()
            page.wait_for_function(
                "() => [...document.querySelectorAll('.jupyter-widgets')]"
                ".some(e => e.textContent.includes('Score:'))",
                timeout=30_000,
            )
            assert not errors, errors
        finally:
            browser.close()

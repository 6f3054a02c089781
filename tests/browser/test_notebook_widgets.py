"""A real browser check: JupyterLab in Debian's Chromium runs notebooks and renders widgets.

A learner's browser must render the widgets (a missing front-end extension shows "Error
displaying widget" and nothing else), and the stored outputs must be what a fresh run gives.
This test starts JupyterLab on 127.0.0.1 with a copy of the course, in the course-only
environment, and in one headless Chromium page (Playwright) opens each notebook, runs all
cells, saves it and checks:

* the stored outputs are current: the saved notebook against the repository's, with nbval's
  own comparison and sanitizers (tests/stored_outputs.py), so this one run is also the
  ``pytest --nbval`` check, where the learner stands; ``make test`` then leaves nbval's own
  run of ``notebooks/`` out (see the root conftest.py);
* widgets rendered, no cell errored or wrote to stderr, no JavaScript error;
* clicking a widget button does something (the kernel answers).

Then the notebook's kernel is shut down and its tab closed before the next one opens.
Skipped when Chromium is absent, unless ``REQUIRE_BROWSER=1`` (as in CI), where it fails.
Playwright's own browser downloads are not used: the system Chromium is driven directly.
"""

from __future__ import annotations

import time
import warnings
from pathlib import Path

import nbformat
import pytest

from tests.stored_outputs import differences

try:
    from playwright.sync_api import TimeoutError as PlaywrightTimeout
except ImportError:  # the browser fixture skips these tests without Playwright
    PlaywrightTimeout = TimeoutError

pytestmark = [pytest.mark.browser, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[2]
#: Every notebook of the course is checked in the browser.
NOTEBOOKS = sorted(p.name for p in (ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
#: The widget clicked in each notebook, and text that shows the kernel answered: the quiz's
#: "Check my answers" everywhere except the interview drill, which has no quiz.
DEFAULT_CLICK = ("Check my answers", "Score:")
CLICKS = {"21_interview_drill.ipynb": ("Reveal pass answer", "Pass:")}


class NotReady(Exception):
    """The notebook's kernel never became ready, or its cells never finished, by the deadline."""


def _wait_until_kernel_idle(page, path: str, timeout_ms: int) -> None:
    """The notebook at ``path`` is the current document and the status bar reads "… | Idle":
    its kernel has started and is connected ("Run All Cells" clicked before that, with a
    kernel slow to start on a busy machine, runs nothing; clicked with another document
    current, it runs that one). JupyterLab may first ask which kernel to start; the
    notebook's own (Python 3) is right. Whichever comes first is waited for, never a fixed
    time."""
    idle_or_asked = """(path) => {
        const shell = window.jupyterapp.shell;
        const panel = [...shell.widgets('main')].find(w => w.context?.path === path);
        if (panel && shell.currentWidget !== panel) { shell.activateById(panel.id); }
        const bar = document.querySelector('#jp-main-statusbar, .jp-StatusBar-Widget');
        const idle = shell.currentWidget === panel && bar !== null && /\\|\\s*Idle\\b/.test(bar.innerText);
        const asked = [...document.querySelectorAll('.jp-Dialog button')]
            .some(b => b.textContent.trim() === 'Select');
        return idle ? 'idle' : asked ? 'asked' : false;
    }"""
    try:
        if page.wait_for_function(idle_or_asked, arg=path, timeout=timeout_ms).json_value() == "asked":
            page.locator(".jp-Dialog button", has_text="Select").click()
            page.wait_for_function(
                f"(path) => ({idle_or_asked})(path) === 'idle'", arg=path, timeout=timeout_ms
            )
    except PlaywrightTimeout as exc:
        raise NotReady(f"the kernel was not idle within {timeout_ms / 1000:.0f} s") from exc


def _wait_until_executed(page, timeout_s: float) -> None:
    """Every code cell of the notebook's model has an execution count, none is running, and
    the kernel is idle again (its status comes after the last cell's outputs on the same
    channel, so by then every output has arrived). The model, not the page: JupyterLab
    renders only the cells near the viewport, so the page may not hold the last ones."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        state = _state(page)
        finished = state["total"] and state["done"] == state["total"] and not state["busy"]
        if finished and state["kernel"] == "idle":
            return
        time.sleep(0.25)
    raise NotReady(f"the cells did not finish within {timeout_s:.0f} s")


def _state(page) -> dict:
    """What the open notebook's model, kernel connection, status bar and dialogs say."""
    return page.evaluate(
        """() => {
            const panel = window.jupyterapp.shell.currentWidget;
            const cells = panel?.content?.model
                ? [...panel.content.model.cells].filter(c => c.type === 'code') : [];
            const kernel = panel?.sessionContext?.session?.kernel;
            return {path: panel?.context?.path ?? null,
                    total: cells.length,
                    done: cells.filter(c => c.executionCount !== null).length,
                    busy: cells.filter(c => c.executionState === 'running').length,
                    kernel: kernel ? kernel.status : 'none',
                    connection: kernel ? kernel.connectionStatus : 'none',
                    statusbar: document.querySelector('#jp-main-statusbar')?.innerText ?? null,
                    dialogs: [...document.querySelectorAll('.jp-Dialog')].map(d => d.innerText)};
        }"""
    )


#: The deadlines of the two tries at running a notebook (kernel idle, all cells finished), in
#: seconds. A notebook takes 5–25 s here; both tries together stay inside the 300 s a test may take.
TRIES = ((60, 120), (60, 120))


def _run_all(lab, lab_page, name: str) -> None:
    """Open ``name``, wait for its kernel, Run All Cells, and wait until every cell has run.

    A kernel that never became ready is the one failure tried again: CI once saw a kernel
    stay un-idle for 120 s on a loaded machine, where the same notebook ran in 19 s before
    and after. The first try's state and the server's log are kept as a warning (shown in the
    run's summary), the notebook is closed with its kernel, and it is opened once more; a
    second failure fails the test with both reports. A notebook that fails its checks is
    never tried again.
    """
    page, reports = lab_page.page, []
    for kernel_s, cells_s in TRIES:
        try:
            lab_page.command("docmanager:open", {"path": f"notebooks/{name}"})
            page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=60_000)
            _wait_until_kernel_idle(page, f"notebooks/{name}", timeout_ms=kernel_s * 1000)
            lab_page.start("runmenu:run-all")  # what Run ▸ Run All Cells runs
            _wait_until_executed(page, timeout_s=cells_s)
            return
        except NotReady as exc:
            log = (lab.root / "jupyter.log").read_text(errors="replace")[-3000:]
            reports.append(f"{name}: {exc}; the page: {_state(page)}\njupyter.log ends:\n{log}")
            lab_page.close_all()
            if len(reports) < len(TRIES):
                warnings.warn(reports[-1] + "\n(tried once more)", stacklevel=2)
    raise AssertionError("\n\n".join(reports))


#: This module checks the first half of the course; test_notebook_widgets_second_half.py the
#: rest, with its own JupyterLab, so that under ``make test`` (a file to a worker) both halves
#: run side by side.
FIRST_HALF = NOTEBOOKS[: len(NOTEBOOKS) // 2]


@pytest.mark.parametrize("name", FIRST_HALF)
def test_notebook_runs_in_jupyterlab_with_current_outputs_and_live_widgets(lab, lab_page, name, tmp_path):
    check_notebook_in_browser(lab, lab_page, name, tmp_path)


def check_notebook_in_browser(lab, lab_page, name, tmp_path) -> None:
    """Open ``name`` in the JupyterLab page, run all cells, save, compare the outputs with the
    stored ones (nbval's rules), check widgets, stderr and JS errors, and click a widget."""
    if not (ROOT / "notebooks" / name).exists():
        pytest.fail(f"{name} is listed for the browser check but does not exist")
    page, errors_before = lab_page.page, len(lab_page.errors)
    try:
        _run_all(lab, lab_page, name)
        page.screenshot(path=str(tmp_path / f"{name}.executed.png"), full_page=False)

        # the stored outputs are current: this run is nbval's run too
        lab_page.command("docmanager:save")
        executed = nbformat.read(lab.root / "notebooks" / name, as_version=4)
        stored = nbformat.read(ROOT / "notebooks" / name, as_version=4)
        stale = differences(executed, stored)
        assert not stale, f"{name}: stored outputs differ from a run in JupyterLab:\n" + "\n\n".join(stale)

        page.wait_for_selector(".jupyter-widgets", state="attached", timeout=30_000)
        text = page.inner_text(".jp-Notebook")
        assert "Error displaying widget" not in text
        assert page.locator(".jupyter-widgets").count() > 0
        assert (
            page.locator(".jp-OutputArea-output[data-mime-type='application/vnd.jupyter.stderr']").count()
            == 0
        ), "a cell wrote to stderr (error or warning)"
        assert "Traceback" not in text

        # The widgets are alive: a click reaches the kernel and comes back as new output.
        label, answer = CLICKS.get(name, DEFAULT_CLICK)
        before = page.inner_text(".jp-Notebook").count(answer)
        button = page.locator(".jupyter-widgets button", has_text=label).first
        button.scroll_into_view_if_needed()
        button.click()
        page.wait_for_function(
            "([answer, before]) => document.querySelector('.jp-Notebook').innerText"
            ".split(answer).length - 1 > before",
            arg=[answer, before],
            timeout=30_000,
        )
        page.screenshot(path=str(tmp_path / f"{name}.png"), full_page=False)
        errors = lab_page.errors[errors_before:]
        assert not errors, f"JavaScript errors on the page: {errors}"
    except BaseException:
        page.screenshot(path=str(tmp_path / f"{name}.failure.png"), full_page=False)
        raise
    finally:
        lab_page.close_all()

"""A real browser check: JupyterLab in Debian's Chromium runs notebooks and renders widgets.

nbval proves that the notebooks' stored outputs are current, but not that a learner's browser
can render the widgets (a missing front-end extension shows "Error displaying widget" and
nothing else). This test starts JupyterLab on 127.0.0.1 with a copy of the course, opens each
notebook in headless Chromium through Playwright, runs all cells, and checks that widgets
rendered, that no cell errored, and that clicking a widget button does something.

Skipped when Chromium is absent, unless ``REQUIRE_BROWSER=1`` (as in CI), where it fails.
Playwright's own browser downloads are not used: the system Chromium is driven directly.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[2]
#: Every notebook of the course is checked in the browser.
NOTEBOOKS = sorted(p.name for p in (ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
#: The widget clicked in each notebook, and text that shows the kernel answered: the quiz's
#: "Check my answers" everywhere except the interview drill, which has no quiz.
DEFAULT_CLICK = ("Check my answers", "Score:")
CLICKS = {"21_interview_drill.ipynb": ("Reveal pass answer", "Pass:")}


def _wait_until_kernel_idle(page, timeout_ms: int = 120_000) -> None:
    """The status bar reads "… | Idle": the kernel has started and is connected ("Run All
    Cells" clicked before that, with a kernel slow to start on a busy machine, runs nothing).
    JupyterLab may first ask which kernel to start; the notebook's own (Python 3) is right.
    Whichever comes first is waited for, never a fixed time."""
    idle_or_asked = """() => {
        const bar = document.querySelector('#jp-main-statusbar, .jp-StatusBar-Widget');
        const idle = bar !== null && /\\|\\s*Idle\\b/.test(bar.innerText);
        const asked = [...document.querySelectorAll('.jp-Dialog button')]
            .some(b => b.textContent.trim() === 'Select');
        return idle ? 'idle' : asked ? 'asked' : false;
    }"""
    if page.wait_for_function(idle_or_asked, timeout=timeout_ms).json_value() == "asked":
        page.locator(".jp-Dialog button", has_text="Select").click()
        page.wait_for_function(f"() => ({idle_or_asked})() === 'idle'", timeout=timeout_ms)


def _run_all_cells(page) -> None:
    page.get_by_role("menuitem", name="Run", exact=True).click()
    page.get_by_role("menuitem", name="Run All Cells", exact=True).click()


def _wait_until_executed(page, timeout_s: float = 120) -> None:
    """Every code cell has a number and the kernel is idle."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        state = page.evaluate(
            """() => {
                const prompts = [...document.querySelectorAll('.jp-CodeCell .jp-InputArea-prompt')]
                    .map(p => p.textContent.trim());
                return {total: prompts.length,
                        done: prompts.filter(t => /^\\[\\d+\\]:$/.test(t)).length,
                        busy: prompts.filter(t => t === '[*]:').length};
            }"""
        )
        if state["total"] and state["done"] == state["total"] and not state["busy"]:
            return
        time.sleep(0.5)
    raise AssertionError(f"cells did not finish executing within {timeout_s} s: {state}")


#: This module checks the first half of the course; test_notebook_widgets_second_half.py the
#: rest, with its own JupyterLab, so that under ``make test`` (a file to a worker) both halves
#: run side by side.
FIRST_HALF = NOTEBOOKS[: len(NOTEBOOKS) // 2]


@pytest.mark.parametrize("name", FIRST_HALF)
def test_notebook_runs_in_jupyterlab_and_its_widgets_render(lab, browser, name, tmp_path):
    check_notebook_in_browser(lab, browser, name, tmp_path)


def check_notebook_in_browser(lab, browser, name, tmp_path) -> None:
    """Open ``name`` in JupyterLab, run all cells, check widgets, stderr and JS errors, click."""
    if not (ROOT / "notebooks" / name).exists():
        pytest.fail(f"{name} is listed for the browser check but does not exist")
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    try:
        # one fresh workspace per notebook, so only this notebook's tab (and kernel) is open
        workspace = name.removesuffix(".ipynb").replace("_", "-")
        page.goto(
            f"{lab}/lab/workspaces/{workspace}/tree/notebooks/{name}?reset", wait_until="domcontentloaded"
        )
        page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=60_000)
        page.wait_for_selector(
            ".jp-Notebook-ExecutionIndicator[data-status='idle'], .jp-Toolbar-kernelStatus", timeout=60_000
        )
        _wait_until_kernel_idle(page)
        _run_all_cells(page)
        _wait_until_executed(page)
        page.screenshot(path=str(tmp_path / f"{name}.executed.png"), full_page=False)
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
        assert not errors, f"JavaScript errors on the page: {errors}"
    except BaseException:
        page.screenshot(path=str(tmp_path / f"{name}.failure.png"), full_page=False)
        raise
    finally:
        page.close()

"""``make present``: the course through Voilà's tree mode, in Chromium, with outputs and widgets, no code.

Starts ``tools/present.py`` as ``make present NB=notebooks/10_a2a_task_lifecycle.ipynb`` does,
on a free loopback port, and checks what the instructor gets:

* it prints the URL of notebook 10's page, ``/voila/render/10_a2a_task_lifecycle.ipynb``;
  what every page shows (outputs, plots, live widgets, no source code, no error, answer keys
  closed) is the Voilà check's (tests/browser/test_voila_first_half.py), which runs every
  notebook with present's own command line, so it is not checked a second time here;
* the listing at ``/`` names every notebook, and opening one from it shows that notebook's page
  from the same server: switching notebooks needs no restart;
* leaving a page shuts its kernel down, and going back runs the page again in a new kernel
  whose widgets answer.

Then the kernel policy, on a second Voilà started with present's own command line with its two
cull times shortened: a page abandoned without unloading (a browser that died) loses its kernel,
and an open page left idle for longer keeps it and still answers. Fast checks without a browser
cover the scratch copy, the command line, ``make present`` with and without ``NB`` and a missing
notebook. The browser tests are skipped when Chromium is absent, unless ``REQUIRE_BROWSER=1``.
"""

from __future__ import annotations

import datetime
import importlib.util
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import nbformat
import pytest

from tests.servers import free_port

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOK = ROOT / "notebooks" / "10_a2a_task_lifecycle.ipynb"
NOTEBOOKS = sorted(p.name for p in (ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
#: A short notebook to move to and back from.
OTHER = "00_start_here.ipynb"
TIMEOUT_MS = 180_000  # a deadline for a page to run all its cells on a busy machine


def _load_present():
    spec = importlib.util.spec_from_file_location("present", ROOT / "tools" / "present.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


present = _load_present()


def _stop(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGTERM)  # present.py, Voilà and the kernels: a group of our own
    except ProcessLookupError:
        pass
    try:
        proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()


@pytest.fixture(scope="module")
def presented(tmp_path_factory, chromium_path) -> dict:
    """``tools/present.py notebooks/10_...ipynb --port P``: its printed page URL and its server."""
    port = free_port()
    log_path = tmp_path_factory.mktemp("present") / "present.log"
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
        if not present.wait_until_serving(base, proc, timeout_s=120):
            pytest.fail("present.py did not serve:\n" + log_path.read_text()[-3000:])
        printed = re.search(r"Presenting .* on (http://\S+)", log_path.read_text())
        yield {"base": base, "url": printed and printed.group(1), "log": log_path}
    finally:
        _stop(proc)
        log.close()


def _new_page(browser):
    page = browser.new_page(viewport={"width": 1300, "height": 1000})
    page.errors = []
    page.on("pageerror", lambda exc: page.errors.append(str(exc)))
    return page


def _wait_until_executed(page) -> None:
    """Voilà ran every cell: ``voila_finish()`` at the end of the page removed the spinner."""
    page.wait_for_function(
        """() => {
            const cells = document.getElementById('rendered_cells');
            return cells !== null && document.getElementById('loading') === null
                && cells.style.display !== 'none';
        }""",
        timeout=TIMEOUT_MS,
    )


def _kernel_id(page) -> str:
    return page.evaluate(
        "() => JSON.parse(document.getElementById('jupyter-config-data').textContent).kernelId"
    )


def _kernel(base: str, kernel_id: str) -> dict | None:
    """The kernel's model from Voilà, or None once it is shut down."""
    response = httpx.get(f"{base}api/kernels/{kernel_id}", timeout=10)
    return response.json() if response.status_code == 200 else None


def _wait_for_no_kernel(base: str, kernel_id: str, timeout_s: float) -> bool:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if _kernel(base, kernel_id) is None:
            return True
        time.sleep(0.5)
    return False


def _wait_until_connected(base: str, kernel_id: str, timeout_s: float = 60) -> None:
    """The page's websocket to its kernel is open (Voilà counts it in the kernel's model)."""
    deadline = time.monotonic() + timeout_s
    while (model := _kernel(base, kernel_id)) is None or model["connections"] < 1:
        assert time.monotonic() < deadline, f"the page never connected to its kernel: {model}"
        time.sleep(0.25)


def _idle_s(model: dict) -> float:
    """Seconds since the kernel's last activity, as the culler reckons it (UTC ISO time)."""
    last = datetime.datetime.fromisoformat(model["last_activity"].replace("Z", "+00:00"))
    return (datetime.datetime.now(datetime.UTC) - last).total_seconds()


def _wait_until_idle_for(base: str, kernel_id: str, idle_s: float, timeout_s: float) -> dict:
    """The kernel's model once it has been idle for ``idle_s``; fails if it is culled first or
    has not been idle that long by ``timeout_s``."""
    deadline = time.monotonic() + timeout_s
    while True:
        model = _kernel(base, kernel_id)
        assert model is not None, "an open page's kernel was culled"
        if _idle_s(model) > idle_s:
            return model
        assert time.monotonic() < deadline, f"the kernel was never idle for {idle_s} s: {model}"
        time.sleep(0.5)


def _quiz_answers(page, timeout_ms: int = 30_000) -> None:
    """Click the quiz's "Check my answers" and wait for one more "Score:" in its widget."""
    button = page.locator(".jupyter-widgets button", has_text="Check my answers").first
    button.wait_for(state="attached", timeout=60_000)
    area = button.locator(
        "xpath=ancestor::div[contains(concat(' ', @class, ' '), ' jp-OutputArea-output ')][1]"
    )
    before = area.inner_text().count("Score:")
    button.scroll_into_view_if_needed()
    button.click()
    page.wait_for_function(
        "([el, before]) => el.innerText.split('Score:').length - 1 > before",
        arg=[area.element_handle(), before],
        timeout=timeout_ms,
    )


# -- without a browser --------------------------------------------------------------------------


def test_the_scratch_copy_has_every_notebook_with_outputs_cleared_and_the_originals_untouched():
    before = {p.name: p.read_bytes() for p in (ROOT / "notebooks").glob("*.ipynb")}
    copy = present.scratch_course(present.COURSE)
    try:
        assert sorted(p.name for p in copy.glob("[0-9][0-9]_*.ipynb")) == NOTEBOOKS
        for path in copy.glob("*.ipynb"):
            nb = nbformat.read(path, as_version=4)
            code = [c for c in nb.cells if c.cell_type == "code"]
            assert code and all(not c.outputs and c.execution_count is None for c in code), path.name
            assert "widgets" not in nb.metadata
        assert (copy / "README.md").is_file()
        assert (copy.parent / "voila.py").read_text() == present.VOILA_CONFIG  # beside, not listed
    finally:
        shutil.rmtree(copy.parent)
    assert {p.name: p.read_bytes() for p in (ROOT / "notebooks").glob("*.ipynb")} == before


def test_the_voila_command_serves_the_folder_on_loopback_on_that_port_without_code_with_culling(tmp_path):
    cmd = present.voila_command(tmp_path, 8866)
    assert cmd[:4] == [sys.executable, "-m", "voila", str(tmp_path)]  # a folder: tree mode
    for arg in (
        "--port=8866",
        "--Voila.ip=127.0.0.1",
        "--Voila.port_retries=0",
        "--no-browser",
        "--strip_sources=True",
        "--VoilaConfiguration.show_tracebacks=True",
        f"--MappingKernelManager.cull_idle_timeout={present.CULL_IDLE_S}",
        f"--MappingKernelManager.cull_interval={present.CULL_INTERVAL_S}",
        "--MappingKernelManager.cull_connected=False",
    ):
        assert arg in cmd
    assert present.CULL_IDLE_S > 0
    assert present.page_url("http://h:1/", "10_x.ipynb") == "http://h:1/voila/render/10_x.ipynb"
    assert present.page_url("http://h:1") == "http://h:1/"


def test_make_present_serves_the_listing_without_NB_and_names_the_notebook_with_it():
    def dry_run(*args: str) -> str:
        out = subprocess.run(
            ["make", "-n", "present", *args], cwd=ROOT, capture_output=True, text=True, check=True
        ).stdout
        return [line for line in out.splitlines() if "tools/present.py" in line][-1]

    assert dry_run().split("tools/present.py", 1)[1].split() == ["--port", "8866"]
    line = dry_run("NB=notebooks/06_interrupts_resume.ipynb", "PORT=9001", "OPEN=1")
    assert line.split("tools/present.py", 1)[1].split() == [
        '"notebooks/06_interrupts_resume.ipynb"',
        "--port",
        "9001",
        "--open",
    ]


def test_a_missing_notebook_is_exit_status_2(tmp_path):
    result = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "present.py"), str(tmp_path / "nope.ipynb")],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2
    assert "no notebook or folder" in result.stderr


# -- make present NB=notebooks/10_a2a_task_lifecycle.ipynb, in Chromium ------------------------


@pytest.mark.browser
@pytest.mark.slow
def test_present_prints_the_page_of_the_notebook_asked_for(presented):
    assert presented["url"] == presented["base"] + "voila/render/10_a2a_task_lifecycle.ipynb"


@pytest.mark.browser
@pytest.mark.slow
def test_the_listing_names_every_notebook_and_opens_one_from_the_same_server(presented, browser):
    context = browser.new_context(viewport={"width": 1300, "height": 1000})
    try:
        listing = context.new_page()
        listing.goto(presented["base"], wait_until="load", timeout=60_000)
        listing.wait_for_selector(f"text={NOTEBOOKS[-1]}", timeout=60_000)
        names = listing.locator(".jp-DirListing-item").all_inner_texts()
        assert [n for n in NOTEBOOKS if not any(n in item for item in names)] == []
        with context.expect_page(timeout=30_000) as opened:  # Voilà's listing opens a new tab
            listing.get_by_text(OTHER, exact=True).dblclick()
        page = opened.value
        page.wait_for_load_state("commit")
        assert page.url.split("?")[0] == presented["base"] + f"voila/render/{OTHER}"
        _wait_until_executed(page)
        _quiz_answers(page)
        page.close(run_before_unload=True)
    finally:
        context.close()


@pytest.mark.browser
@pytest.mark.slow
def test_leaving_a_page_stops_its_kernel_and_going_back_runs_it_again(presented, browser, tmp_path):
    base = presented["base"]
    page = _new_page(browser)
    try:
        page.goto(base + f"voila/render/{OTHER}", wait_until="commit", timeout=TIMEOUT_MS)
        _wait_until_executed(page)
        page.wait_for_selector(".jupyter-widgets button", state="attached", timeout=60_000)
        first = _kernel_id(page)
        assert _kernel(base, first)["connections"] >= 1
        page.goto(presented["url"], wait_until="commit", timeout=TIMEOUT_MS)  # to notebook 10
        assert _wait_for_no_kernel(base, first, 30), "the page left behind still has its kernel"
        _wait_until_executed(page)
        page.wait_for_selector(".jupyter-widgets button", state="attached", timeout=60_000)
        second = _kernel_id(page)
        page.go_back(wait_until="commit", timeout=TIMEOUT_MS)  # the presenter goes back
        _wait_until_executed(page)
        assert page.url.split("?")[0] == base + f"voila/render/{OTHER}"
        again = _kernel_id(page)
        assert again != first, "the page came back from the browser's cache with a dead kernel"
        assert _wait_for_no_kernel(base, second, 30)
        _quiz_answers(page)  # ... and finds a working page
        page.screenshot(path=str(tmp_path / "back.png"))
        assert not page.errors, page.errors
    finally:
        page.close(run_before_unload=True)


# -- the kernel policy, with short cull times ---------------------------------------------------

#: The cull time of this test's Voilà: longer than a page needs to connect to its kernel once
#: Voilà has run the cells (a kernel with no page connected yet is culled as well): 8 s held
#: with the machine's load average at 10 to 17. The culler runs every second (present's own: 600 s,
#: every 60 s).
CULL_S = 8


@pytest.fixture(scope="module")
def quick_culling(tmp_path_factory, chromium_path) -> dict:
    """Voilà on a scratch course with present's command line, culling after CULL_S seconds."""
    root = present.scratch_course(present.COURSE)
    port = free_port()
    log_path = tmp_path_factory.mktemp("cull") / "voila.log"
    log = open(log_path, "wb")  # closed below
    proc = subprocess.Popen(
        present.voila_command(root, port, cull_idle_s=CULL_S, cull_interval_s=1),
        cwd=root,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    base = f"http://127.0.0.1:{port}/"
    try:
        if not present.wait_until_serving(base, proc, timeout_s=120):
            pytest.fail("Voilà did not start:\n" + log_path.read_text()[-3000:])
        yield {"base": base, "log": log_path}
    finally:
        _stop(proc)
        log.close()
        shutil.rmtree(root.parent, ignore_errors=True)


@pytest.mark.browser
@pytest.mark.slow
def test_an_abandoned_page_loses_its_kernel_and_an_open_idle_page_keeps_it(quick_culling, browser):
    base, log = quick_culling["base"], quick_culling["log"]
    url = base + f"voila/render/{OTHER}"
    kept = _new_page(browser)
    try:
        kept.goto(url, wait_until="commit", timeout=TIMEOUT_MS)
        _wait_until_executed(kept)
        kept.wait_for_selector(".jupyter-widgets button", state="attached", timeout=60_000)
        kept_kernel = _kernel_id(kept)
        # (the culler starts with the first kernel)
        assert f"idle durations > {CULL_S} seconds" in log.read_text(), "culling is not configured"

        abandoned = _new_page(browser)
        abandoned.goto(url, wait_until="commit", timeout=TIMEOUT_MS)
        _wait_until_executed(abandoned)
        abandoned_kernel = _kernel_id(abandoned)
        # The browser dies once the page is up: closed while its websocket was still being set
        # up, the page crashes Voilà's handler (jupyter_server 2.21: the connection is None in
        # select_subprotocol) and the kernel is never culled, a race of its own, not this policy.
        _wait_until_connected(base, abandoned_kernel)
        abandoned.close(run_before_unload=False)  # no unload, no shutdown request: a dead browser
        assert _wait_for_no_kernel(base, abandoned_kernel, 120), "the abandoned page's kernel is still there"
        assert re.search(rf"Culling '\w+' kernel '\w+' \({abandoned_kernel}\)", log.read_text()), (
            "the abandoned page's kernel was shut down, not culled"
        )

        # the open page's kernel has been idle (by its own last_activity) for longer than the cull
        # time, through two more culler passes (one a second): it was due, and it is kept
        model = _wait_until_idle_for(base, kept_kernel, CULL_S + 2, timeout_s=120)
        assert model["connections"] >= 1
        _quiz_answers(kept)
        assert not kept.errors, kept.errors
    finally:
        kept.close(run_before_unload=True)

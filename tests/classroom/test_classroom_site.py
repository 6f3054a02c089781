"""``make site``: the course website, checked in a real Chromium.

Builds the site (``tools/build_site.py``; a build newer than every input is reused), serves
``build/site`` on a free loopback port and crawls it from the home page in headless Chromium:
every page loads, every image has loaded (``naturalWidth > 0``), every link to the site's own
pages and anchors resolves, no request leaves 127.0.0.1, and every notebook of the curriculum
has a page with its code and outputs. Skipped when Chromium is absent, unless
``REQUIRE_BROWSER=1`` (as in CI).
"""

from __future__ import annotations

import functools
import http.server
import json
import subprocess
import sys
import threading
from collections import deque
from pathlib import Path
from urllib.parse import urldefrag, urljoin, urlparse

import pytest
from servers import CHROMIUM_ARGS

pytestmark = [pytest.mark.browser, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[2]
SITE = ROOT / "build" / "site"
STAMP = ROOT / "build" / "site-build.json"
MAX_PAGES = 300  # the crawl is bounded


def _inputs() -> list[Path]:
    paths = [
        *(ROOT / "notebooks").glob("*.ipynb"),
        ROOT / "tools" / "build_site.py",
        *(ROOT / "site").glob("*"),
        *(ROOT / "agentproto").rglob("*.py"),
        *(ROOT / "agentproto" / "data" / "course").glob("*"),
    ]
    return [p for p in paths if p.is_file()]


@pytest.fixture(scope="module")
def site() -> dict:
    fresh = (
        STAMP.exists()
        and (SITE / "index.html").exists()
        and STAMP.stat().st_mtime > max(p.stat().st_mtime for p in _inputs())
    )
    if not fresh:
        proc = subprocess.run(
            [sys.executable, str(ROOT / "tools" / "build_site.py")],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=600,
        )
        assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    return json.loads(STAMP.read_text())


@pytest.fixture(scope="module")
def server(site) -> str:
    handler = functools.partial(_QuietHandler, directory=str(SITE))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}/"
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(timeout=10)


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args) -> None:  # keep the test output clean
        pass


@pytest.fixture(scope="module")
def crawl(server, chromium_path) -> dict:
    """Visit every page reachable from the home page; collect what each one shows."""
    sync_api = pytest.importorskip("playwright.sync_api")
    origin = urlparse(server).netloc
    pages: dict[str, dict] = {}
    outside: list[str] = []
    failed: list[str] = []
    links: list[tuple[str, str]] = []  # (page, absolute link within the site)
    with sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium_path, headless=True, args=CHROMIUM_ARGS)
        try:
            context = browser.new_context()

            def route(r) -> None:
                if urlparse(r.request.url).netloc == origin or r.request.url.startswith(("data:", "blob:")):
                    r.continue_()
                else:
                    outside.append(r.request.url)
                    r.abort()

            context.route("**/*", route)
            page = context.new_page()
            # (ERR_ABORTED: a request cut short by the next navigation, e.g. the favicon)
            page.on(
                "requestfailed",
                lambda req: (
                    None
                    if "ERR_ABORTED" in (req.failure or "")
                    else failed.append(f"{req.url}: {req.failure}")
                ),
            )
            page.on(
                "response",
                lambda resp: failed.append(f"{resp.url}: HTTP {resp.status}") if resp.status >= 400 else None,
            )
            todo, seen = deque([server + "index.html"]), {server + "index.html"}
            while todo and len(pages) < MAX_PAGES:
                url = todo.popleft()
                response = page.goto(url, wait_until="load", timeout=60_000)
                # stored widget state is drawn by the embedder after "load": wait for the first one
                page.wait_for_function(
                    """() => !document.querySelector(`script[type="${VIEW}"]`)
                             || document.querySelector('.jupyter-widgets')""".replace(
                        "${VIEW}", "application/vnd.jupyter.widget-view+json"
                    ),
                    timeout=30_000,
                )
                info = page.evaluate(
                    """() => ({
                        title: document.title,
                        images: [...document.images].map(
                            i => ({src: i.src.slice(0, 80), ok: i.complete && i.naturalWidth > 0})),
                        links: [...document.querySelectorAll('a[href]')].map(a => a.href),
                        ids: [...document.querySelectorAll('[id]')].map(e => e.id),
                        codeCells: document.querySelectorAll('.jp-CodeCell').length,
                        outputs: document.querySelectorAll('.jp-OutputArea-output').length,
                        widgetNotes: document.querySelectorAll('.widget-note').length,
                        widgets: document.querySelectorAll('.jupyter-widgets').length,
                        text: document.body.innerText.slice(0, 200000),
                    })"""
                )
                info["status"] = response.status if response else None
                pages[url] = info
                for href in info["links"]:
                    if urlparse(href).netloc != origin:
                        continue
                    links.append((url, href))
                    target, _ = urldefrag(href)
                    if target.endswith(".html") and target not in seen:
                        seen.add(target)
                        todo.append(target)
        finally:
            browser.close()
    return {"pages": pages, "outside": outside, "failed": failed, "links": links, "root": server}


def test_the_site_was_built_with_every_notebook(site):
    assert (SITE / "index.html").exists()
    assert site["notebooks"] == len(list((ROOT / "notebooks").glob("*.ipynb")))
    assert site["pages"] >= site["notebooks"] + 4  # + home, glossary, study sheet, API pages


def test_every_page_loads_and_nothing_leaves_the_machine(crawl):
    assert len(crawl["pages"]) < MAX_PAGES
    bad = {url: info["status"] for url, info in crawl["pages"].items() if info["status"] != 200}
    assert not bad
    assert not crawl["failed"], crawl["failed"][:20]
    assert not crawl["outside"], f"requests outside 127.0.0.1: {sorted(set(crawl['outside']))[:20]}"


def test_every_image_loads(crawl):
    broken = [
        (url, img["src"]) for url, info in crawl["pages"].items() for img in info["images"] if not img["ok"]
    ]
    assert not broken, broken[:20]
    assert sum(len(info["images"]) for info in crawl["pages"].values()) > 10  # the notebooks' plots are there


def test_no_internal_link_is_broken(crawl):
    pages = crawl["pages"]
    broken = []
    for source, href in crawl["links"]:
        target, fragment = urldefrag(href)
        path = urlparse(target).path
        if target.endswith(".html"):
            if target not in pages:
                broken.append((source, href, "page not crawled"))
            elif fragment and fragment not in pages[target]["ids"]:
                broken.append((source, href, "no such anchor"))
        elif not (SITE / path.lstrip("/")).exists() and not (SITE / path.lstrip("/") / "index.html").exists():
            broken.append((source, href, "no such file"))
    assert not broken, broken[:20]


def test_every_notebook_page_shows_prose_code_and_outputs(crawl, site):
    sys.path.insert(0, str(ROOT / "tools"))
    try:
        from build_site import curriculum
    finally:
        sys.path.pop(0)
    root = crawl["root"]
    lessons = [lesson for lesson in curriculum().LESSONS if (ROOT / "notebooks" / lesson.filename).exists()]
    assert lessons
    for lesson in lessons:
        url = urljoin(root, f"notebooks/{lesson.filename[:-6]}.html")
        assert url in crawl["pages"], f"{lesson.filename} has no page linked from the site"
        info = crawl["pages"][url]
        assert info["codeCells"] > 0 and info["outputs"] > 0, lesson.filename
        assert "Error displaying widget" not in info["text"] and "Traceback" not in info["text"]
        assert "agentproto lab" in info["text"]  # the "run this in JupyterLab" note


def test_stored_widget_state_is_drawn_on_the_pages(crawl, site):
    """Widgets with stored state are embedded (drawn by ipywidgets' embedder served from the
    site itself); any others are a "run this in JupyterLab" note. Either way, no error box."""
    drawn = {url: info["widgets"] for url, info in crawl["pages"].items() if info["widgets"]}
    if site.get("embedder") is None:
        pytest.skip("npm could not fetch the widget embedder: widgets are shown as notes")
    assert site["widgets"]["embedded"] > 0
    assert len(drawn) >= site["pages_with_embedded_widgets"] > 0, drawn
    for info in crawl["pages"].values():
        assert "Error displaying widget" not in info["text"]


def test_home_glossary_study_sheet_and_api_reference(crawl):
    sys.path.insert(0, str(ROOT / "tools"))
    try:
        from build_site import curriculum
    finally:
        sys.path.pop(0)
    pages, root = crawl["pages"], crawl["root"]
    home = pages[root + "index.html"]["text"]
    for lesson in curriculum().LESSONS:
        assert lesson.title in home
    glossary = pages[root + "glossary.html"]["text"]
    for row in curriculum().glossary():
        assert row["term"] in glossary and row["chinese"] in glossary
    bank = json.loads((ROOT / "agentproto" / "data" / "course" / "question_bank.json").read_text())
    sheet = pages[root + "study-sheet.html"]["text"]
    for q in bank["questions"]:
        assert q["question"] in sheet
    for package in ("agui", "a2a", "security", "orchestration"):
        text = pages[root + f"api/{package}.html"]["text"]
        assert f"agentproto.{package}" in text
        assert len(text) > 2000, f"the API page of agentproto.{package} is nearly empty"

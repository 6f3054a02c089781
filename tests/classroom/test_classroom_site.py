"""``make site``: the course website, checked in a real Chromium.

Builds the site (``tools/build_site.py``; a build newer than every input is reused) with the
test toolchain hidden from it (``make site`` has only the ``classroom`` extra), copies it
outside the checkout as if unzipped from a hand-out, and in one Chromium:

* crawls the copy from ``file://``, from the home page: every page loads, every image has
  loaded (``naturalWidth > 0``), every link to the site's own pages and anchors resolves, no
  request leaves the copy, every notebook of the curriculum has a page with its code and
  outputs, no answer key shows until it is clicked (a quiz answered in code, an exercise's
  solution, and the source of those cells and of the quizzes) and a click shows each, and
  the API reference has no raw reST roles and its doctests are code blocks;
* on that copy, the study sheet is HTML (headings, tables, bold; no raw Markdown) whose
  answers open one click at a time and all at once for print, search finds a word, and no
  link starts at the server's root;
* serves ``build/site`` on a free loopback port, as an instructor may: the home page, a
  notebook page and the study sheet load with their images and widgets, and every request
  is answered by that server (the other pages are the same files).

Skipped when Chromium is absent, unless ``REQUIRE_BROWSER=1`` (as in CI).
"""

from __future__ import annotations

import ast
import functools
import html
import http.server
import importlib.util
import json
import re
import shutil
import subprocess
import sys
import threading
from collections import deque
from html.parser import HTMLParser
from importlib import metadata
from pathlib import Path
from urllib.parse import unquote, urldefrag, urljoin, urlparse

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[2]
SITE = ROOT / "build" / "site"
STAMP = ROOT / "build" / "site-build.json"
MAX_PAGES = 300  # the crawl is bounded
BUILD_SITE = ROOT / "tools" / "build_site.py"
#: What the built pages may not show as text: a Sphinx role, as the docstrings write them.
RAW_ROLE = re.compile(r"(?<![\w:]):(?:py:)?(?:class|func|meth|attr|data|mod|exc|obj|const):(?=[`\w~.!])")


def _inputs() -> list[Path]:
    paths = [
        *(ROOT / "notebooks").glob("*.ipynb"),
        BUILD_SITE,
        *(ROOT / "site").glob("*"),
        *(ROOT / "agentproto").rglob("*.py"),
        *(ROOT / "agentproto" / "data" / "course").glob("*"),
    ]
    return [p for p in paths if p.is_file()]


# -- the classroom extra, and what only the test extra brings ---------------------------------


def _closure(extras: set[str]) -> set[str]:
    """The distributions ``agentproto[extras]`` installs, read from the installed metadata."""
    from packaging.requirements import Requirement
    from packaging.utils import canonicalize_name

    seen: set[tuple[str, frozenset[str]]] = set()
    names: set[str] = set()
    todo = [("agentproto", frozenset(extras))]
    while todo:
        name, wanted = todo.pop()
        key = (canonicalize_name(name), wanted)
        if key in seen:
            continue
        seen.add(key)
        try:
            dist = metadata.distribution(name)
        except metadata.PackageNotFoundError:
            continue
        names.add(key[0])
        for line in dist.requires or []:
            req = Requirement(line)
            if req.marker and not any(req.marker.evaluate({"extra": e}) for e in (wanted or {""})):
                continue
            todo.append((req.name, frozenset(req.extras)))
    return names


def _modules_of(dists: set[str]) -> set[str]:
    """The top-level import names the given distributions provide."""
    from packaging.utils import canonicalize_name

    return {
        module
        for module, owners in metadata.packages_distributions().items()
        if any(canonicalize_name(o) in dists for o in owners)
    }


@functools.cache
def _test_only_dists() -> frozenset[str]:
    """The distributions the ``test`` extra adds to the ``classroom`` extra."""
    return frozenset(_closure({"classroom", "test"}) - _closure({"classroom"}))


@functools.cache
def _test_only_modules() -> frozenset[str]:
    """The modules of :func:`_test_only_dists`."""
    return frozenset(_modules_of(set(_test_only_dists())))


def without_test_extra(tmp: Path) -> dict[str, str]:
    """An environment in which what only the ``test`` extra installs is not found, as if it were
    not installed: a ``sitecustomize`` on ``PYTHONPATH`` (MkDocs' own process inherits it) puts
    a path finder that skips those modules in place of the standard one."""
    import os

    (tmp / "sitecustomize.py").write_text(
        "import sys\n"
        "from importlib.machinery import PathFinder\n"
        f"HIDDEN = frozenset({sorted(_test_only_modules())!r})\n"
        f"HIDDEN_DISTS = frozenset({sorted(_test_only_dists())!r})\n"
        "class ClassroomOnly:\n"
        "    @classmethod\n"
        "    def find_spec(cls, name, path=None, target=None):\n"
        "        if name.partition('.')[0] in HIDDEN:\n"
        "            return None\n"
        "        return PathFinder.find_spec(name, path, target)\n"
        "    @classmethod\n"
        "    def find_distributions(cls, *args, **kwargs):\n"
        "        for dist in PathFinder.find_distributions(*args, **kwargs):\n"
        "            if dist.metadata['Name'].lower().replace('_', '-') not in HIDDEN_DISTS:\n"
        "                yield dist\n"
        "    @classmethod\n"
        "    def invalidate_caches(cls):\n"
        "        PathFinder.invalidate_caches()\n"
        "sys.meta_path[:] = [ClassroomOnly if f is PathFinder else f for f in sys.meta_path]\n",
        encoding="utf-8",
    )
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(tmp), env.get("PYTHONPATH", "")) if p)
    return env


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> dict:
    fresh = (
        STAMP.exists()
        and (SITE / "index.html").exists()
        and STAMP.stat().st_mtime > max(p.stat().st_mtime for p in _inputs())
    )
    if not fresh:
        proc = subprocess.run(
            [sys.executable, str(BUILD_SITE)],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=600,
            env=without_test_extra(tmp_path_factory.mktemp("classroom-only")),
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


def confined(
    browser, allowed: tuple[str, ...], outside: list[str], failed: list[str] | None = None, **options
):
    """A new browser context and its page, on which a request for a URL that starts with
    none of ``allowed`` is refused and kept in ``outside``, and (with ``failed``) a request
    that fails is kept there, but for ERR_ABORTED: a request cut short by the next
    navigation (the favicon, the search index)."""
    context = browser.new_context(**options)

    def route(r) -> None:
        if r.request.url.startswith(allowed):
            r.continue_()
        else:
            outside.append(r.request.url)
            r.abort()

    context.route("**/*", route)
    page = context.new_page()
    if failed is not None:
        page.on(
            "requestfailed",
            lambda req: (
                None if "ERR_ABORTED" in (req.failure or "") else failed.append(f"{req.url}: {req.failure}")
            ),
        )
    return context, page


#: What each page of the crawl collects, once loaded (and its stored widgets drawn).
PAGE_INFO = """() => {
    const article = document.querySelector('article');
    const api = article ? article.cloneNode(true) : null;
    const pres = api ? [...api.querySelectorAll('pre')] : [];
    pres.forEach(p => p.remove());
    return {
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
        article: article ? article.innerText : '',
        keys: [...document.querySelectorAll('details.answer-key, details.answer-code')].map(d => d.open),
        prose: api ? api.textContent : '',
        doctests: pres.filter(p => p.textContent.includes('>>>')).length,
        autorefs: article ? article.querySelectorAll('a.autorefs-internal').length : 0,
    };
}"""
#: Opens every answer on the page, as a reader's clicks on each summary would; the article's
#: text then.
REVEAL_ALL = """() => {
    document.querySelectorAll('details.answer-key > summary, details.answer-code > summary')
        .forEach(s => s.click());
    return document.querySelector('article').innerText;
}"""


@pytest.fixture(scope="module")
def crawl(unzipped, browser) -> dict:
    """Visit every page of the unzipped site reachable from its home page, from ``file://`` as
    a learner who unzipped it would; collect what each one shows, then (where it has answer
    keys) what it shows once every answer is opened. A request for anything outside the copy
    is refused and kept."""
    root = unzipped.as_uri() + "/"
    pages: dict[str, dict] = {}
    outside: list[str] = []
    failed: list[str] = []
    links: list[tuple[str, str]] = []  # (page, absolute link within the site)
    context, page = confined(browser, (root, "data:", "blob:", "about:"), outside, failed)
    try:
        todo, seen = deque([root + "index.html"]), {root + "index.html"}
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
            info = page.evaluate(PAGE_INFO)
            info["status"] = response.status if response else None
            info["opened"] = page.evaluate(REVEAL_ALL) if info["keys"] else info["article"]
            pages[url] = info
            for href in info["links"]:
                if not href.startswith(root):
                    continue
                links.append((url, href))
                target, _ = urldefrag(href)
                if target.endswith(".html") and target not in seen:
                    seen.add(target)
                    todo.append(target)
    finally:
        context.close()
    return {
        "pages": pages,
        "outside": outside,
        "failed": failed,
        "links": links,
        "root": root,
        "dir": unzipped,
    }


def test_the_site_was_built_with_every_notebook(site):
    assert (SITE / "index.html").exists()
    assert site["notebooks"] == len(list((ROOT / "notebooks").glob("*.ipynb")))
    assert site["pages"] >= site["notebooks"] + 4  # + home, glossary, study sheet, API pages


def test_every_page_loads_and_nothing_leaves_the_machine(crawl):
    assert len(crawl["pages"]) < MAX_PAGES
    bad = {url: info["status"] for url, info in crawl["pages"].items() if info["status"] != 200}
    assert not bad
    assert not crawl["failed"], crawl["failed"][:20]
    assert not crawl["outside"], f"requests outside the site: {sorted(set(crawl['outside']))[:20]}"


#: The pages the served site is checked on: the home page, a notebook page with stored widgets,
#: the study sheet. The rest are the same files, crawled from disk.
SERVED = ("index.html", "notebooks/00_start_here.html", "study-sheet.html")


def test_the_site_served_over_http_loads_with_nothing_from_elsewhere(server, browser):
    """An instructor may serve ``build/site`` rather than hand it out: over HTTP from a local
    server, the pages load, their images and stored widgets are drawn, and every request is
    answered by that server."""
    outside: list[str] = []
    failed: list[str] = []
    context, page = confined(browser, (server, "data:", "blob:"), outside, failed)
    try:
        page.on(
            "response",
            lambda resp: failed.append(f"{resp.url}: HTTP {resp.status}") if resp.status >= 400 else None,
        )
        for name in SERVED:
            response = page.goto(server + name, wait_until="load", timeout=60_000)
            assert response is not None and response.status == 200, name
            if name.startswith("notebooks/"):
                page.wait_for_selector(".jupyter-widgets", state="attached", timeout=30_000)
            images = page.evaluate("() => [...document.images].map(i => i.complete && i.naturalWidth > 0)")
            assert all(images), f"{name}: an image did not load"
            assert "Error displaying widget" not in page.inner_text("body"), name
    finally:
        context.close()
    assert not failed, failed[:20]
    assert not outside, f"requests outside 127.0.0.1: {sorted(set(outside))[:20]}"


def test_every_image_loads(crawl):
    broken = [
        (url, img["src"]) for url, info in crawl["pages"].items() for img in info["images"] if not img["ok"]
    ]
    assert not broken, broken[:20]
    assert sum(len(info["images"]) for info in crawl["pages"].values()) > 10  # the notebooks' plots are there


def test_no_internal_link_is_broken(crawl):
    pages, folder = crawl["pages"], crawl["dir"]
    broken = []
    for source, href in crawl["links"]:
        target, fragment = urldefrag(href)
        path = unquote(urlparse(target).path)[len(folder.as_posix()) :].lstrip("/")
        if target.endswith(".html"):
            if target not in pages:
                broken.append((source, href, "page not crawled"))
            elif fragment and fragment not in pages[target]["ids"]:
                broken.append((source, href, "no such anchor"))
        elif not (folder / path).exists():
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


# -- make site needs the classroom extra only -------------------------------------------------


def _imports(path: Path) -> set[str]:
    """The top-level modules a script imports, anywhere in it (functions included)."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names |= {alias.name.partition(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.partition(".")[0])
    return names


def test_build_site_imports_only_what_the_classroom_extra_installs():
    blocked = _test_only_modules()
    assert {"pytest", "playwright"} <= blocked  # the check does see the test toolchain
    classroom = _modules_of(_closure({"classroom"}))
    scripts = [BUILD_SITE, *sorted((ROOT / "site").glob("*.py"))]
    imported = {m for path in scripts for m in _imports(path)} - set(sys.stdlib_module_names) - {"agentproto"}
    assert {"mkdocs_jupyter", "griffe"} <= imported
    assert not imported & blocked, f"imported from the test extra only: {sorted(imported & blocked)}"
    assert imported <= classroom, f"not installed by the classroom extra: {sorted(imported - classroom)}"


def test_the_pages_are_prepared_without_the_test_toolchain(site, tmp_path):
    env = without_test_extra(tmp_path)
    probe = [sys.executable, "-c", "import nbformat, griffe; import pytest"]  # classroom: yes; test: no
    probe = subprocess.run(probe, env=env, capture_output=True, text=True)
    assert probe.returncode != 0 and "No module named 'pytest'" in probe.stderr, probe.stderr
    proc = subprocess.run(
        [sys.executable, str(BUILD_SITE), "--prepare-only"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]


# -- reST docstrings as Markdown --------------------------------------------------------------


def _griffe_rest():
    spec = importlib.util.spec_from_file_location("_site_griffe_rest", ROOT / "site" / "griffe_rest.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_rest_roles_doctests_literals_tables_and_definitions_become_markdown():
    docstring = "\n".join(
        [
            "A :class:`Reply`, a :func:`~agentproto.a2a.cards.check_card`, :meth:`the end <Pipe.finish>`,",
            "a :py:attr:`Task.status`, a :class:`~agentproto.http_guard.",
            "Guard` across a line break and :rfc:`9068`.",
            "",
            ">>> 1 + 1",
            "2",
            "",
            "Usage::",
            "",
            "    agentproto lint PATH",
            "",
            "====  =====",
            "name  what",
            "====  =====",
            "a     one",
            "      more",
            "====  =====",
            "",
            "``none``",
            "    waits for ever.",
        ]
    )
    targets = {"Reply": "agentproto.a2a.agents.Reply"}
    md = _griffe_rest().rest_to_markdown(docstring, targets.get)
    assert not RAW_ROLE.search(md), md
    assert '<autoref identifier="agentproto.a2a.agents.Reply" optional>`Reply`</autoref>' in md
    assert '<autoref identifier="agentproto.a2a.cards.check_card" optional>`check_card()`</autoref>' in md
    assert '<autoref identifier="Pipe.finish" optional>`the end`</autoref>' in md
    assert '<autoref identifier="Task.status" optional>`Task.status`</autoref>' in md
    assert '<autoref identifier="agentproto.http_guard.Guard" optional>`Guard`</autoref>' in md
    assert "`9068`" in md and ":rfc:" not in md
    assert "\n\n```pycon\n>>> 1 + 1\n2\n```\n" in md
    assert "Usage:\n\n```text\nagentproto lint PATH\n```\n" in md
    assert "| name | what |\n|---|---|\n| a | one more |\n" in md
    assert md.endswith("``none``\n:   waits for ever.")


# -- the site from file://, as a learner who unzipped it opens it -----------------------------


def _norm(text: str) -> str:
    return " ".join(text.split())


def _bank() -> dict:
    return json.loads((ROOT / "agentproto" / "data" / "course" / "question_bank.json").read_text("utf-8"))


@pytest.fixture(scope="module")
def unzipped(site, tmp_path_factory) -> Path:
    """The built site copied outside the checkout, as if unzipped from a hand-out."""
    target = tmp_path_factory.mktemp("unzipped") / "site"
    shutil.copytree(SITE, target)
    return target


@pytest.fixture(scope="module")
def disk(unzipped, browser):
    """A Chromium page for the unzipped site; a request to anywhere else is refused and kept."""
    outside: list[str] = []
    allowed = ("file:", "data:", "blob:", "about:")
    context, page = confined(browser, allowed, outside, viewport={"width": 1280, "height": 900})
    try:
        root = unzipped.as_uri() + "/"

        def open_page(name: str, wait_until: str = "load") -> str:
            page.goto(root + name, wait_until=wait_until, timeout=60_000)
            return _norm(page.evaluate("() => document.querySelector('article').innerText"))

        yield {"page": page, "root": root, "open": open_page, "outside": outside}
    finally:
        context.close()


def test_the_study_sheet_is_html_not_raw_markdown(disk):
    bank = _bank()
    text = disk["open"]("study-sheet.html")
    assert "**" not in text and "|---" not in text and "<div" not in text
    shape = disk["page"].evaluate(
        """() => { const a = document.querySelector('article');
                   const n = s => a.querySelectorAll(s).length;
                   return {h1: n('h1'), h2: n('h2'), h3: n('h3'), tables: n('table'), strong: n('strong'),
                           lists: n('ol, ul'), raw: a.innerHTML.includes('markdown=')}; }"""
    )
    assert shape["h1"] == 1 and shape["h3"] == len(bank["questions"]), shape
    assert shape["h2"] == len({q.get("topic") for q in bank["questions"]}), shape
    assert shape["tables"] >= 1 and shape["lists"] >= 1 and shape["strong"] >= len(bank["questions"])
    assert not shape["raw"]
    for q in bank["questions"]:
        assert _norm(q["question"]) in text


def test_the_study_sheets_answers_open_on_a_click_and_all_print(disk):
    bank, page = _bank(), disk["page"]
    text = disk["open"]("study-sheet.html")
    answers = [_norm(q["full_marks_answer"])[:80] for q in bank["questions"]]
    assert not [a for a in answers if a in text], "answers shown before they are opened"
    state = "() => [...document.querySelectorAll('details.answer-key')].map(d => d.open)"
    assert page.evaluate(state) == [False] * len(bank["questions"])
    page.locator("details.answer-key > summary").first.click()
    opened = _norm(page.evaluate("() => document.querySelector('article').innerText"))
    assert sum(a in opened for a in answers) == 1
    # printing is the instructor's copy: every answer opens for it, and closes again after
    page.evaluate("() => window.dispatchEvent(new Event('beforeprint'))")
    assert all(page.evaluate(state))
    page.evaluate("() => window.dispatchEvent(new Event('afterprint'))")
    assert page.evaluate(state) == [True] + [False] * (len(bank["questions"]) - 1)


def test_the_questions_only_sheet_has_no_answer_at_all(disk, unzipped):
    bank = _bank()
    text = disk["open"]("study-questions.html")
    whole = html.unescape((unzipped / "study-questions.html").read_text(encoding="utf-8"))
    for q in bank["questions"]:
        assert _norm(q["question"]) in text
        for answer in (q["pass_answer"], q["full_marks_answer"], (q.get("choice") or {}).get("explain")):
            assert not answer or answer[:60] not in whole, q["question"]


def _output_text(out: dict) -> str:
    """What an output prints, its HTML's tags (and a <details>' summary line) left out."""
    data = out.get("data", {})
    if "text/html" in data:
        value = "".join(data["text/html"]) if isinstance(data["text/html"], list) else data["text/html"]
        return html.unescape(re.sub(r"<[^>]+>", " ", re.sub(r"(?s)<summary>.*?</summary>", " ", value)))
    text = out.get("text", data.get("text/plain", ""))
    return "".join(text) if isinstance(text, list) else text


def _source(cell: dict) -> str:
    return "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]


def _secrets(path: Path) -> tuple[int, list[str], list[str]]:
    """A notebook's answer-key cells, the lines of their code and outputs no other cell shows,
    and the explanations of its quiz questions (``Question(..., explain=...)``)."""
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    keyed = [c for c in cells if "answer-key" in c.get("metadata", {}).get("tags", [])]
    shown = [_source(c) for c in cells if c not in keyed]
    shown += [_output_text(o) for c in cells if c not in keyed for o in c.get("outputs", [])]
    visible = _norm("\n".join(shown))
    lines = [_source(c) for c in keyed] + [_output_text(o) for c in keyed for o in c.get("outputs", [])]
    secrets = {_norm(line) for text in lines for line in text.splitlines()}
    explanations = set()
    for cell in cells:
        if cell["cell_type"] != "code" or "Question(" not in _source(cell):
            continue
        try:
            tree = ast.parse(_source(cell))
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "Question":
                for kw in node.keywords:
                    if kw.arg == "explain" and isinstance(kw.value, ast.Constant):
                        explanations.add(_norm(str(kw.value.value)))
    keep = lambda texts: sorted(t for t in texts if len(t) >= 16 and t not in visible)  # noqa: E731
    return len(keyed), keep(secrets), keep(explanations)


def test_no_answer_on_a_notebook_page_shows_until_clicked(crawl, site):
    checked = []
    for path in sorted((ROOT / "notebooks").glob("*.ipynb")):
        keyed, answers, explanations = _secrets(path)
        if not keyed and not explanations:
            continue
        info = crawl["pages"].get(urljoin(crawl["root"], f"notebooks/{path.stem}.html"))
        assert info is not None, f"{path.name} has no page linked from the site"
        assert len(info["keys"]) >= keyed and not any(info["keys"]), path.name
        text = _norm(info["article"])
        leaked = [t for t in answers + explanations if t in text]
        assert not leaked, f"{path.name} shows answers before a click: {leaked[:3]}"
        opened = _norm(info["opened"])
        missing = [t for t in answers if t not in opened]
        assert not missing, f"{path.name}: a click does not reveal {missing[:3]}"
        checked.append((path.name, keyed, len(answers), len(explanations)))
    assert checked and any(answers for _, _, answers, _ in checked), checked


def test_the_api_reference_has_no_raw_rest(crawl, unzipped):
    pages = sorted(p.name for p in (unzipped / "api").glob("*.html"))
    assert len(pages) > 3
    doctests = links = 0
    for name in pages:
        info = crawl["pages"].get(urljoin(crawl["root"], f"api/{name}"))
        assert info is not None, f"api/{name} is not linked from the site"
        prose = info["prose"]
        assert not RAW_ROLE.search(prose), (name, RAW_ROLE.findall(prose)[:5])
        assert ">>>" not in prose, f"{name}: a doctest outside a code block"
        assert not re.search(r"(?m)^\s*={3,}( +={3,})+\s*$", prose), f"{name}: a raw reST table"
        doctests += info["doctests"]
        links += info["autorefs"]
    assert doctests > 0 and links > 0


def test_search_finds_a_word_from_disk(disk):
    sys.path.insert(0, str(ROOT / "tools"))
    try:
        from build_site import curriculum
    finally:
        sys.path.pop(0)
    lessons = [lesson for lesson in curriculum().LESSONS if (ROOT / "notebooks" / lesson.filename).exists()]
    lesson, word = next(
        (lesson, words[0])
        for lesson in lessons
        if (words := sorted(re.findall(r"[A-Za-z]{8,}", lesson.title), key=len, reverse=True))
    )
    page = disk["page"]
    disk["open"]("index.html")
    page.locator("input.md-search__input").press_sequentially(word.lower(), delay=20)
    page.wait_for_selector(".md-search-result__item", timeout=30_000)
    hrefs = page.eval_on_selector_all(".md-search-result__item a", "links => links.map(a => a.href)")
    assert any(lesson.filename[: -len(".ipynb")] in href for href in hrefs), (word, hrefs[:10])
    assert not disk["outside"], disk["outside"][:10]


class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.values: list[str] = []

    def handle_starttag(self, tag, attrs) -> None:
        self.values += [value for key, value in attrs if key in ("href", "src") and value]


def test_no_link_starts_at_the_server_root(disk, unzipped):
    seen, rooted = 0, []
    for path in sorted(unzipped.rglob("*.html")):
        parser = _Links()
        parser.feed(path.read_text(encoding="utf-8"))
        seen += len(parser.values)
        rooted += [
            f"{path.relative_to(unzipped)}: {v}" for v in parser.values if v.startswith(("/", "file:"))
        ]
    assert seen > 100 and not rooted, rooted[:20]
    # 404.html is styled from disk too (its stylesheets were /assets/..., the disk's root)
    disk["open"]("404.html")
    assert disk["page"].evaluate("() => getComputedStyle(document.querySelector('.md-header')).position") == (
        "sticky"
    )
    assert not disk["outside"], disk["outside"][:10]

#!/usr/bin/env python
"""``make site``: the course as a static website, offline, in ``build/site/index.html``.

Usage: ``python tools/build_site.py [--prepare-only]``

The pages are generated into ``build/site-src`` (nothing is written into ``docs/`` or
``notebooks/``), then MkDocs (Material theme, mkdocs-jupyter, mkdocstrings) builds them with
``site/mkdocs.yml`` into ``build/site``:

* ``index.md`` — the curriculum map, from :data:`agentproto.course.curriculum.LESSONS`;
* ``notebooks/NN_*.ipynb`` — every notebook with its stored outputs (nothing is re-executed):
  prose, code, outputs and plots. A widget whose state the notebook stores
  (``metadata.widgets``, kept by ``tools/regen_notebooks.py``) is embedded as it was left:
  mkdocs-jupyter writes the state into the page, and ipywidgets' own embedder
  (``@jupyter-widgets/html-manager``, fetched once from the npm registry into
  ``build/.cache`` and served from the site, so the pages load nothing from elsewhere) draws
  it. It shows, but does not compute: a button needs a kernel. A widget without stored state,
  or every widget when the embedder cannot be fetched, becomes a note saying to run the
  notebook in JupyterLab. Links between notebooks (``06_x.ipynb``) point at the pages
  (``06_x.html``). Answers stay closed until the reader opens them: a cell tagged
  ``answer-key`` (a quiz answered in code, an exercise's solution) shows its source behind
  "Show the code" and each output as a closed ``<details class="answer-key">``; a cell that
  builds a quiz (its source holds the answers) or whose source the notebook hides shows its
  source closed too. None of it is in the search index;
* ``glossary.md`` — :func:`agentproto.course.curriculum.glossary`;
* ``study-sheet.md`` — the question bank (``agentproto/data/course/question_bank.json``) as a
  printable study sheet, one topic per printed page, each question's answers closed on screen
  and all open in print (the instructor's copy); ``study-questions.md`` — the same questions
  without any answer, to print as a quiz;
* ``api/*.md`` — the library's API reference, from the docstrings (mkdocstrings reads the
  source statically: nothing is imported, so a module that does not import still gets a page).
  The docstrings are reST; ``site/griffe_rest.py`` turns their roles into cross-references and
  their doctest and ``::`` blocks into code blocks.

The site works from ``file://`` (zip ``build/site`` and hand it out): no link starts at the
server's root, and search runs offline (mkdocs-material's ``offline`` plugin, with the
``iframe-worker`` shim it needs vendored in ``site/``). Building needs the ``classroom`` extra
only, not the test toolchain. ``build/site-build.json`` records the page count and the build
time. ``--prepare-only`` writes the pages and ``build/mkdocs.yml`` and stops before MkDocs.
"""

from __future__ import annotations

import argparse
import html
import importlib.util
import json
import re
import shutil
import subprocess
import sys
import tarfile
import time
from pathlib import Path
from types import ModuleType

import nbformat

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = ROOT / "notebooks"
BUILD = ROOT / "build"
SRC = BUILD / "site-src"
SITE = BUILD / "site"
CONFIG = BUILD / "mkdocs.yml"
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
WIDGET_STATE = "application/vnd.jupyter.widget-state+json"
NOTEBOOK_LINK = re.compile(r"(?<![\w/.-])(\d\d_[A-Za-z0-9_]+)\.ipynb(?=[#)\"'\s]|$)")
#: ipywidgets' embedder (BSD-3-Clause), the release that goes with ipywidgets 8.1.
HTML_MANAGER = "@jupyter-widgets/html-manager@1.0.15"
EMBEDDER_CACHE = BUILD / ".cache" / "html-manager-1.0.15"
#: Where mkdocs-jupyter's template loads the embedder from; the site serves its own copy.
CDN_EMBEDDERS = (
    "https://unpkg.com/@jupyter-widgets/html-manager@*/dist/embed-amd.js",
    "https://unpkg.com/@jupyter-js-widgets@*/dist/embed.js",
)
EMBEDDER_DIR = "assets/widgets"
#: Scripts in site/ the pages load (site/mkdocs.yml names them under javascripts/).
SCRIPTS = ("iframe-worker-shim.js",)
#: The API reference: one page per sub-package, plus the top-level modules.
API_PACKAGES = ["agui", "a2a", "security", "orchestration", "demo", "course"]

RUN_IT = (
    'To run this notebook yourself: <code>pip install "agentproto[course]"</code> then '
    "<code>agentproto lab</code> (or <code>make lab</code> in a clone of the repository)."
)
#: The cell tag of a cell that reveals answers (a quiz answered in code, an exercise's solution).
ANSWER_TAG = "answer-key"
#: A cell that builds a quiz: its source lists each question's answer and explanation.
QUIZ_SOURCE = re.compile(r"\bQuestion\((?s:.*?)\banswer\s*=")
ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
ANSWER_KEY_HTML = re.compile(r"<details\b[^>]*\bclass=\"[^\"]*\banswer-key\b")
WIDGET_NOTE = (
    '<div class="widget-note"><strong>Interactive widget.</strong> This output is live in '
    "JupyterLab: run this notebook there to use it (<code>agentproto lab</code>).</div>"
)


def curriculum() -> ModuleType:
    """:mod:`agentproto.course.curriculum`, read from this checkout.

    Imported as usual when the course package imports; loaded from its file otherwise, so a
    half-finished change elsewhere in ``agentproto.course`` does not stop the site.
    """
    try:
        import agentproto.course.curriculum as module

        return module
    except Exception:  # fall back to the file itself
        path = ROOT / "agentproto" / "course" / "curriculum.py"
        spec = importlib.util.spec_from_file_location("_site_curriculum", path)
        assert spec and spec.loader
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module


def _page(filename: str) -> str:
    return filename[: -len(".ipynb")] + ".html"


def rewrite_links(text: str) -> str:
    """``06_interrupts_resume.ipynb#x`` -> ``06_interrupts_resume.html#x``."""
    return NOTEBOOK_LINK.sub(lambda m: f"{m.group(1)}.html", text)


HEADING = re.compile(r"^(#{1,6})[ \t]+(.+?)[ \t]*#*[ \t]*$")


def _toc_id(line: str) -> str | None:
    """The id the side table of contents links to for a Markdown heading line.

    mkdocs-jupyter builds that table from the notebook exported to Markdown with the inline
    code spans removed, then Python-Markdown's ``toc`` extension names the headings.
    """
    import markdown

    md = markdown.Markdown(extensions=["toc"])
    md.convert(re.sub(r"`[^`\n]*`", "", line))
    tokens = md.toc_tokens  # type: ignore[attr-defined]
    return tokens[0]["id"] if tokens else None


def _page_id(text: str) -> str:
    """The id mkdocs-jupyter gives the heading on the page (its text, code spans included)."""
    from mkdocs_jupyter.utils import slugify

    plain = re.sub(r"`([^`]*)`", r"\1", text)
    plain = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", plain)
    return slugify(re.sub(r"<[^>]+>", "", plain))


def anchor_headings(source: str) -> str:
    """Give a heading the id the side table of contents uses where the page's id differs.

    The table of contents drops code spans from a heading's id, the page keeps them:
    ``## 4. The `CHUNK` shorthand`` is ``#4-the-shorthand`` in the
    one and ``#4-the-chunk-shorthand`` in the other. An empty anchor above the heading
    carrying the first id makes the table of contents' links land.
    """
    out, fenced = [], False
    for line in source.split("\n"):
        if line.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
        match = None if fenced else HEADING.match(line)
        if match:
            toc = _toc_id(line)
            if toc and toc != _page_id(match.group(2)):
                out.append(f'<a id="{toc}"></a>\n')
        out.append(line)
    return "\n".join(out)


def widget_embedder() -> Path | None:
    """The html-manager's ``dist`` folder, fetched with ``npm pack`` on first use; ``None`` if
    npm or the registry is not there (the widgets then become notes)."""
    dist = EMBEDDER_CACHE / "package" / "dist"
    if (dist / "embed.js").exists():
        return dist
    npm = shutil.which("npm")
    if npm is None:
        return None
    EMBEDDER_CACHE.mkdir(parents=True, exist_ok=True)
    try:
        packed = subprocess.run(
            [npm, "pack", HTML_MANAGER, "--silent", "--pack-destination", str(EMBEDDER_CACHE)],
            capture_output=True,
            text=True,
            timeout=300,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    tarballs = sorted(EMBEDDER_CACHE.glob("*.tgz"))
    if packed.returncode != 0 or not tarballs:
        return None
    with tarfile.open(tarballs[-1]) as tar:
        tar.extractall(EMBEDDER_CACHE, filter="data")
    return dist if (dist / "embed.js").exists() else None


def install_embedder(dist: Path) -> int:
    """Copy the embedder into the built site and point every notebook page at it."""
    target = SITE / EMBEDDER_DIR
    target.mkdir(parents=True, exist_ok=True)
    for path in dist.iterdir():
        if path.is_file() and not path.name.endswith(".map") and "amd" not in path.name:
            shutil.copyfile(path, target / path.name)
    pointed = 0
    for page in (SITE / "notebooks").glob("*.html"):
        text = page.read_text(encoding="utf-8")
        new = text
        for url in CDN_EMBEDDERS:
            new = new.replace(url, f"../{EMBEDDER_DIR}/embed.js")
        if new != text:
            page.write_text(new, encoding="utf-8")
            pointed += 1
    return pointed


def _highlight(source: str, lexer_name: str) -> str:
    """The source highlighted as mkdocs-jupyter highlights an input (its ``highlight-ipynb`` CSS)."""
    from pygments import highlight
    from pygments.formatters import HtmlFormatter
    from pygments.lexers import PythonLexer, get_lexer_by_name
    from pygments.util import ClassNotFound

    try:
        lexer = get_lexer_by_name(lexer_name)
    except ClassNotFound:
        lexer = PythonLexer()
    return highlight(source, lexer, HtmlFormatter(cssclass="highlight-ipynb hl-python"))


def _closed(summary: str, body: str, kind: str = "answer-key") -> str:
    """A closed ``<details>`` block, left out of the search index (its snippets would show it)."""
    return (
        f'<details class="{kind}" data-search-exclude><summary>{html.escape(summary)}</summary>'
        f"{body}</details>"
    )


def _answer_output(out: dict) -> dict:
    """One output of an answer-key cell, shown closed: the notebook's own
    ``<details class="answer-key">`` as it is (kept out of search), anything else wrapped."""
    data = out.get("data", {})
    if WIDGET_VIEW in data:  # a widget draws itself (or is a note); it is not printed text
        return out
    value = data.get("text/html")
    if value is not None:
        value = "".join(value) if isinstance(value, list) else value
        if ANSWER_KEY_HTML.search(value):
            data["text/html"] = ANSWER_KEY_HTML.sub(lambda m: m.group(0) + " data-search-exclude", value, 1)
            return out
        body = value
    elif out.get("output_type") == "stream":
        text = out.get("text", "")
        body = f"<pre>{html.escape(''.join(text) if isinstance(text, list) else text)}</pre>"
    elif out.get("output_type") == "error":
        body = f"<pre>{html.escape(ANSI.sub('', chr(10).join(out.get('traceback', []))))}</pre>"
    elif "image/png" in data:
        body = f'<img alt="answer" src="data:image/png;base64,{"".join(data["image/png"]).strip()}">'
    elif "text/plain" in data:
        text = data["text/plain"]
        body = f"<pre>{html.escape(''.join(text) if isinstance(text, list) else text)}</pre>"
    else:
        return out
    wrapped = _closed("Answer key (click to open)", body)
    return nbformat.v4.new_output("display_data", data={"text/html": wrapped, "text/plain": "[answer key]"})


def hide_answer_cell(cell: dict, lexer_name: str) -> None:
    """A cell that reveals answers shows closed on the page: its source behind "Show the code"
    and, for a cell tagged ``answer-key``, each of its outputs a closed answer key."""
    source = cell.get("source", "")
    source = "".join(source) if isinstance(source, list) else source
    cell.setdefault("metadata", {}).setdefault("transient", {})["remove_source"] = True
    outputs = list(cell.get("outputs", []))
    if ANSWER_TAG in cell["metadata"].get("tags", []):
        outputs = [_answer_output(out) for out in outputs]
    if source.strip():
        code = _closed("Show the code (it holds the answers)", _highlight(source, lexer_name), "answer-code")
        outputs.insert(0, nbformat.v4.new_output("display_data", data={"text/html": code, "text/plain": ""}))
    cell["outputs"] = outputs


def _hidden(cell: dict) -> bool:
    """Whether a code cell's source starts closed on the page: an answer key, a cell whose
    source the notebook hides, or a quiz (the widget stays; its source holds the answers)."""
    meta = cell.get("metadata", {})
    source = cell.get("source", "")
    source = "".join(source) if isinstance(source, list) else source
    return (
        ANSWER_TAG in meta.get("tags", [])
        or bool(meta.get("jupyter", {}).get("source_hidden"))
        or bool(QUIZ_SOURCE.search(source))
    )


def prepare_notebook(src: Path, dest: Path, embed: bool = True) -> dict[str, int]:
    """Copy one notebook for the site; returns how many widgets were embedded or noted."""
    nb = nbformat.read(src, as_version=4)
    state = nb.metadata.get("widgets", {}).get(WIDGET_STATE, {}).get("state", {}) if embed else {}
    counts = {"embedded": 0, "noted": 0, "closed_cells": 0}
    lexer = nb.metadata.get("language_info", {}).get("pygments_lexer", "python3")
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            cell.source = anchor_headings(rewrite_links(cell.source))
            continue
        if cell.cell_type != "code":
            continue
        outputs = []
        for out in cell.get("outputs", []):
            if out.get("output_type") in ("display_data", "execute_result"):
                out.setdefault("metadata", {})  # required by the schema; the stored notebooks omit it
            data = out.get("data", {})
            if WIDGET_VIEW in data:
                if data[WIDGET_VIEW].get("model_id") in state:
                    counts["embedded"] += 1
                    outputs.append(out)
                else:
                    counts["noted"] += 1
                    outputs.append(nbformat.v4.new_output("display_data", data={"text/html": WIDGET_NOTE}))
                continue
            for mime in ("text/html", "text/markdown"):
                if mime in data:
                    value = data[mime]
                    data[mime] = rewrite_links("".join(value) if isinstance(value, list) else value)
            outputs.append(out)
        cell.outputs = outputs
        if _hidden(cell):
            hide_answer_cell(cell, lexer)
            counts["closed_cells"] += 1
    first_md = next((i for i, c in enumerate(nb.cells) if c.cell_type == "markdown"), -1)
    nb.cells.insert(first_md + 1, nbformat.v4.new_markdown_cell(f'<div class="widget-note">{RUN_IT}</div>'))
    if not counts["embedded"]:
        nb.metadata.pop("widgets", None)
    dest.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, dest)
    return counts


def home_page(lessons: list, present: set[str]) -> str:
    parts: dict[str, list] = {}
    for lesson in lessons:
        parts.setdefault(lesson.part, []).append(lesson)
    lines = [
        "# AG-UI and A2A, hands on",
        "",
        "A course in Jupyter notebooks on the protocols AI agents speak: **AG-UI** (agent ↔ user "
        "interface), **A2A** (agent ↔ agent) and the engineering of multi-agent systems, with "
        "`agentproto`, the reference library the notebooks drive.",
        "",
        "These pages show every notebook as it was last run: its prose, code, outputs and plots. "
        "The interactive widgets run only in JupyterLab:",
        "",
        "```console",
        '$ pip install "agentproto[course]"',
        "$ agentproto lab        # copies the course into ~/agentproto-course and opens JupyterLab",
        "```",
        "",
        "Also here: the [glossary](glossary.md), a printable [study sheet](study-sheet.md) of the "
        "interview question bank (each answer closed until you open it; also as "
        "[questions only](study-questions.md)), and the [API reference](api/index.md).",
        "",
        "## The curriculum",
        "",
    ]
    for part, items in parts.items():
        lines += [
            f"### {part}",
            "",
            "| # | notebook | seed 000 | seed 004 | covers |",
            "|---|---|---|---|---|",
        ]
        for lesson in items:
            title = (
                f"[{lesson.title}](notebooks/{lesson.filename})"
                if lesson.filename in present
                else f"{lesson.title} *(planned)*"
            )
            lines.append(
                f"| {lesson.number:02d} | {title} | {lesson.seed_000 or '—'} | "
                f"{lesson.seed_004 or '—'} | {lesson.topic} |"
            )
        lines.append("")
    lines += [
        "Seed 000 is a Chinese study guide on AG-UI and A2A organised as interview questions "
        "Q1–Q12; seed 004 is a Chinese study note on A2A and multi-agent engineering in sections "
        "§1–§13. The columns say which of their questions each notebook answers.",
        "",
    ]
    return "\n".join(lines)


def _cell(text: str) -> str:
    return html.escape(str(text)).replace("|", "&#124;").replace("\n", " ")


_CODE_SPAN = re.compile(r"(`[^`]*`)")


def _text(text: str) -> str:
    """Plain bank text as Markdown: HTML escaped, and ``*`` outside code spans escaped too, so
    that ``Accept: */*`` or ``RUN_*, STEP_*`` stay literal instead of turning into emphasis."""
    parts = _CODE_SPAN.split(html.escape(str(text)))
    return "".join(part if i % 2 else part.replace("*", "\\*") for i, part in enumerate(parts))


def glossary_page(rows: list[dict[str, str]]) -> str:
    lines = [
        "# Glossary",
        "",
        f"{len(rows)} terms of the course, with their Chinese names.",
        "",
        "| term | 中文 | meaning |",
        "|---|---|---|",
    ]
    lines += [f"| **{_cell(r['term'])}** | {_cell(r['chinese'])} | {_cell(r['meaning'])} |" for r in rows]
    return "\n".join(lines) + "\n"


def _indented(lines: list[str], by: str = "    ") -> list[str]:
    return [by + line if line else "" for line in lines]


def study_sheet(bank: dict, lessons: list, present: set[str], answers: bool = True) -> str:
    """The question bank as one printable page, a section per topic (one per printed sheet).

    With ``answers``, each question's answers follow it in a closed "Answers" block: on screen
    they open on a click, and printing opens them all (the instructor's copy: the Material
    theme opens every ``<details>`` for the print and closes them after). Without, it is the
    questions only (the quick checks' options included), to hand out as a quiz.
    """
    by_number = {lesson.number: lesson for lesson in lessons}
    topics = bank.get("topics", {})
    title = html.escape(bank.get("title", "question bank"))
    grouped: dict[str, list] = {}
    for q in bank["questions"]:
        grouped.setdefault(q.get("topic", "other"), []).append(q)
    order = [t for t in topics if t in grouped] + [t for t in grouped if t not in topics]
    if answers:
        how = (
            "Each question's answers are closed: try the question first, then open them. Printing "
            "this page prints every answer (the instructor's copy); to hand out a quiz, print the "
            "[questions-only sheet](study-questions.md)."
        )
    else:
        how = (
            "The questions only, no answers: print it as a quiz. The answers are on the "
            "[study sheet](study-sheet.md)."
        )
    lines = [
        '<div class="study-sheet" markdown="1">',
        "",
        f"# {'Study sheet' if answers else 'Questions only'}: {title}",
        "",
        html.escape(bank.get("description", "")),
        "",
        f"{len(bank['questions'])} questions, one topic per printed page. {how}",
        "",
        "| topic | questions |",
        "|---|---:|",
    ]
    names = {}
    for topic in order:
        name = topics.get(topic)
        name = name.get("title", topic) if isinstance(name, dict) else (name or topic)
        names[topic] = _cell(name)
        lines.append(f"| [{names[topic]}](#topic-{topic}) | {len(grouped[topic])} |")
    lines.append("")
    for topic in order:
        lines += [f"## {names[topic]} {{#topic-{topic}}}", ""]
        for q in grouped[topic]:
            lines += ['<div class="question" markdown="1">', "", f"### {_text(q['question'])}", ""]
            where = [q.get("source", "")]
            lesson = by_number.get(q.get("notebook"))
            if lesson is not None and lesson.filename in present:
                where.append(f"notebook [{lesson.number:02d} {lesson.title}](notebooks/{lesson.filename})")
            lines += [f"*{' · '.join(w for w in where if w)}*", ""]
            if q.get("follow_ups"):
                lines += ["**Follow-ups:**", ""] + [f"- {_text(p)}" for p in q["follow_ups"]] + [""]
            choice = q.get("choice")
            if choice:
                lines += [f"**Quick check.** {_text(choice['prompt'])}", ""]
                lines += [f"{i + 1}. {_text(o)}" for i, o in enumerate(choice["options"])] + [""]
            if answers:
                key = [
                    f"**Pass answer.** {_text(q.get('pass_answer', ''))}",
                    "",
                    f"**Full-marks answer.** {_text(q.get('full_marks_answer', ''))}",
                    "",
                ]
                if q.get("key_points"):
                    key += ["**What the interviewer listens for:**", ""]
                    key += [f"- {_text(p)}" for p in q["key_points"]] + [""]
                if choice:
                    answer = choice["options"][choice["answer"]]
                    key += [
                        f"**Quick check:** {choice['answer'] + 1}. {_text(answer)} — "
                        f"{_text(choice.get('explain', ''))}",
                        "",
                    ]
                lines += ['??? answer-key "Answers"', "", *_indented(key)]
            lines += ["</div>", ""]
    lines += ["</div>", ""]
    return "\n".join(lines)


def _modules(package_dir: Path, dotted: str, private: bool = False) -> list[str]:
    """The public modules of a package (or, with ``private``, its implementation modules
    ``_name.py``), read from its folder: nothing imported."""
    mods = []
    for path in sorted(package_dir.glob("*.py")):
        if path.name == "__init__.py" or path.name.startswith("_") != private:
            continue
        mods.append(f"{dotted}.{path.stem}")
    if private:
        return mods
    for sub in sorted(p for p in package_dir.iterdir() if p.is_dir() and (p / "__init__.py").exists()):
        if not sub.name.startswith("_"):
            mods.append(f"{dotted}.{sub.name}")
    return mods


_PRIVATE_NOTE = (
    "These modules are private (their names start with `_`): import what they hold from the "
    "package above, which re-exports the public names. They are listed for readers of the source."
)


def api_pages() -> dict[str, str]:
    """``api/<name>.md`` -> text: the package's docstring and each module's public members."""
    lib = ROOT / "agentproto"
    pages: dict[str, str] = {}
    core = ["agentproto"] + [
        f"agentproto.{p.stem}" for p in sorted(lib.glob("*.py")) if not p.name.startswith("_")
    ]
    pages["core"] = "# agentproto (core modules)\n\n" + "\n".join(
        f"::: {m}\n    options:\n      show_root_heading: true\n" for m in core
    )
    index = [
        "# API reference",
        "",
        "Generated from the library's docstrings.",
        "",
        "| package | modules |",
        "|---|---|",
        f"| [agentproto (core)](core.md) | {len(core)} |",
    ]
    for name in API_PACKAGES:
        package = lib / name
        if not (package / "__init__.py").exists():
            continue
        mods = _modules(package, f"agentproto.{name}")
        body = [
            f"# agentproto.{name}",
            "",
            f"::: agentproto.{name}",
            "    options:",
            "      show_root_heading: false",
            "      members: false",
            "",
        ]
        body += [f"::: {m}\n" for m in mods]
        hidden = _modules(package, f"agentproto.{name}", private=True)
        if hidden:  # documented too, for readers of the source; the package's names are the API
            body += ["## Implementation modules", "", _PRIVATE_NOTE, ""]
            body += [f"::: {m}\n    options:\n      show_root_heading: true\n" for m in hidden]
        pages[name] = "\n".join(body)
        index.append(f"| [agentproto.{name}]({name}.md) | {len(mods)} |")
    pages["index"] = "\n".join(index) + "\n"
    return pages


def prepare(embed: bool = True) -> dict:
    cur = curriculum()
    if SRC.exists():
        shutil.rmtree(SRC)
    (SRC / "stylesheets").mkdir(parents=True)
    shutil.copyfile(ROOT / "site" / "extra.css", SRC / "stylesheets" / "extra.css")
    (SRC / "javascripts").mkdir()
    for script in SCRIPTS:
        shutil.copyfile(ROOT / "site" / script, SRC / "javascripts" / script)

    lessons = list(cur.LESSONS)
    known = {lesson.filename for lesson in lessons}
    present = {p.name for p in NOTEBOOKS.glob("*.ipynb")}
    extra = sorted(present - known)
    widgets = {"embedded": 0, "noted": 0}
    closed_cells = 0
    nav_notebooks: dict[str, list] = {}
    for lesson in lessons:
        if lesson.filename in present:
            counts = prepare_notebook(NOTEBOOKS / lesson.filename, SRC / "notebooks" / lesson.filename, embed)
            for k in widgets:
                widgets[k] += counts[k]
            closed_cells += counts["closed_cells"]
            nav_notebooks.setdefault(lesson.part, []).append(
                {f"{lesson.number:02d} {lesson.title}": f"notebooks/{lesson.filename}"}
            )
    for name in extra:
        counts = prepare_notebook(NOTEBOOKS / name, SRC / "notebooks" / name, embed)
        for k in widgets:
            widgets[k] += counts[k]
        closed_cells += counts["closed_cells"]
        nav_notebooks.setdefault("Other notebooks", []).append({name[:-6]: f"notebooks/{name}"})

    (SRC / "index.md").write_text(home_page(lessons, present), encoding="utf-8")
    (SRC / "glossary.md").write_text(glossary_page(cur.glossary()), encoding="utf-8")
    bank = json.loads((ROOT / "agentproto" / "data" / "course" / "question_bank.json").read_text("utf-8"))
    (SRC / "study-sheet.md").write_text(study_sheet(bank, lessons, present), encoding="utf-8")
    questions = study_sheet(bank, lessons, present, answers=False)
    (SRC / "study-questions.md").write_text(questions, encoding="utf-8")
    (SRC / "api").mkdir()
    api = api_pages()
    for name, text in api.items():
        (SRC / "api" / f"{name}.md").write_text(text, encoding="utf-8")

    nav: list = [{"Curriculum": "index.md"}]
    nav += [{part: items} for part, items in nav_notebooks.items()]
    nav += [
        {"Glossary": "glossary.md"},
        {"Study sheet": "study-sheet.md"},
        {"Questions only": "study-questions.md"},
        {
            "API reference": [{"Overview": "api/index.md"}, {"agentproto (core)": "api/core.md"}]
            + [{f"agentproto.{n}": f"api/{n}.md"} for n in API_PACKAGES if n in api]
        },
    ]
    config = {"INHERIT": "../site/mkdocs.yml", "docs_dir": "site-src", "site_dir": "site", "nav": nav}
    CONFIG.write_text(
        "# Generated by tools/build_site.py; edit site/mkdocs.yml instead.\n"
        + json.dumps(config, indent=2, ensure_ascii=False)
        + "\n",
        encoding="utf-8",
    )
    return {
        "notebooks": sum(len(v) for v in nav_notebooks.values()),
        "widgets": widgets,
        "closed_cells": closed_cells,
    }


ROOTED = re.compile(r"""(?P<attr>\b(?:href|src|action|poster)=["']?)/(?!/)""", re.I)
ROOTED_CONFIG = re.compile(r'"(?P<key>base|search)": "/(?P<rest>[^"]*)"')


def relative_404() -> None:
    """MkDocs writes ``404.html`` with links from the server's root (``/stylesheets/...``),
    which from ``file://`` point at the disk's root; the page sits at the site's root, so the
    same links without the ``/`` are right there."""
    page = SITE / "404.html"
    if not page.exists():
        return
    text = ROOTED.sub(lambda m: m["attr"], page.read_text(encoding="utf-8"))
    text = ROOTED_CONFIG.sub(lambda m: f'"{m["key"]}": "{m["rest"] or "."}"', text)
    page.write_text(text, encoding="utf-8")


def rooted_links(site: Path = SITE) -> list[str]:
    """``page: link`` for every link or resource of the built site given from the server's root."""
    found = []
    for page in sorted(site.rglob("*.html")):
        text = page.read_text(encoding="utf-8")
        for m in ROOTED.finditer(text):
            end = text.find(" ", m.end(), m.end() + 200)
            found.append(f"{page.relative_to(site)}: {text[m.start() : end if end > 0 else m.end() + 60]}")
    return found


def build(timeout: float = 900) -> dict:
    t0 = time.monotonic()
    embedder = widget_embedder()
    info = prepare(embed=embedder is not None)
    prepared = time.monotonic() - t0
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--clean", "-f", str(CONFIG)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    log = result.stdout + result.stderr
    (BUILD / "site-build.log").write_text(log, encoding="utf-8")
    if result.returncode != 0 or not (SITE / "index.html").exists():
        raise SystemExit(f"mkdocs build failed (exit {result.returncode}):\n{log[-4000:]}")
    info["embedder"] = HTML_MANAGER if embedder is not None else None
    if embedder is not None:
        info["pages_with_embedded_widgets"] = install_embedder(embedder)
    leaks = [p.name for p in SITE.rglob("*.html") if "unpkg.com" in p.read_text(encoding="utf-8")]
    if leaks:
        raise SystemExit(f"pages still load something from unpkg.com: {leaks}")
    relative_404()
    rooted = rooted_links()
    if rooted:
        raise SystemExit("links from the server's root break from file://:\n" + "\n".join(rooted[:20]))
    pages = sorted(p.relative_to(SITE).as_posix() for p in SITE.rglob("*.html"))
    info.update(
        pages=len(pages),
        prepare_s=round(prepared, 2),
        build_s=round(time.monotonic() - t0, 2),
        warnings=[ln for ln in log.splitlines() if ln.startswith("WARNING")][:50],
    )
    (BUILD / "site-build.json").write_text(json.dumps(info, indent=2) + "\n", encoding="utf-8")
    return info


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--prepare-only", action="store_true", help="write build/site-src and stop")
    args = parser.parse_args(argv)
    if args.prepare_only:
        info = prepare()
        print(
            f"prepared {info['notebooks']} notebooks in {SRC.relative_to(ROOT)}; "
            f"config {CONFIG.relative_to(ROOT)}"
        )
        return 0
    info = build()
    print(
        f"site: {info['pages']} pages ({info['notebooks']} notebooks; widgets: {info['widgets']['embedded']} "
        f"embedded, {info['widgets']['noted']} shown as a note; {info['closed_cells']} cells with answers "
        f"closed) in {info['build_s']} s -> "
        f"{(SITE / 'index.html').relative_to(ROOT)}"
    )
    for warning in info["warnings"]:
        print(warning)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

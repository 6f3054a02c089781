"""A griffe extension for the course site's API reference: the library's reST docstrings as Markdown.

The docstrings of ``agentproto`` are written for Sphinx: ``:class:`Reply```, ``:func:`~a.b.f```,
doctest blocks (``>>>``) and literal blocks introduced by ``::``. mkdocstrings renders Markdown,
where those show as raw roles, nested block quotes and run-on text. Before mkdocstrings parses a
docstring, :func:`rest_to_markdown` rewrites it:

* a Python role (``:class:``, ``:func:``, ``:meth:``, ``:attr:``, ``:data:``, ``:mod:``, ``:exc:``,
  ``:obj:``, ``:const:``, with or without ``py:``) becomes an optional cross-reference
  (``<autoref optional>``, mkdocs-autorefs' own marker) with the name as inline code: a link
  where the target has a page, plain code where it has none (a stdlib module, a private
  helper). The target is resolved the way Sphinx would: in the docstring's scope (its module's
  imports and members), then as a full path, then as a name that only one object of the
  package has. ``~a.b.C`` shows ``C``, ``title <target>`` shows ``title``, and a function or
  method gets ``()`` like Sphinx adds;
* any other role (``:rfc:``, ``:term:``...) becomes inline code;
* a doctest block becomes a ``pycon`` code block, a ``::`` literal block a code block (the
  ``::`` becomes ``:``, or goes when it stands alone, as Sphinx prints it), a simple table
  (``===  ===`` borders, an optional header, continuation lines) a Markdown table, and a
  definition list (a term, its definition indented under it) Markdown's ``def_list``.

Configured in ``site/mkdocs.yml`` (mkdocstrings' ``extensions`` option); nothing is imported
from the library, the source is only read.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Iterator
from typing import Any

from griffe import Extension, Object

#: The Python domain's roles; everything else is shown as inline code.
PY_ROLES = frozenset({"class", "func", "meth", "attr", "data", "mod", "exc", "obj", "const", "type"})
ROLE = re.compile(r"(?<![\w`:]):(?:(?P<domain>[a-z]+):)?(?P<role>[a-z][a-z0-9_-]*):`(?P<body>[^`]+)`")
EXPLICIT = re.compile(r"^(?P<title>.*?)\s*<(?P<target>[^<>]+)>$", re.S)
LIST_ITEM = re.compile(r"^(\s*)(?:\d+[.)]|[-*+])\s+")
FENCE = re.compile(r"^\s*(```|~~~)")
BORDER = re.compile(r"^\s*=+( +=+)+\s*$")
RULE = re.compile(r"^\s*-+( +-+)+\s*$")
CODE_SPAN = re.compile(r"(`+)(?s:.+?)\1")

Resolver = Callable[[str], str | None]


def _code(text: str) -> str:
    """``text`` as a Markdown code span (longer fences when it holds backticks)."""
    ticks = "``" if "`" in text else "`"
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{ticks}{pad}{text}{pad}{ticks}"


def convert_role(match: re.Match[str], resolve: Resolver | None = None) -> str:
    """One ``:role:`body``` as Markdown: an optional cross-reference, or inline code."""
    role, body = match["role"], " ".join(match["body"].split())
    domain = match["domain"]
    explicit = EXPLICIT.match(body)
    title = explicit["title"].strip() if explicit else None
    target = "".join((explicit["target"] if explicit else body).split())
    shorten, nolink = target.startswith("~"), target.startswith("!")
    target = target.lstrip("~!")
    if domain not in (None, "py") or role not in PY_ROLES:
        return _code(title or target)
    if not title:
        title = target.split(".")[-1] if shorten else target.lstrip(".")
        if role in ("func", "meth") and not title.endswith(")"):
            title += "()"
    if nolink:
        return _code(title)
    identifier = (resolve(target) if resolve else None) or target.lstrip(".")
    return f'<autoref identifier="{html.escape(identifier)}" optional>{_code(title)}</autoref>'


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _content_column(line: str) -> int:
    """Where a line's text starts, a list marker counted as indentation."""
    item = LIST_ITEM.match(line)
    return item.end() if item else _indent(line)


def _columns(border: str) -> list[int]:
    """Where each column of a reST simple table starts, from one of its ``===`` borders."""
    return [m.start() for m in re.finditer(r"=+", border)]


def _table_cell(text: str) -> str:
    """A cell's text with the pipes outside code spans escaped (a pipe would split the cell)."""
    out, last = [], 0
    for m in CODE_SPAN.finditer(text):
        out += [text[last : m.start()].replace("|", "\\|"), m.group(0)]
        last = m.end()
    return "".join(out + [text[last:].replace("|", "\\|")])


def simple_table(lines: list[str], start: int) -> tuple[list[str], int] | None:
    """A reST simple table starting at ``lines[start]`` (its top ``===`` border) as Markdown
    table lines, and the index after its bottom border; ``None`` if it is not one."""
    border = lines[start]
    borders = [j for j in range(start + 1, len(lines)) if lines[j].rstrip() == border.rstrip()]
    if not borders:
        return None
    cols = _columns(border)
    pad = " " * cols[0]
    first = borders[0]
    header_rows: list[str] = []
    end = first
    if len(borders) > 1 and all(lines[k].strip() for k in range(first + 1, borders[1])):
        header_rows, end = lines[start + 1 : first], borders[1]
        body_rows = lines[first + 1 : end]
    else:
        body_rows = lines[start + 1 : first]

    def rows(raw: list[str]) -> list[list[str]]:
        out: list[list[str]] = []
        for line in raw:
            if not line.strip():
                continue
            cells = [
                line[a : (cols[n + 1] if n + 1 < len(cols) else len(line))].strip()
                for n, a in enumerate(cols)
            ]
            if out and not cells[0]:  # a continuation line: its text goes on the row above
                out[-1] = [f"{old} {new}".strip() for old, new in zip(out[-1], cells)]
            else:
                out.append(cells)
        return out

    head = rows(header_rows) or [[""] * len(cols)]
    header = "| " + " | ".join(_table_cell(" ".join(c[n] for c in head).strip()) for n in range(len(cols)))
    groups: list[list[str]] = [[]]  # a ``---`` rule between rows splits the table in groups
    for line in body_rows:
        if RULE.match(line):
            groups.append([])
        else:
            groups[-1].append(line)
    table: list[str] = []
    for group in groups:
        if table:
            table.append("")
        table += [header + " |", "|" + "|".join("---" for _ in cols) + "|"]
        table += ["| " + " | ".join(_table_cell(c) for c in row) + " |" for row in rows(group)]
    return [pad + line if line else "" for line in table], end + 1


def _literal(lines: list[str], i: int) -> tuple[list[str], int] | None:
    """The ``::`` paragraph end at ``lines[i]`` and the literal block after it, as Markdown
    (a fenced block), and the index after the block; ``None`` if no block follows."""
    line, stripped = lines[i], lines[i].strip()
    j = i + 1
    while j < len(lines) and not lines[j].strip():
        j += 1
    if j == i + 1 or j == len(lines):
        return None
    base = _content_column(line)
    k = j
    if _indent(lines[j]) > base:  # the block: every line indented deeper than the paragraph
        while k < len(lines) and (not lines[k].strip() or _indent(lines[k]) > base):
            k += 1
    else:  # not indented (a common slip): the paragraph that follows is meant as the block
        while k < len(lines) and lines[k].strip():
            k += 1
    block = lines[j:k]
    while block and not block[-1].strip():
        block.pop()
    cut = min(_indent(b) for b in block if b.strip())
    pad = " " * base
    out = []
    if stripped != "::":  # "text::" prints "text:", "text ::" prints "text"; "::" alone goes
        out.append(line.rstrip()[:-3].rstrip() if stripped.endswith(" ::") else line.rstrip()[:-1])
    out += ["", f"{pad}```text", *((pad + b[cut:]) if b.strip() else "" for b in block), f"{pad}```", ""]
    return out, k


def _definition(lines: list[str], i: int) -> tuple[list[str], int] | None:
    """A reST definition list item at ``lines[i]`` (a term, its definition indented under it)
    in the ``def_list`` syntax (``term`` then ``:   definition``), and the index after it."""
    line = lines[i]
    if i + 1 >= len(lines) or not lines[i + 1].strip() or LIST_ITEM.match(line):
        return None
    base = _indent(line)
    if base >= 4 or _indent(lines[i + 1]) <= base:  # (4 spaces in: Markdown's code block)
        return None
    k = i + 1
    while k < len(lines) and (not lines[k].strip() or _indent(lines[k]) > base):
        k += 1
    body = lines[i + 1 : k]
    while body and not body[-1].strip():
        body.pop()
    cut = min(_indent(b) for b in body if b.strip())
    pad = " " * base
    out = [line, f"{pad}:   {body[0][cut:]}"]
    out += [f"{pad}    {b[cut:]}" if b.strip() else "" for b in body[1:]]
    return out, k


def _blocks(lines: list[str]) -> Iterator[str]:
    """The lines with reST's block constructs in Markdown: simple tables, doctest and ``::``
    literal blocks, definition lists."""
    i, fenced, in_definitions = 0, False, False
    out: list[str] = []
    while i < len(lines):
        line = lines[i]
        if FENCE.match(line):
            fenced = not fenced
        stripped = line.strip()
        previous_blank = not out or not out[-1].strip()
        found, block_start = None, True  # block_start: the construct needs a blank line above
        if fenced or not stripped:
            pass
        elif BORDER.match(line):
            found = simple_table(lines, i)
        elif stripped.startswith(">>>") and previous_blank:
            pad = " " * _indent(line)
            k = i
            while k < len(lines) and lines[k].strip():
                k += 1
            block = [b[len(pad) :] if b.startswith(pad) else b.lstrip() for b in lines[i:k]]
            found = [f"{pad}```pycon", *(pad + b for b in block), f"{pad}```"], k
        elif stripped.endswith("::") and not stripped.startswith(".."):
            found, block_start = _literal(lines, i), False  # it ends the paragraph above
        elif previous_blank or in_definitions:
            found = _definition(lines, i)
            in_definitions = found is not None
        if found is None:
            out.append(line)
            i += 1
            continue
        if block_start and not previous_blank:
            out.append("")
        out += found[0]
        i = found[1]
        if i < len(lines) and lines[i].strip() and out[-1].strip():
            out.append("")
    yield from out


def rest_to_markdown(text: str, resolve: Resolver | None = None) -> str:
    """A reST docstring (roles, doctests, literal blocks) as the Markdown mkdocstrings renders."""
    chunks: list[list[str]] = [[]]  # prose and fenced code, alternating
    for line in _blocks(text.split("\n")):
        if FENCE.match(line):
            if len(chunks) % 2:  # prose: the fence opens a code chunk
                chunks.append([line])
            else:
                chunks[-1].append(line)
                chunks.append([])
            continue
        chunks[-1].append(line)
    out: list[str] = []
    for n, chunk in enumerate(chunks):
        if n % 2 or not chunk:
            out += chunk
        else:
            out += ROLE.sub(lambda m: convert_role(m, resolve), "\n".join(chunk)).split("\n")
    return "\n".join(out)


class _Index:
    """Names in the loaded package, to resolve a role's target as Sphinx would."""

    def __init__(self, root: Object) -> None:
        self.root = root
        self.by_name: dict[str, list[str]] = {}
        for obj in self.walk(root):
            self.by_name.setdefault(obj.name, []).append(obj.path)

    def walk(self, obj: Object) -> Iterator[Object]:
        yield obj
        for member in list(obj.members.values()):
            if not member.is_alias:
                yield from self.walk(member)  # type: ignore[arg-type]

    def canonical(self, path: str, depth: int = 0) -> str | None:
        """The path of the object ``path`` names, re-exports followed; ``None`` outside the package."""
        parts = path.split(".")
        if parts[0] != self.root.name or depth > 10:
            return None
        obj: Any = self.root
        for n, part in enumerate(parts[1:], start=1):
            member = obj.members.get(part)
            if member is None:
                return None
            if member.is_alias:
                rest = ".".join(parts[n + 1 :])
                target = member.target_path + (f".{rest}" if rest else "")
                return self.canonical(target, depth + 1)
            obj = member
        return obj.path

    def resolve(self, scope: Object, target: str) -> str | None:
        target = target.lstrip(".")
        first, _, rest = target.partition(".")
        suffix = f".{rest}" if rest else ""
        found = self.canonical(target)
        if found:
            return found
        try:
            found = self.canonical(scope.resolve(first) + suffix)
        except Exception:  # griffe's NameResolutionError, or a name its scope cannot hold
            found = None
        if found:
            return found
        owners = self.by_name.get(first, [])
        public = [p for p in owners if not any(part.startswith("_") for part in p.split("."))]
        for candidates in (public, owners):
            if len(candidates) == 1:
                return self.canonical(candidates[0] + suffix)
        return None


class RestDocstrings(Extension):
    """Rewrites every docstring of a loaded package with :func:`rest_to_markdown`."""

    def on_package(self, *, pkg: Any, **kwargs: Any) -> None:
        index = _Index(pkg)
        for obj in index.walk(pkg):
            docstring = obj.docstring
            if docstring is None or not docstring.value:
                continue
            docstring.value = rest_to_markdown(docstring.value, lambda t, o=obj: index.resolve(o, t))
            docstring.__dict__.pop("parsed", None)  # parsed lazily: drop any stale parse

"""What outside readers tripped on, checked across all notebooks (sources and stored outputs).

- **One name per error code.** Wherever an A2A or JSON-RPC error code stands next to an error
  name, the name is the spec's (``agentproto.a2a.errors``) or a subclass the kit defines, and a
  kit subclass appears only in a cell that also names the spec's error it refines.
- **Announced counts.** "nine rules" in a section that labels its rules ``Rule 1`` … ``Rule k``
  means k = 9; "three checks:" before a numbered list means three items.
- **Exercise text matches its code.** A setting an exercise states as inline code
  (```key_ttl=30```) is the keyword argument its code passes.
- **One vocabulary for outcomes.** The lint report's ``verdict`` is never called an outcome,
  and a truncated run is never said to have the outcome ``failed``.
"""

from __future__ import annotations

import ast
import inspect
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

import agentproto.a2a.machine  # noqa: F401  (InvalidTransitionError, a kit refinement of -32006)
from agentproto.a2a import errors as a2a_errors

NOTEBOOKS = sorted((Path(__file__).resolve().parents[1] / "notebooks").glob("*.ipynb"))

WORDS = {
    w: i for i, w in enumerate("zero one two three four five six seven eight nine ten eleven twelve".split())
}
COUNTED = {
    "rules": "rule",
    "invariants": "invariant",
    "triggers": "trigger",
    "steps": "step",
    "checks": "check",
}
ANNOUNCED = re.compile(
    r"\b(" + "|".join(WORDS) + r")\s+(?:[a-z-]+\s+)?(" + "|".join(COUNTED) + r")\b", re.IGNORECASE
)
CODE = re.compile(r"(?<![\d.])-32(?:00[1-9]|60[0-3]|700)\b")
NAME = r"`?([A-Z][A-Za-z]+(?:Error)?)`?"


@dataclass(frozen=True)
class Cell:
    notebook: str
    index: int
    kind: str
    source: str
    outputs: str

    @property
    def text(self) -> str:
        return self.source + "\n" + self.outputs


def _outputs(cell: dict) -> str:
    parts: list[str] = []
    for out in cell.get("outputs", []):
        if "text" in out:
            parts.append("".join(out["text"]))
        for mime, value in out.get("data", {}).items():
            if mime.startswith("text/"):
                parts.append("".join(value) if isinstance(value, list) else value)
    return "\n".join(parts)


def cells(path: Path) -> list[Cell]:
    nb = json.loads(path.read_text(encoding="utf-8"))
    return [
        Cell(path.name, i, c["cell_type"], "".join(c["source"]), _outputs(c))
        for i, c in enumerate(nb["cells"])
    ]


def sections(path: Path) -> Iterator[list[Cell]]:
    """The notebook split at its ``##`` headings (each part: the heading cell and what follows)."""
    part: list[Cell] = []
    for cell in cells(path):
        if cell.kind == "markdown" and re.match(r"## ", cell.source):
            if part:
                yield part
            part = []
        part.append(cell)
    if part:
        yield part


# -- one name per error code ----------------------------------------------------------------


def _spec_errors() -> dict[int, type[a2a_errors.A2AError]]:
    """Code → the spec's class for it (the base of any kit refinement with the same code)."""
    table: dict[int, type[a2a_errors.A2AError]] = {}
    for _, cls in inspect.getmembers(a2a_errors, inspect.isclass):
        code = getattr(cls, "code", None)
        if issubclass(cls, a2a_errors.A2AError) and isinstance(code, int):
            if code not in table or issubclass(table[code], cls):
                table[code] = cls
    return table


SPEC_ERRORS = _spec_errors()


def _refinements() -> dict[str, type[a2a_errors.A2AError]]:
    """Kit classes that refine a spec error and keep its code: name → the spec class."""
    found: dict[str, type[a2a_errors.A2AError]] = {}
    for base in SPEC_ERRORS.values():
        todo = list(base.__subclasses__())
        while todo:
            sub = todo.pop()
            todo.extend(sub.__subclasses__())
            if getattr(sub, "code", None) == base.code:
                found[sub.__name__] = base
    return found


REFINEMENTS = _refinements()
#: Names that share a number with an A2A code in another protocol, allowed on a line that names
#: that protocol: the official MCP SDKs' request-timeout code is -32001, A2A's TaskNotFound.
FOREIGN = {(-32001, "RequestTimeout"): "MCP"}


def named_codes(cell: Cell) -> Iterator[tuple[int, str, str]]:
    """(code, name, line) for every error name written right before or after an error code."""
    for line in cell.text.splitlines():
        for m in CODE.finditer(line):
            before = re.search(NAME + r"\W{1,4}$", line[: m.start()])
            after = re.match(r"\W{1,4}" + NAME, line[m.end() :])
            for found in (before, after):
                if found and (found.group(1).endswith("Error") or found.group(1) in _BARE_NAMES):
                    yield int(m.group()), found.group(1), line


_BARE_NAMES = {cls.__name__.removesuffix("Error") for cls in SPEC_ERRORS.values()} | {"RequestTimeout"}


def test_the_error_table_knows_the_codes_the_readers_met():
    assert SPEC_ERRORS[-32006].__name__ == "InvalidAgentResponseError"
    assert SPEC_ERRORS[-32001].__name__ == "TaskNotFoundError"
    assert REFINEMENTS["InvalidTransitionError"].__name__ == "InvalidAgentResponseError"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_every_error_code_goes_by_one_name(path):
    wrong = []
    for cell in cells(path):
        for code, name, line in named_codes(cell):
            spec = SPEC_ERRORS.get(code)
            if spec is None:
                continue
            if name in (spec.__name__, spec.__name__.removesuffix("Error")):
                continue
            foreign = FOREIGN.get((code, name))
            if foreign and foreign in line:
                continue
            base = REFINEMENTS.get(name)
            if base is spec and spec.__name__ in cell.text:
                continue
            wrong.append(
                f"cell {cell.index}: {code} called {name} (spec: {spec.__name__}): {line.strip()[:120]}"
            )
    assert not wrong, "\n".join(wrong)


def test_the_name_check_catches_the_readers_case():
    lab = Cell("x", 0, "code", "", "InvalidTransitionError [-32006]: working → submitted")
    assert [(c, n) for c, n, _ in named_codes(lab)] == [(-32006, "InvalidTransitionError")]
    assert SPEC_ERRORS[-32006].__name__ not in lab.text


# -- announced counts -------------------------------------------------------------------------


def announced_counts(part: list[Cell]) -> Iterator[tuple[str, int, int]]:
    """(phrase, announced, found) for each count a section announces and then labels or lists."""
    markdown = [c.source for c in part if c.kind == "markdown"]
    text = "\n".join(markdown)
    for m in ANNOUNCED.finditer(text):
        announced = WORDS[m.group(1).lower()]
        noun = COUNTED[m.group(2).lower()]
        labels = {int(k) for k in re.findall(rf"\b{noun}\s+(\d+)\b", text, re.IGNORECASE)}
        if labels and labels == set(range(1, max(labels) + 1)):  # a numbered set, not a mention
            yield m.group(0), announced, max(labels)
            continue
        line_end = text.find("\n", m.end())
        if text[m.end() : line_end if line_end >= 0 else None].rstrip().endswith(":"):
            rest = text[line_end + 1 :] if line_end >= 0 else ""
            rest = re.split(r"\n#{2,4} ", rest)[0]
            numbers = [int(n) for n in re.findall(r"(?m)^(\d+)\. ", rest)]
            run = 0
            for n in numbers:
                if n != run + 1:
                    break
                run = n
            if run:
                yield m.group(0), announced, run


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_every_announced_count_matches_what_the_section_lists(path):
    wrong = [
        f"{phrase!r}: announces {said}, lists {found}"
        for part in sections(path)
        for phrase, said, found in announced_counts(part)
        if said != found
    ]
    assert not wrong, "\n".join(wrong)


def test_the_count_check_catches_eight_rules_listed_as_nine():
    part = [Cell("x", 0, "markdown", "## 6. The rules\n\nThe page lists eight contract rules.", "")]
    part += [Cell("x", i, "markdown", f"**Rule {i}.** text", "") for i in range(1, 10)]
    assert list(announced_counts(part)) == [("eight contract rules", 8, 9)]


# -- exercise text vs its code -----------------------------------------------------------------

SETTING = re.compile(r"`([A-Za-z_]\w*)\s*=\s*([^`=][^`]*)`")


def exercises(path: Path) -> Iterator[tuple[Cell, str]]:
    """(exercise text cell, the code that follows it up to the next markdown cell)."""
    all_cells = cells(path)
    in_exercises = False
    for i, cell in enumerate(all_cells):
        if cell.kind != "markdown":
            continue
        if re.match(r"#{2,3} ", cell.source):
            in_exercises = bool(re.match(r"#{2,3} .*Exercise", cell.source))
        if not (in_exercises or cell.source.startswith("**Exercise")):
            continue
        code = []
        for after in all_cells[i + 1 :]:
            if after.kind == "markdown":
                break
            code.append(after.source)
        yield cell, "\n".join(code)


def keyword_values(code: str) -> dict[str, set[str]]:
    """Every keyword argument (or plain assignment) in the code, with each value's source text."""
    found: dict[str, set[str]] = {}
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return found
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign):  # `title = "Shipment"` before the call that uses it
            for target in node.targets:
                if isinstance(target, ast.Name):
                    found.setdefault(target.id, set()).add(ast.unparse(node.value))
        if isinstance(node, ast.Call):
            for kw in node.keywords:
                if kw.arg is not None:
                    found.setdefault(kw.arg, set()).add(ast.unparse(kw.value))
    return found


def checked_values(code: str) -> set[str]:
    """The constants the code's self-checks compare against (``check_equal(…, "Shipment")``)."""
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return set()
    found: set[str] = set()
    for node in ast.walk(tree):
        checks = isinstance(node, ast.Compare) or (
            isinstance(node, ast.Call) and getattr(node.func, "id", "") in ("check", "check_equal")
        )
        if checks:
            found |= {ast.unparse(c) for c in ast.walk(node) if isinstance(c, ast.Constant)}
    return found


LIBRARY = ("agentproto.course", "agentproto.orchestration", "agentproto.a2a", "agentproto.agui")


def defaults_of(code: str, name: str) -> set[str]:
    """The defaults of parameter ``name`` of the library callables the code calls."""
    import importlib

    found: set[str] = set()
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return found
    called = {n.func.id for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}
    for module in map(importlib.import_module, LIBRARY):
        for func in called:
            target = getattr(module, func, None)
            try:
                parameter = inspect.signature(target).parameters.get(name) if target else None
            except (TypeError, ValueError):
                parameter = None
            if parameter is not None and parameter.default is not inspect.Parameter.empty:
                found.add(repr(parameter.default))
    return found


def _called_default(text: str, name: str) -> bool:
    """The text calls the setting a default: "the default `gain=0.5`", "default `seed=0`"."""
    return re.search(rf"default\W{{1,3}}`{name}\s*=", text) is not None


def mismatched_settings(text: str, code: str, notebook_code: str = "") -> list[str]:
    """Settings the text states as inline code that the code neither passes nor checks for.

    A setting the code passes (a keyword argument or an assignment) must have the stated value;
    one the text calls "the default" must be the default of a library callable the notebook calls;
    one the reader is asked to write must be what the self-check compares against.
    """
    passed, checked = keyword_values(code), checked_values(code)
    wrong = []
    for name, value in SETTING.findall(text):
        value = value.strip()
        if value == "...":
            continue  # a blank the reader fills in
        try:
            said = ast.unparse(ast.parse(value, mode="eval").body)
        except SyntaxError:
            said = value
        if said in passed.get(name, set()) or (name not in passed and said in checked):
            continue
        defaults = defaults_of(notebook_code or code, name)
        if name not in passed and said in defaults and _called_default(text, name):
            continue
        got = sorted(passed.get(name, ())) or "nothing"
        wrong.append(f"`{name}={value}` in the text, code passes {name}={got}")
    return wrong


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_every_setting_an_exercise_states_is_the_one_its_code_passes(path):
    everything = "\n".join(c.source for c in cells(path) if c.kind == "code" and not c.source.startswith("%"))
    wrong = [
        f"cell {cell.index}: {problem}"
        for cell, code in exercises(path)
        for problem in mismatched_settings(cell.source, code, everything)
    ]
    assert not wrong, "\n".join(wrong)


def test_the_setting_check_catches_text_that_names_settings_the_code_does_not_pass():
    text = "A chain with `envelope=True` and `discrimination=0.8`, run with `key_ttl=...`."
    assert mismatched_settings(text, "threshold_sweep(ChainConfig(p=0.9, n=6), [t])") == [
        "`envelope=True` in the text, code passes envelope=nothing",
        "`discrimination=0.8` in the text, code passes discrimination=nothing",
    ]
    assert mismatched_settings(text, "ChainConfig(envelope=True, discrimination=0.8)") == []


# -- one vocabulary for outcomes ----------------------------------------------------------------

VERDICT_AS_OUTCOME = re.compile(
    r"report(?:'s|\.)\s*`?outcome|outcome[`\s]*(?:is\s+)?`?(?:completed|failed)`?\s+with the rule|"
    r"outcome `failed` with (?:the )?rule `run\.truncated`",
    re.IGNORECASE,
)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_the_verdict_on_a_stream_is_never_called_its_outcome(path):
    wrong = [
        f"cell {cell.index}: {m.group(0)!r}"
        for cell in cells(path)
        for m in VERDICT_AS_OUTCOME.finditer(cell.text)
    ]
    assert not wrong, "\n".join(wrong)


def test_the_vocabulary_check_catches_the_readers_sentence():
    assert VERDICT_AS_OUTCOME.search(
        "the pipeline reports the outcome `failed` with the rule `run.truncated`"
    )
    assert VERDICT_AS_OUTCOME.search("print(report.outcome)")
    assert not VERDICT_AS_OUTCOME.search(
        "the report's verdict is `rejected` and the run's outcome `truncated`"
    )


def test_a_stated_default_must_be_the_librarys_default():
    notebook = "loop = Loop(period=1, latency=5)\nrun_loop(drift, loop)"
    right = "The loop with `period=1` (and the default `gain=0.5`)."
    wrong = "The loop with the default `gain=0.7`."
    assert mismatched_settings(right, "loop = Loop(period=1, latency=5)", notebook) == []
    assert mismatched_settings(wrong, "run_loop(drift, my_loop)", notebook) == [
        "`gain=0.7` in the text, code passes gain=nothing"
    ]

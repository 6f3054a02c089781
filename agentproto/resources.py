"""Files the package reads at run time, opened with :mod:`importlib.resources`.

Everything the library and the course read ships inside the package (``agentproto/data/``),
so an installed wheel behaves the same in ``site-packages`` as in a clone of the repository,
and a notebook copied anywhere still finds its scenarios:

* ``scenarios/`` — the simulation scenarios (deadlock plans, trip plans, escalation actions);
* ``course/`` — the question bank and the glossary;
* ``demo/`` — the demo shop's orders.

>>> sorted(scenario_names())[:2]
['deadlock_travel', 'deadlock_travel_hidden']
"""

from __future__ import annotations

import json
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Any

__all__ = ["data_file", "read_text", "read_json", "scenario_names", "scenario", "load_json_source"]


def data_file(*parts: str) -> Traversable:
    """The packaged data file ``agentproto/data/<parts…>``."""
    node = resources.files("agentproto").joinpath("data")
    for part in parts:
        node = node.joinpath(part)
    if not node.is_file():
        raise FileNotFoundError(f"agentproto ships no data file {'/'.join(parts)!r}")
    return node


def read_text(*parts: str) -> str:
    """The text of a packaged data file (UTF-8)."""
    return data_file(*parts).read_text(encoding="utf-8")


def read_json(*parts: str) -> Any:
    """A packaged JSON data file, parsed."""
    return json.loads(read_text(*parts))


def scenario_names() -> list[str]:
    """The names of the packaged scenarios (file names without ``.json``)."""
    folder = resources.files("agentproto").joinpath("data", "scenarios")
    return sorted(p.name[: -len(".json")] for p in folder.iterdir() if p.name.endswith(".json"))


def scenario(name: str) -> Any:
    """A packaged scenario by name (``"deadlock_travel"``), parsed."""
    if name not in scenario_names():
        raise FileNotFoundError(f"no scenario {name!r}; the packaged ones are {scenario_names()}")
    return read_json("scenarios", f"{name}.json")


def load_json_source(source: str | Path) -> Any:
    """A scenario given by name, or a JSON file given by path: what the loaders accept.

    A bare name without a path separator or ``.json`` (``"deadlock_travel"``) is a packaged
    scenario; anything else is a file on disk.
    """
    text = str(source)
    if "/" not in text and "\\" not in text and not text.endswith(".json"):
        return scenario(text)
    return json.loads(Path(source).read_text(encoding="utf-8"))

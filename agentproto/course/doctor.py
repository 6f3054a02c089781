"""Environment check: is everything the course needs installed, at a version that works?

Used by notebook 00 and by ``agentproto doctor``. Each check is one line,
``[OK]`` or ``[FAIL]``, with the installed version and what to do when it fails.
"""

from __future__ import annotations

import argparse
import importlib
import shutil
import sys
from dataclasses import dataclass
from importlib import metadata

__all__ = ["Check", "Report", "check_environment", "configure"]

#: (distribution name, import name, why the course needs it)
REQUIRED = [
    ("pydantic", "pydantic", "event and task models"),
    ("jsonpatch", "jsonpatch", "STATE_DELTA (RFC 6902)"),
    ("jsonschema", "jsonschema", "interrupt responseSchema validation"),
    ("httpx", "httpx", "clients"),
    ("starlette", "starlette", "demo servers"),
    ("uvicorn", "uvicorn", "running the demo servers"),
    ("sse-starlette", "sse_starlette", "server-sent events"),
    ("PyJWT", "jwt", "tokens and card signatures"),
    ("matplotlib", "matplotlib", "plots"),
    ("networkx", "networkx", "graphs (deadlocks, plans)"),
    ("ipywidgets", "ipywidgets", "interactive widgets"),
    ("jupyterlab", "jupyterlab", "the course front end"),
]
#: Optional: only the interop tests and benchmarks need them.
OPTIONAL = [
    ("ag-ui-protocol", "ag_ui.core", "official AG-UI SDK (interop tests)"),
    ("a2a-sdk", "a2a", "official A2A SDK (interop tests)"),
]


@dataclass(frozen=True)
class Check:
    name: str
    ok: bool
    version: str
    purpose: str
    required: bool = True

    def line(self) -> str:
        mark = "[OK]  " if self.ok else ("[FAIL]" if self.required else "[--]  ")
        ver = self.version or "not installed"
        return f"{mark} {self.name:<15} {ver:<12} {self.purpose}"


@dataclass(frozen=True)
class Report:
    checks: list[Check]

    @property
    def ok(self) -> bool:
        return all(c.ok for c in self.checks if c.required)

    @property
    def failures(self) -> list[Check]:
        return [c for c in self.checks if c.required and not c.ok]

    def __str__(self) -> str:
        lines = [c.line() for c in self.checks]
        if self.ok:
            lines.append(f"All {sum(c.required for c in self.checks)} required checks passed.")
        else:
            names = ", ".join(c.name for c in self.failures)
            lines.append(f"Missing or broken: {names}. Fix: run `make lab` (or `pip install -e .`) "
                         "from the repository root.")
        return "\n".join(lines)


def _probe(dist: str, module: str, purpose: str, required: bool) -> Check:
    try:
        importlib.import_module(module)
        version = metadata.version(dist)
        ok = True
    except Exception:  # noqa: BLE001 - any import failure is a failed check
        version, ok = "", False
    return Check(dist, ok, version, purpose, required)


def check_environment(include_optional: bool = True) -> Report:
    """Probe Python, the course's packages and the agentproto package itself."""
    checks = [
        Check("python", sys.version_info >= (3, 11), ".".join(map(str, sys.version_info[:3])),
              "3.11 or newer"),
    ]
    checks += [_probe(d, m, p, True) for d, m, p in REQUIRED]
    checks.append(_probe("agentproto", "agentproto", "this kit", True))
    if include_optional:
        checks += [_probe(d, m, p, False) for d, m, p in OPTIONAL]
        browser = shutil.which("chromium") or shutil.which("chromium-browser")
        checks.append(Check("chromium", bool(browser), "found" if browser else "",
                            "real-browser widget test (optional)", required=False))
    return Report(checks)


def _handler(args: argparse.Namespace) -> int:
    report = check_environment(include_optional=not args.required_only)
    print(report)
    return 0 if report.ok else 1


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--required-only", action="store_true", help="skip optional checks")
    parser.set_defaults(handler=_handler)

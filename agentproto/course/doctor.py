"""Environment check: is everything the course needs installed and importable?

Used by notebook 00 and by ``agentproto doctor``. The report names, for each package, the
*extra* of ``agentproto`` that brings it — the base install, ``server`` (demo servers, HTTP
clients, tokens) or ``course`` (JupyterLab, widgets, plots) — and says which extras are
complete, so the fix it prints is the install command that adds what is missing, whether
agentproto came from a wheel or from a clone of the repository. It also checks that the
data the course reads ships with the package (the question bank and the glossary).

Each check is one line, ``[OK]``, ``[FAIL]`` (needed and missing) or ``[--]`` (optional and
missing), with the installed version and what the package is for. This module imports no
optional package itself, so it works — and reports — on a bare install.
"""

from __future__ import annotations

import argparse
import importlib
import json
import shutil
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from importlib import metadata

from agentproto import _schemas

__all__ = [
    "PACKAGES",
    "NEEDED_EXTRAS",
    "EnvironmentCheck",
    "EnvironmentReport",
    "check_environment",
    "configure",
]

#: (extra, distribution name, import name, why the course needs it); extra ``""`` is the
#: base install. ``tests/test_teaching.py`` keeps this list in step with pyproject.toml.
PACKAGES: list[tuple[str, str, str, str]] = [
    ("", "pydantic", "pydantic", "event and task models"),
    ("", "jsonpatch", "jsonpatch", "STATE_DELTA (RFC 6902)"),
    ("", "jsonschema", "jsonschema", "interrupt responseSchema validation"),
    ("server", "httpx", "httpx", "clients"),
    ("server", "starlette", "starlette", "demo servers"),
    ("server", "uvicorn", "uvicorn", "running the demo servers"),
    ("server", "sse-starlette", "sse_starlette", "server-sent events"),
    ("server", "PyJWT", "jwt", "tokens and card signatures"),
    ("grpc", "grpcio", "grpc", "the A2A gRPC binding"),
    ("grpc", "a2a-sdk", "a2a.types", "the official A2A protobuf stubs (gRPC binding)"),
    ("grpc", "googleapis-common-protos", "google.rpc", "google.rpc.Status (gRPC errors)"),
    ("course", "jupyterlab", "jupyterlab", "the course front end"),
    ("course", "ipykernel", "ipykernel", "the notebooks' Python kernel"),
    ("course", "ipywidgets", "ipywidgets", "interactive widgets"),
    ("course", "matplotlib", "matplotlib", "plots"),
    ("course", "networkx", "networkx", "graphs (deadlocks, plans)"),
    ("course", "numpy", "numpy", "numbers behind the plots"),
    ("server", "platformdirs", "platformdirs", "where `agentproto serve` keeps its database"),
    ("interop", "ag-ui-protocol", "ag_ui.core", "official AG-UI SDK (interop tests)"),
    ("interop", "a2a-sdk", "a2a", "official A2A SDK (interop tests)"),
]

#: The extras the notebooks need (``course`` brings ``server`` and ``grpc``); the others
#: (``interop``) are reported but optional.
NEEDED_EXTRAS = ("server", "grpc", "course")

#: Packaged data the course reads (through :mod:`agentproto.resources`).
COURSE_DATA = (("course", "question_bank.json"), ("course", "glossary.csv"))


@dataclass(frozen=True)
class EnvironmentCheck:
    """One line of the report."""

    name: str
    ok: bool
    version: str
    purpose: str
    required: bool = True
    extra: str = ""  #: the agentproto extra that installs it ("" = base install)

    def line(self) -> str:
        mark = "[OK]  " if self.ok else ("[FAIL]" if self.required else "[--]  ")
        ver = self.version or "not installed"
        where = f"[{self.extra}]" if self.extra else ""
        return f"{mark} {self.name:<15} {ver:<14} {where:<10} {self.purpose}".rstrip()


@dataclass(frozen=True)
class EnvironmentReport:
    """Every check, and a verdict per extra."""

    checks: list[EnvironmentCheck]

    @property
    def ok(self) -> bool:
        return all(c.ok for c in self.checks if c.required)

    @property
    def failures(self) -> list[EnvironmentCheck]:
        return [c for c in self.checks if c.required and not c.ok]

    def extras(self) -> dict[str, bool]:
        """For each extra in the report: whether all of its packages import."""
        verdict: dict[str, bool] = {}
        for check in self.checks:
            if check.extra:
                verdict[check.extra] = verdict.get(check.extra, True) and check.ok
        return verdict

    def fix(self) -> str:
        """The install command that adds what is missing (``""`` when nothing is)."""
        if not self.failures:
            return ""
        missing = sorted({c.extra for c in self.failures if c.extra})
        spec = "." + (f"[{','.join(missing)}]" if missing else "")
        return (
            f'pip install --upgrade "{spec}" in a clone of the repository (or `make lab`); agentproto '
            "is not on the public package index, so install from the clone, a built wheel or a wheelhouse"
        )

    def __str__(self) -> str:
        lines = [c.line() for c in self.checks]
        extras = self.extras()
        if extras:
            lines.append(
                "Extras: "
                + "  ".join(
                    f"{name} {'✓' if ok else '✗'}{'' if name in NEEDED_EXTRAS else ' (optional)'}"
                    for name, ok in extras.items()
                )
            )
        if self.ok:
            lines.append(f"All {sum(c.required for c in self.checks)} required checks passed.")
        else:
            names = ", ".join(c.name for c in self.failures)
            lines.append(f"Missing or broken: {names}. Fix: {self.fix()}.")
        return "\n".join(lines)


def _version(dist: str) -> str:
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return ""


def _import(module: str) -> object:
    """Import ``module`` as the kit does: :mod:`jsonschema` through :func:`agentproto._schemas.jsonschema`,
    without the format checker that compiles grammars for a second or more at import."""
    if module == "jsonschema":
        return _schemas.jsonschema()
    return importlib.import_module(module)


def _probe(extra: str, dist: str, module: str, purpose: str, required: bool) -> EnvironmentCheck:
    try:
        _import(module)
        version, ok = _version(dist) or "?", True
    except Exception:  # any import failure is a failed check
        version, ok = "", False
    return EnvironmentCheck(dist, ok, version, purpose, required, extra)


def _agentproto() -> EnvironmentCheck:
    """agentproto itself: its version and how it is installed (never assumes a checkout)."""
    import agentproto

    try:
        dist = metadata.distribution("agentproto")
    except metadata.PackageNotFoundError:
        return EnvironmentCheck(
            "agentproto",
            True,
            agentproto.__version__,
            "this kit (imported from a source tree, not installed)",
        )
    try:
        direct = json.loads(dist.read_text("direct_url.json") or "{}")
    except ValueError:
        direct = {}
    editable = bool(direct.get("dir_info", {}).get("editable"))
    how = f"editable install of {direct.get('url', '?')}" if editable else "installed"
    return EnvironmentCheck("agentproto", True, dist.version, f"this kit ({how})")


def _course_data() -> EnvironmentCheck:
    from agentproto.resources import data_file

    missing = []
    for parts in COURSE_DATA:
        try:
            data_file(*parts)
        except FileNotFoundError:
            missing.append("/".join(parts))
    purpose = (
        "question bank and glossary ship with the package"
        if not missing
        else f"missing from the package: {', '.join(missing)}"
    )
    return EnvironmentCheck("course data", not missing, "packaged" if not missing else "", purpose)


def check_environment(
    include_optional: bool = True, needs: Iterable[str] = NEEDED_EXTRAS
) -> EnvironmentReport:
    """Probe Python, agentproto, the packages of the base install and of the extras ``needs``
    (by default those the notebooks need), and the packaged course data.

    With ``include_optional`` the other extras and a Chromium for the browser test are
    reported too, without counting against :attr:`EnvironmentReport.ok`.
    """
    needed = {"", *needs}
    checks = [
        EnvironmentCheck(
            "python", sys.version_info >= (3, 11), ".".join(map(str, sys.version_info[:3])), "3.11 or newer"
        ),
        _agentproto(),
    ]
    for extra, dist, module, purpose in PACKAGES:
        if extra in needed:
            checks.append(_probe(extra, dist, module, purpose, True))
        elif include_optional:
            checks.append(_probe(extra, dist, module, purpose, False))
    checks.append(_course_data())
    if include_optional:
        browser = shutil.which("chromium") or shutil.which("chromium-browser")
        checks.append(
            EnvironmentCheck(
                "chromium",
                bool(browser),
                "found" if browser else "",
                "real-browser widget test",
                required=False,
            )
        )
    return EnvironmentReport(checks)


def _handler(args: argparse.Namespace) -> int:
    report = check_environment(include_optional=not args.required_only)
    print(report)
    return 0 if report.ok else 1


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--required-only", action="store_true", help="skip optional checks")
    parser.set_defaults(handler=_handler)

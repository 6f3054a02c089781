"""security sits above a2a and below agui: importing it loads no AG-UI, course or UI code."""

from __future__ import annotations

import json
import subprocess
import sys

import agentproto.security

MODULES = ["agentproto.security", "agentproto.security.serving", "agentproto.security.probe"]
FORBIDDEN = (
    "agentproto.agui",
    "agentproto.course",
    "agentproto.orchestration",
    "agentproto.demo",
    "ipywidgets",
    "IPython",
    "matplotlib",
    "networkx",
    "numpy",
)


def test_importing_every_security_module_loads_nothing_above_it():
    script = (
        f"import importlib, json, sys\n"
        f"for name in {MODULES!r}: importlib.import_module(name)\n"
        f"print(json.dumps(sorted(sys.modules)))"
    )
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=True
    )
    loaded = json.loads(out.stdout)
    assert "agentproto.security.probe" in loaded  # the script did import them
    offenders = [m for m in loaded if any(m == f or m.startswith(f + ".") for f in FORBIDDEN)]
    assert offenders == []


def test_the_public_surface_is_exactly_what_all_lists():
    names = agentproto.security.__all__
    assert len(names) == len(set(names))
    missing = [n for n in names if not hasattr(agentproto.security, n)]
    assert missing == []


def test_the_first_releases_names_are_importable_but_not_advertised():
    for name in ("InvalidSignatureError", "NoSignatureError", "SignatureError", "DEFAULT_ALGORITHMS"):
        assert hasattr(agentproto.security, name) and name not in agentproto.security.__all__

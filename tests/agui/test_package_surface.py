"""What `import agentproto.agui` gives, and what it costs."""

from __future__ import annotations

import inspect
import json
import subprocess
import sys

import pytest

import agentproto.agui as agui
from agentproto.agui import events


def test_every_public_name_is_importable_from_the_package():
    missing = [name for name in agui.__all__ if not hasattr(agui, name)]
    assert missing == []
    assert len(agui.__all__) == len(set(agui.__all__))


def test_the_events_module_holds_the_models_and_the_package_re_exports_the_parser():
    from agentproto.agui import _compat as compat
    from agentproto.agui import parse

    assert not hasattr(events, "EventParser"), "events.py is the models; the parser is agui.parse"
    assert agui.EventParser is parse.EventParser and agui.parse_event is parse.parse_event
    assert agui.CompatibilityBoundary is compat.CompatibilityBoundary


def test_importing_the_package_loads_no_http_server_schema_or_course_library():
    code = "import sys, json, agentproto.agui\nprint(json.dumps(sorted(m for m in sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    loaded = json.loads(out)
    heavy = (
        "httpx",
        "starlette",
        "uvicorn",
        "sse_starlette",
        "jsonschema",
        "ipywidgets",
        "matplotlib",
        "anyio",
    )
    assert [m for m in loaded if m.split(".")[0] in heavy] == []
    assert [m for m in loaded if m.startswith("agentproto.course")] == []


def test_the_clients_are_served_lazily():
    from agentproto.agui.client import AGUIClient, SyncAGUIClient

    assert agui.AGUIClient is AGUIClient and agui.SyncAGUIClient is SyncAGUIClient


@pytest.mark.parametrize(
    "name",
    ["send", "run", "resume", "approve", "deny", "cancel", "snapshot", "recover", "cancel_run", "close"],
)
def test_the_sync_client_documents_every_method_it_offers(name):
    from agentproto.agui.client import AGUIClient, SyncAGUIClient

    method = SyncAGUIClient.__dict__.get(name)
    assert inspect.isfunction(method), f"{name} is not a real method"
    assert method.__doc__
    if name != "close":
        ours = list(inspect.signature(method).parameters)
        theirs = list(inspect.signature(getattr(AGUIClient, name)).parameters)
        assert ours[:2] == theirs[:2]
    assert f"{name}(" in _help(SyncAGUIClient)


def _help(obj: object) -> str:
    import pydoc

    return pydoc.render_doc(obj, renderer=pydoc.plaintext)

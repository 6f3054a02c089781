"""The package's shape: a documented public surface, and a core that does no I/O of its own.

The sans-I/O core (types, states, machine, errors, cards, card_cache, artifacts, jsonrpc,
modes) imports no web stack, reads no clock and mints no ids: time and ids come from the
caller. The import-linter contract in pyproject.toml checks the imports statically; these
tests check the same promises by running them.
"""

from __future__ import annotations

import doctest
import importlib
import subprocess
import sys

import pytest

import agentproto.a2a as a2a
from agentproto.a2a.cards import check_card
from agentproto.a2a.machine import TaskMachine
from agentproto.a2a.states import TaskState
from agentproto.a2a.types import Artifact, Message, Part, data_part, text_part, user_message
from agentproto.clock import FakeClock

CORE = ["types", "states", "machine", "errors", "cards", "card_cache", "artifacts", "jsonrpc", "modes"]
WEB = ("httpx", "starlette", "uvicorn", "sse_starlette")


def _run(code: str) -> str:
    blocker = f"import sys\nfor m in {WEB!r}:\n    sys.modules[m] = None\n"
    out = subprocess.run([sys.executable, "-c", blocker + code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    return out.stdout.strip()


# --------------------------------------------------------------------------- the surface


def test_every_public_name_is_documented_in_all_and_resolves():
    assert sorted(a2a.__all__) == sorted(a2a._EXPORTS)
    assert len(set(a2a.__all__)) == len(a2a.__all__)
    for name in a2a.__all__:
        assert getattr(a2a, name) is getattr(importlib.import_module(a2a._EXPORTS[name]), name)


def test_an_unknown_name_is_an_attribute_error():
    with pytest.raises(AttributeError, match="no attribute 'views'"):
        a2a.views  # noqa: B018


def test_the_core_works_on_a_base_install_without_the_web_stack():
    printed = _run(
        "from agentproto.a2a import (TaskMachine, TaskState, JSONRPCDispatcher, CardCache,\n"
        "    ArtifactAssembler, check_card, model_modes, user_message, error_from_wire)\n"
        "from agentproto.clock import FakeClock\n"
        "m = TaskMachine('t', clock=FakeClock())\n"
        "print(m.create().target.short, m.advance(TaskState.WORKING).target.short)\n"
    )
    assert printed == "submitted working"


def test_importing_the_package_loads_no_http_library():
    printed = _run(
        "import agentproto.a2a, sys\n"
        "print(sorted(m for m in sys.modules if m.startswith('agentproto.a2a.')))\n"
    )
    assert printed == "[]"


@pytest.mark.parametrize("module", CORE)
def test_core_modules_import_without_asyncio_or_the_web_stack(module):
    printed = _run(f"sys.modules['asyncio'] = None\nimport agentproto.a2a.{module}\nprint('ok')\n")
    assert printed == "ok"


@pytest.mark.parametrize("module", ["artifacts", "card_cache", "modes", "machine", "cards", "types"])
def test_the_examples_in_the_core_docstrings_run(module):
    result = doctest.testmod(importlib.import_module(f"agentproto.a2a.{module}"))
    assert result.failed == 0


# --------------------------------------------------------------------------- injected time and ids


def test_a_task_machine_needs_a_clock():
    with pytest.raises(TypeError, match="clock"):
        TaskMachine("t")  # type: ignore[call-arg]
    clock = FakeClock(start_ms=5)
    assert TaskMachine("t", clock=clock).create().at_ms == 5


def test_a_restored_machine_needs_a_clock_too():
    with pytest.raises(TypeError):
        TaskMachine.restore("t", [])  # type: ignore[call-arg]


def test_messages_get_their_id_from_the_caller():
    with pytest.raises(TypeError, match="message_id"):
        user_message("hi")  # type: ignore[call-arg]
    with pytest.raises(ValueError, match="REQUIRED"):
        user_message("hi", message_id="")
    assert user_message("hi", message_id="m-1").message_id == "m-1"


def test_the_dispatcher_works_with_any_handler_not_only_the_service():
    import asyncio

    from agentproto.a2a.jsonrpc import JSONRPCDispatcher
    from agentproto.a2a.types import Task, TaskStatus

    class OneTask:
        def required_extensions(self) -> list[str]:
            return []

        async def get_task(self, req, scope):  # the only operation this stub supports
            assert scope.subject is None  # no authentication layer: the anonymous caller
            return Task(id=req.id, status=TaskStatus(state=TaskState.WORKING))

    dispatcher = JSONRPCDispatcher(OneTask())  # type: ignore[arg-type]
    answer = asyncio.run(
        dispatcher.dispatch(
            {"jsonrpc": "2.0", "id": 3, "method": "GetTask", "params": {"id": "t-7"}}, {"A2A-Version": "1.0"}
        )
    )
    assert answer == {
        "jsonrpc": "2.0",
        "id": 3,
        "result": {"id": "t-7", "status": {"state": "TASK_STATE_WORKING"}},
    }


# --------------------------------------------------------------------------- reading content


def test_a_data_part_is_readable_directly_as_its_parsed_value():
    part = Part.from_wire({"data": {"flight": "AP830", "nights": 4}, "mediaType": "application/json"})
    assert part.kind == "data" and part.data == {"flight": "AP830", "nights": 4}
    assert Part(text="hi").data is None


def test_artifact_text_covers_text_parts_only_and_data_has_the_rest():
    artifact = Artifact(
        artifact_id="trip",
        parts=[
            text_part("Trip to Sanya. "),
            data_part({"to": "Sanya"}),
            text_part("Enjoy!"),
            data_part([1, 2]),
        ],
    )
    assert artifact.text == "Trip to Sanya. Enjoy!"
    assert artifact.data == [{"to": "Sanya"}, [1, 2]]
    assert "data" in (Artifact.text.__doc__ or "")


def test_a_message_exposes_its_data_parts_the_same_way():
    message = Message(
        message_id="m", role="ROLE_USER", parts=[text_part("book it"), data_part({"travellers": 2})]
    )
    assert (message.text, message.data) == ("book it", [{"travellers": 2}])


@pytest.mark.parametrize(
    "card",
    [
        {"skills": ["x"]},
        {"supportedInterfaces": ["http://h/a2a", 7]},
        {"capabilities": "stateTransitionHistory"},
    ],
)
def test_check_card_names_items_that_are_not_objects_instead_of_crashing(card):
    problems = check_card(card)
    key = next(iter(card))
    assert any(p.path.startswith(key) and "dictionary" in p.message for p in problems), problems


def test_check_card_keeps_each_skills_position_when_an_item_is_not_an_object():
    paths = [p.path for p in check_card({"skills": ["x", {"id": "s", "name": "n", "description": "d"}]})]
    assert "skills.0" in paths and "skills.1.tags" in paths

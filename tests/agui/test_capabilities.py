"""AG-UI 1.1 agent capabilities (spec ``basic/capabilities``): the declaration's shape, what a
consumer keeps, what it refuses, and that a refused or absent declaration never stops a run."""

from __future__ import annotations

import json

import pytest

from agentproto.agui import capabilities as caps_mod
from agentproto.agui.capabilities import (
    AGUICapabilities,
    MalformedCapabilitiesError,
    audit_declaration,
    capabilities_of,
    declared,
    dump_capabilities,
    parse_capabilities,
    read_capabilities,
)
from agentproto.agui.errors import AGUIError

FULL = {
    "identity": {
        "name": "refund-desk",
        "type": "agentproto",
        "description": "Checks orders and refunds them",
        "version": "1.2.0",
        "provider": "Example Corp",
        "documentationUrl": "https://example.invalid/docs",
        "metadata": {"region": "eu", "tier": None, "nested": {"any": [1, "x"]}},
    },
    "transport": {
        "streaming": True,
        "websocket": False,
        "httpBinary": False,
        "pushNotifications": False,
        "resumable": False,
    },
    "tools": {
        "supported": True,
        "items": [{"name": "lookup_order", "description": "Find an order", "parameters": {"type": "object"}}],
        "parallelCalls": False,
        "clientProvided": True,
    },
    "output": {"structuredOutput": False, "supportedMimeTypes": ["text/plain"]},
    "state": {"snapshots": True, "deltas": True, "memory": False, "persistentState": True},
    "multiAgent": {
        "supported": True,
        "delegation": True,
        "handoffs": False,
        "subagents": [{"name": "billing", "description": "Issues refunds"}, {"name": "shipping"}],
    },
    "reasoning": {"supported": False, "streaming": False, "encrypted": False},
    "multimodal": {
        "input": {"image": True, "audio": False, "video": False, "pdf": True, "file": False},
        "output": {"image": False, "audio": False},
    },
    "execution": {"codeExecution": False, "sandboxed": True, "maxIterations": 8, "maxExecutionTime": 60000},
    "humanInTheLoop": {
        "supported": True,
        "approvals": True,
        "interventions": False,
        "feedback": False,
        "interrupts": True,
        "approveWithEdits": False,
    },
    "custom": {"acme.priority": "high", "acme.flags": [1, 2], "acme.empty": None},
}


# -- Declaring: every group and field is optional; wire names are the schema's -----------------


def test_an_empty_declaration_is_conforming():
    parsed = parse_capabilities({})
    assert parsed.capabilities == AGUICapabilities()
    assert parsed.warnings == []
    assert dump_capabilities(parsed.capabilities) == {}


def test_every_field_of_the_schema_round_trips_under_its_wire_name():
    parsed = parse_capabilities(FULL)
    assert parsed.warnings == []
    assert dump_capabilities(parsed.capabilities) == FULL


def test_json_text_is_accepted_too():
    assert parse_capabilities(json.dumps(FULL)).capabilities == parse_capabilities(FULL).capabilities


def test_records_keep_their_own_requirements():
    with pytest.raises(MalformedCapabilitiesError) as info:
        parse_capabilities({"multiAgent": {"subagents": [{"description": "no name"}]}})
    assert info.value.path == "/multiAgent/subagents/0/name"
    assert info.value.rule == "capabilities.missing-field"
    with pytest.raises(MalformedCapabilitiesError) as info:
        parse_capabilities({"tools": {"items": [{"name": "t"}]}})  # a Tool needs its description
    assert info.value.path == "/tools/items/0/description"


def test_omitted_means_undeclared_not_unsupported():
    caps = parse_capabilities({"reasoning": {"supported": False}, "humanInTheLoop": {}}).capabilities
    assert declared(caps, "reasoning.supported") is False  # said explicitly
    assert declared(caps, "reasoning.streaming") is None  # not said at all
    assert declared(caps, "humanInTheLoop.interrupts") is None
    assert declared(caps, "state.snapshots") is None  # whole group absent
    assert declared(parse_capabilities(FULL).capabilities, "multimodal.input.pdf") is True


def test_declared_refuses_a_path_the_schema_does_not_name():
    with pytest.raises(KeyError, match="humanInTheLoop"):
        declared(AGUICapabilities(), "human_in_the_loop.interrupts")
    with pytest.raises(KeyError):
        declared(AGUICapabilities(), "reasoning.visible")


# -- identity.metadata and custom are open: preserved whole ------------------------------------


def test_open_objects_keep_every_member_they_carry():
    parsed = parse_capabilities(
        {"identity": {"metadata": {"x-anything": {"deep": [None, True]}}}, "custom": {"k": None, "j": 3}}
    )
    assert parsed.warnings == []
    out = dump_capabilities(parsed.capabilities)
    assert out["identity"]["metadata"] == {"x-anything": {"deep": [None, True]}}
    assert out["custom"] == {"k": None, "j": 3}


# -- Error Handling: unrecognised is not malformed --------------------------------------------


def test_unrecognised_members_are_not_a_reason_to_reject():
    newer = {
        "reasoning": {"supported": True, "summaries": True},  # a field from a newer version
        "payments": {"refunds": True},  # a group from a newer version
    }
    parsed = parse_capabilities(newer)
    assert declared(parsed.capabilities, "reasoning.supported") is True
    # The kit's choice: drop them, each with a warning naming its path.
    assert [w.path for w in parsed.warnings] == ["/reasoning/summaries", "/payments"]
    assert dump_capabilities(parsed.capabilities) == {"reasoning": {"supported": True}}


def test_a_python_spelling_is_unrecognised_and_the_warning_names_the_wire_name():
    parsed = parse_capabilities({"human_in_the_loop": {"interrupts": True}})
    assert declared(parsed.capabilities, "humanInTheLoop.interrupts") is None
    assert "humanInTheLoop" in parsed.warnings[0].message


def test_the_sdk_spelling_subAgents_is_unrecognised_in_1_1():
    parsed = parse_capabilities({"multiAgent": {"subAgents": [{"name": "billing"}]}})
    assert parsed.capabilities.multi_agent is not None
    assert parsed.capabilities.multi_agent.subagents is None
    assert parsed.warnings[0].path == "/multiAgent/subAgents"


@pytest.mark.parametrize(
    ("doc", "path"),
    [
        ({"reasoning": {"supported": "yes"}}, "/reasoning/supported"),  # a string where a boolean belongs
        ({"state": {"snapshots": 1}}, "/state/snapshots"),  # no coercion of 1 to true
        ({"execution": {"maxIterations": -1}}, "/execution/maxIterations"),
        ({"execution": {"maxExecutionTime": 1.5}}, "/execution/maxExecutionTime"),
        ({"execution": {"maxIterations": 2**53}}, "/execution/maxIterations"),
        ({"output": {"supportedMimeTypes": "text/plain"}}, "/output/supportedMimeTypes"),
        ({"reasoning": {"supported": None}}, "/reasoning/supported"),  # absent means absent
        ({"identity": "refund-desk"}, "/identity"),
        ({"custom": ["not", "an", "object"]}, "/custom"),
        ({"identity": {"metadata": []}}, "/identity/metadata"),
    ],
)
def test_a_known_field_with_a_value_the_schema_rejects_is_malformed(doc, path):
    with pytest.raises(MalformedCapabilitiesError) as info:
        parse_capabilities(doc)
    assert info.value.path == path
    assert isinstance(info.value, AGUIError)
    assert "basic/capabilities" in str(info.value)


def test_a_declaration_that_is_not_an_object_is_malformed():
    for doc in ([], "null", b"[1]"):
        with pytest.raises(MalformedCapabilitiesError) as info:
            parse_capabilities(doc)
        assert info.value.path == ""
    with pytest.raises(MalformedCapabilitiesError) as info:
        parse_capabilities("{not json")
    assert info.value.rule == "capabilities.unreadable"


def test_a_malformed_member_is_found_even_next_to_unrecognised_ones():
    with pytest.raises(MalformedCapabilitiesError) as info:
        parse_capabilities({"future": 1, "tools": {"supported": "true"}})
    assert info.value.path == "/tools/supported"
    assert [w.path for w in info.value.warnings] == ["/future"]


# -- a rejected or absent declaration never prevents a run ------------------------------------


def test_read_capabilities_falls_back_to_an_empty_declaration():
    caps, warnings = read_capabilities({"reasoning": {"supported": "yes"}})
    assert caps == AGUICapabilities()
    assert len(warnings) == 1 and "/reasoning/supported" in warnings[0].message
    assert warnings[0].path == "/reasoning/supported"
    caps, warnings = read_capabilities(None)  # nothing declared at all
    assert caps == AGUICapabilities() and warnings == []


def test_read_capabilities_passes_a_good_declaration_and_its_warnings_through():
    caps, warnings = read_capabilities({"state": {"deltas": True}, "later": {}})
    assert declared(caps, "state.deltas") is True
    assert [w.path for w in warnings] == ["/later"]


# -- Retrieval: not defined by the protocol; the kit reads a method on an in-process agent ----


class _Declares:
    def __init__(self, declaration):
        self._declaration = declaration

    def capabilities(self):
        return self._declaration


def test_capabilities_of_an_agent_that_declares():
    caps, warnings = capabilities_of(_Declares({"humanInTheLoop": {"interrupts": True}}))
    assert declared(caps, "humanInTheLoop.interrupts") is True and warnings == []
    model = AGUICapabilities.model_validate({"state": {"snapshots": True}})
    assert capabilities_of(_Declares(model))[0] == model


def test_capabilities_of_an_agent_that_declares_nothing_or_nonsense():
    assert capabilities_of(object()) == (AGUICapabilities(), [])
    caps, warnings = capabilities_of(_Declares({"tools": {"supported": "sometimes"}}))
    assert caps == AGUICapabilities() and len(warnings) == 1


def test_capabilities_of_an_agent_whose_method_raises_proceeds_as_undeclared():
    class Broken:
        def capabilities(self):
            raise RuntimeError("registry down")

    caps, warnings = capabilities_of(Broken())
    assert caps == AGUICapabilities()
    assert "registry down" in warnings[0].message


# -- Declarations are informative: the stream is authoritative --------------------------------


def _run(*middle):
    return [
        {"type": "RUN_STARTED", "threadId": "t", "runId": "r"},
        *middle,
        {"type": "RUN_FINISHED", "threadId": "t", "runId": "r"},
    ]


def test_a_contradicted_declaration_earns_a_complaint_not_a_rejection():
    caps = parse_capabilities(
        {"reasoning": {"supported": False}, "state": {"deltas": False}, "tools": {"supported": False}}
    ).capabilities
    events = _run(
        {"type": "REASONING_START", "messageId": "m"},
        {"type": "REASONING_END", "messageId": "m"},
        {"type": "STATE_DELTA", "delta": []},
        {"type": "TOOL_CALL_START", "toolCallId": "c", "toolCallName": "x"},
        {"type": "TOOL_CALL_END", "toolCallId": "c"},
    )
    complaints = audit_declaration(caps, events)
    assert [c.path for c in complaints] == ["/reasoning/supported", "/state/deltas", "/tools/supported"]
    assert [c.event for c in complaints] == [1, 3, 4]  # the first event that contradicts each

    from agentproto.agui.pipeline import lint_source

    assert lint_source(events).verdict == "conformant"  # the stream itself is fine


def test_an_interrupt_under_interrupts_false_is_a_complaint():
    caps = parse_capabilities({"humanInTheLoop": {"interrupts": False}}).capabilities
    events = _run()
    events[-1] = {
        "type": "RUN_FINISHED",
        "threadId": "t",
        "runId": "r",
        "outcome": {"type": "interrupt", "interrupts": [{"id": "i1", "reason": "confirm"}]},
    }
    assert [c.path for c in audit_declaration(caps, events)] == ["/humanInTheLoop/interrupts"]


def test_undeclared_or_unexercised_capabilities_are_never_complaints():
    events = _run({"type": "REASONING_START", "messageId": "m"}, {"type": "REASONING_END", "messageId": "m"})
    assert audit_declaration(AGUICapabilities(), events) == []  # undeclared is not "false"
    quiet = parse_capabilities({"reasoning": {"supported": True}, "state": {"snapshots": True}}).capabilities
    assert audit_declaration(quiet, _run()) == []  # declared but unexercised: fine


def test_the_module_is_exported_from_the_package():
    import agentproto.agui as agui

    for name in caps_mod.__all__:
        assert name in agui.__all__
        assert getattr(agui, name) is getattr(caps_mod, name)

"""One error tree: every exception class agentproto defines descends from AgentProtoError."""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import pytest

import agentproto
from agentproto.errors import AgentProtoError

#: Modules that need an extra the base install may lack are imported if they can be.
_SKIP = {"agentproto.__main__"}


def _modules() -> list[object]:
    out = []
    for info in pkgutil.walk_packages(agentproto.__path__, "agentproto."):
        if info.name in _SKIP:
            continue
        try:
            out.append(importlib.import_module(info.name))
        except ImportError:  # an optional extra (grpc, ipywidgets) that is not installed
            continue
    return out


def _exception_classes() -> dict[str, type[BaseException]]:
    found: dict[str, type[BaseException]] = {}
    for module in _modules():
        for obj in vars(module).values():
            if (
                inspect.isclass(obj) and issubclass(obj, BaseException) and obj.__module__ == module.__name__  # type: ignore[attr-defined]
            ):
                found[f"{obj.__module__}.{obj.__qualname__}"] = obj
    return found


def test_every_public_exception_class_descends_from_the_root() -> None:
    classes = _exception_classes()
    assert len(classes) > 100  # the walk really found the package's errors
    # Private classes (``_Bail``, ``_UsageError``) are control flow inside one module: they
    # never reach a caller, so they are not part of the tree.
    strays = sorted(
        q for q, c in classes.items() if not c.__name__.startswith("_") and not issubclass(c, AgentProtoError)
    )
    assert strays == []


def test_private_exception_classes_stay_private() -> None:
    """A private exception class is never exported: a caller could not catch it by name."""
    for module in _modules():
        for name in getattr(module, "__all__", ()):
            obj = getattr(module, name, None)
            if inspect.isclass(obj) and issubclass(obj, BaseException):
                assert not obj.__name__.startswith("_"), f"{module.__name__} exports {name}"


def test_except_a2a_error_catches_a_refused_connection() -> None:
    from agentproto.a2a import (
        A2AClientError,
        A2AConnectionError,
        A2AError,
        A2AHTTPError,
        A2ATimeoutError,
        InvalidResponseError,
        NoProgressError,
    )

    for cls in (A2AConnectionError, A2AHTTPError, A2ATimeoutError, NoProgressError, InvalidResponseError):
        assert issubclass(cls, A2AClientError) and issubclass(cls, A2AError)
    with pytest.raises(A2AError):
        raise A2AConnectionError("cannot reach http://127.0.0.1:9: connection refused")


def test_a_client_error_names_its_rule_not_a_wire_code() -> None:
    """What a learner reads (``describe_error``) is the client rule, not -32603."""
    from agentproto.a2a import A2AConnectionError, A2AHTTPError
    from agentproto.a2a._client_core import NoProgressError

    assert A2AConnectionError("x").rule == "a2a.client.connection"
    assert A2AHTTPError(401, "HTTP 401").status_code == 401
    assert NoProgressError("x").rule == "a2a.client.no-progress"


@pytest.mark.parametrize(
    ("qualname", "base"),
    [
        ("agentproto.sse.SSEDecodeError", ValueError),
        ("agentproto.limits.LimitError", ValueError),
        ("agentproto.security.keys.KeyNotTrusted", KeyError),
        ("agentproto.orchestration.plans.PlanError", ValueError),
        ("agentproto.a2a.artifacts.ArtifactAssemblyError", ValueError),
    ],
)
def test_re_parented_errors_keep_their_builtin_base(qualname: str, base: type[BaseException]) -> None:
    """``except ValueError`` written before the tree existed still catches these."""
    module, _, name = qualname.rpartition(".")
    cls = getattr(importlib.import_module(module), name)
    assert issubclass(cls, AgentProtoError) and issubclass(cls, base)


def test_rule_code_and_http_status_where_they_apply() -> None:
    from agentproto.a2a import TaskNotFoundError
    from agentproto.agui import VerificationError
    from agentproto.security import MissingScope

    assert (TaskNotFoundError().code, TaskNotFoundError().http_status) == (-32001, 404)
    assert VerificationError("run.not-started", 0, "TEXT_MESSAGE_START", "m").rule == "run.not-started"
    assert (MissingScope("no").rule, MissingScope("no").http_status) == ("token.missing-scope", 403)
    assert (AgentProtoError().rule, AgentProtoError().code, AgentProtoError().http_status) == (
        None,
        None,
        None,
    )


def test_the_root_is_exported_from_the_package() -> None:
    assert agentproto.AgentProtoError is AgentProtoError

"""agentproto._schemas: jsonschema without the format checkers that cost seconds at import."""

import subprocess
import sys

import pytest

PROBE = """
import sys, time
t = time.perf_counter()
from agentproto._schemas import jsonschema
js = jsonschema()
errors = list(js.Draft202012Validator({"type": "object", "required": ["q"]}).iter_errors({}))
print(len(errors), "rfc3987_syntax" in sys.modules, js is sys.modules["jsonschema"])
import rfc3987_syntax  # still importable afterwards, by whoever asks for it
print("importable")
"""


def test_validation_works_and_the_grammar_library_is_not_loaded():
    pytest.importorskip("rfc3987_syntax")  # only there where Jupyter is installed (the course)
    out = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split("\n")[:2] == ["1 False True", "importable"]


def test_a_process_that_already_imported_jsonschema_gets_it_unchanged():
    import jsonschema as already

    from agentproto._schemas import jsonschema

    assert jsonschema() is already


def test_format_stays_an_annotation_as_the_kit_validates():
    from agentproto._schemas import jsonschema

    validator = jsonschema().Draft202012Validator({"type": "string", "format": "iri"})
    assert list(validator.iter_errors("not an iri at all")) == []


def test_the_environment_check_imports_jsonschema_the_kits_way():
    """``agentproto doctor`` and notebook 00's first check: jsonschema is probed as the kit
    imports it, not with the grammar compile a plain ``import jsonschema`` costs."""
    pytest.importorskip("rfc3987_syntax")
    probe = (
        "import sys; from agentproto.course import check_environment; r = check_environment(); "
        "print(r.ok, 'rfc3987_syntax' in sys.modules, 'jsonschema' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["True", "False", "True"]

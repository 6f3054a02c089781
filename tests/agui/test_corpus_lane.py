"""The Python lane of the AG-UI consumer conformance corpus (``tools/run_agui_corpus.py``).

Our own fixtures (``corpus_vectors/``, written in the corpus format from the 1.1 spec) must
pass; the evaluator must be able to fail, key by key, or the lane would prove nothing; and
with ``AGENTPROTO_AGUI_CORPUS`` pointing at a checkout's ``spec/1.1/conformance/streams``, the
official corpus must pass too.
"""

from __future__ import annotations

import asyncio
import copy
import importlib.util
import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
TOOL = ROOT / "tools" / "run_agui_corpus.py"
VECTORS = Path(__file__).resolve().parent / "corpus_vectors"


def _load_lane() -> Any:
    spec = importlib.util.spec_from_file_location("run_agui_corpus", TOOL)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while being built
    spec.loader.exec_module(module)
    return module


lane = _load_lane()
OWN = lane.load(VECTORS)
BY_NAME = {f["name"]: f for f in OWN}


def _verdict(fixture: dict[str, Any], **kwargs: Any) -> Any:
    return asyncio.run(lane.run_corpus([fixture], **kwargs))[0]


# -- our fixtures pass --------------------------------------------------------------------------


@pytest.mark.parametrize("fixture", OWN, ids=[f["name"] for f in OWN])
def test_our_fixture_passes_on_every_key(fixture):
    verdict = _verdict(fixture)
    assert verdict.passed, verdict.to_dict()
    assert set(verdict.checked) == set(fixture["expect"])  # nothing relaxed, nothing skipped


def test_our_fixtures_exercise_every_expect_key_and_both_era_pins():
    used = {key for f in OWN for key in f["expect"]}
    assert used == set(lane.KEYS)
    assert len(OWN) >= 12
    pins = {(f.get("client") or {}).get("maxProtocolVersion") for f in OWN}
    assert {"0.0.39", "0.0.57"} <= pins
    assert any(f["expect"]["outcome"] == "failed" for f in OWN)


def test_our_fixtures_are_well_formed():
    for fixture in OWN:
        assert {"name", "area", "description", "specPage", "kill", "stream", "expect"} <= set(fixture)
        assert fixture["specPage"].startswith("/spec/1.1")
        assert set(fixture["expect"]) <= set(lane.KEYS), fixture["name"]
        # "outcome does not count as an assertion on its own"; a failure must say which.
        assert len(fixture["expect"]) >= 2, fixture["name"]
        if fixture["expect"]["outcome"] == "failed":
            assert "errorContains" in fixture["expect"] or "runError" in fixture["expect"]


# -- the evaluator can fail -----------------------------------------------------------------------

#: (fixture, key, a wrong expectation): each must fail that key, and only that key.
WRONG = [
    ("own-clean-run-quiet", "outcome", "failed"),
    ("own-content-without-start-rejected", "outcome", "completed"),
    ("own-content-without-start-rejected", "errorContains", "some other reason"),
    ("own-run-error-is-not-a-rejection", "runError", "a different failure"),
    ("own-clean-run-quiet", "runError", True),
    ("own-clean-run-quiet", "eventTypes", ["RUN_STARTED", "RUN_FINISHED"]),
    ("own-unknown-event-dropped", "eventTypesAbsent", ["TEXT_MESSAGE_START"]),
    ("own-run-error-is-not-a-rejection", "eventPaths", {"4.code": "OTHER"}),
    ("own-run-error-is-not-a-rejection", "eventPaths", {"9.code": "TIMEOUT"}),
    ("own-unknown-property-stripped", "eventAbsentPaths", ["1.stepName"]),
    ("own-unknown-event-dropped", "warnings", ["no such warning"]),
    ("own-unknown-event-dropped", "noWarnings", True),
    ("own-clean-run-quiet", "messageCount", 2),
    ("own-clean-run-quiet", "messages", [{"id": "own-clean-m1", "content": "one,"}]),
    ("own-clean-run-quiet", "messages", []),  # arrays are length-checked
    ("own-clean-run-quiet", "state", {"phase": "running"}),
    ("own-clean-run-quiet", "state", ["phase"]),  # an object is not an array
    ("own-current-peer-request", "request", {"protocolVersion": "1.0"}),
    ("own-current-peer-request", "requestAbsentPaths", ["protocolVersion"]),
]


@pytest.mark.parametrize(("name", "key", "wrong"), WRONG, ids=[f"{n}:{k}" for n, k, _ in WRONG])
def test_a_wrong_expectation_fails_for_that_key(name, key, wrong):
    fixture = copy.deepcopy(BY_NAME[name])
    fixture["expect"][key] = wrong
    verdict = _verdict(fixture)
    assert not verdict.passed
    assert list(verdict.failures) == [key], verdict.failures


def test_a_relaxed_key_is_reported_and_still_checked_against_its_substitute():
    fixture = BY_NAME["own-content-without-start-rejected"]
    name = fixture["name"]
    kept = {(name, "errorContains"): lane.Relaxation("a reason", instead="own-orphan-m1")}
    verdict = _verdict(fixture, relaxed=kept)
    assert verdict.passed and verdict.relaxed == {"errorContains": "a reason"}
    bites = {(name, "errorContains"): lane.Relaxation("a reason", instead="not in the error")}
    assert list(_verdict(fixture, relaxed=bites).failures) == ["errorContains"]
    skipped = {(name, "errorContains"): lane.Relaxation("a reason")}
    verdict = _verdict(fixture, relaxed=skipped)
    assert verdict.passed and "errorContains" not in verdict.checked


def test_the_replay_fills_absent_and_null_timestamps_only():
    body = lane.sse_body(
        [{"type": "A"}, {"type": "B", "timestamp": None}, {"type": "C", "timestamp": "wrong"}]
    ).decode()
    frames = [json.loads(line[len("data: ") :]) for line in body.split("\n\n") if line]
    assert [f["timestamp"] for f in frames] == [lane.REPLAY_TIMESTAMP, lane.REPLAY_TIMESTAMP, "wrong"]


def test_subset_matching_rules():
    assert lane.subset({"a": 1}, {"a": 1, "b": 2}) is None
    assert lane.subset([{"a": 1}], [{"a": 1}, {"a": 2}]) is not None
    assert lane.subset({"a": True}, {"a": 1}) is not None
    assert lane.subset({"a": None}, {}) is not None
    assert lane.subset(0, 0) is None and lane.subset(None, None) is None


def test_the_command_line_exits_zero_on_our_fixtures_and_one_on_a_failure(tmp_path, capsys):
    assert lane.main(["--corpus", str(VECTORS), "--json", str(tmp_path / "out.json")]) == 0
    assert "passed 14/14 on every observable key" in capsys.readouterr().out
    report = json.loads((tmp_path / "out.json").read_text())
    assert report["summary"]["passed"] == report["summary"]["fixtures"]
    broken = copy.deepcopy(BY_NAME["own-clean-run-quiet"])
    broken["expect"]["messageCount"] = 5
    (tmp_path / "streams").mkdir()
    (tmp_path / "streams" / f"{broken['name']}.json").write_text(json.dumps(broken))
    assert lane.main(["--corpus", str(tmp_path / "streams")]) == 1
    assert "messageCount: expected 5, holds 1" in capsys.readouterr().out


# -- the official corpus ------------------------------------------------------------------------

OFFICIAL = os.environ.get("AGENTPROTO_AGUI_CORPUS")


@pytest.mark.skipif(
    not OFFICIAL,
    reason="set AGENTPROTO_AGUI_CORPUS to a checkout's spec/1.1/conformance/streams "
    "(or run python tools/run_agui_corpus.py --corpus DIR)",
)
def test_the_official_corpus_passes_on_every_observable_key():
    corpus = Path(str(OFFICIAL))
    fixtures = lane.load(corpus)
    assert fixtures, f"no fixtures in {corpus}"
    listed = corpus / "MANIFEST.txt"
    if listed.exists():  # the corpus pins its own listing; a shrunken checkout must not pass
        names = [x for x in listed.read_text().splitlines() if x and not x.startswith("#")]
        assert sorted(names) == sorted(f"{f['name']}.json" for f in fixtures)
    assert not lane.stale_relaxations(fixtures), "RELAXED names a fixture key the corpus lacks"
    verdicts = asyncio.run(lane.run_corpus(fixtures))
    failed = {v.name: v.failures or v.crashed for v in verdicts if not v.passed}
    assert not failed, failed

"""A card fetched over gRPC names every interface at the address it really serves (spec §8.3.1).

``agentproto serve --port N`` knows its HTTP port before it builds the app, so the HTTP+JSON and
JSON-RPC entries of a card that a gRPC caller receives carry that port, as they do over HTTP.
"""

from __future__ import annotations

import os
import sys

import pytest


def test_a_card_fetched_over_grpc_lists_the_http_interfaces_with_their_port(tmp_path):
    pytest.importorskip("grpc")
    from agentproto.a2a import SyncA2AClient
    from tests.servers import free_port, serving_process

    port = free_port()
    base = f"http://127.0.0.1:{port}"
    serve = [sys.executable, "-m", "agentproto", "serve", "--port", str(port), "--db", ":memory:"]
    serve += ["--log-level", "warning"]
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    with serving_process(
        serve, cwd=tmp_path, env=env, log_path=tmp_path / "serve.log", ready_url=base + "/", headers={}
    ):
        with SyncA2AClient.connect(base, binding="grpc") as client:
            over_http = client.card
            over_grpc = client.get_extended_card()
    http = {i.protocol_binding: i.url for i in over_http.supported_interfaces if i.protocol_binding != "GRPC"}
    grpc = {i.protocol_binding: i.url for i in over_grpc.supported_interfaces if i.protocol_binding != "GRPC"}
    assert http and all(url.startswith(base + "/") for url in http.values()), http
    assert grpc == http

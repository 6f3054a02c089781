"""Authenticate against ``agentproto serve --auth`` with every client, on every A2A binding.

Start the server yourself (this script starts nothing), then run the script with its base URL
and your client id; the secret comes from the same environment variable the server reads::

    export AGENTPROTO_CLIENT_SECRET_ALICE='a-secret-of-16-or-more-chars'
    agentproto serve --auth --client alice                  # one terminal
    python docs/examples/authenticate.py http://127.0.0.1:8000 alice

One :class:`~agentproto.client_auth.ClientCredentials` serves every client: it asks the token
endpoint the Agent Card names (``securitySchemes`` → client-credentials ``tokenUrl``) for a token
with a form-encoded body, keeps it, renews it before it expires and once more on a 401. The
same ``auth=`` goes to the A2A clients on JSON-RPC, HTTP+JSON and gRPC, async and sync, and to
the AG-UI client. Exit status 0 when every call got through.
"""

from __future__ import annotations

import asyncio
import sys

from agentproto.a2a import SyncA2AClient, card_token_url
from agentproto.a2a.client_bindings import connect
from agentproto.agui.client import AGUIClient, SyncAGUIClient
from agentproto.client_auth import ClientCredentials

BINDINGS = ("jsonrpc", "rest", "grpc")
TRIP = "Plan my trip to Sanya from 2026-04-08 to 2026-04-12"
REFUND = "check order A1024 and refund it if shipped"


async def async_clients(base_url: str, auth: ClientCredentials) -> None:
    for binding in BINDINGS:  # A2AClient, RestA2AClient, GrpcA2AClient
        async with await connect(base_url, binding=binding, auth=auth) as client:
            task = await client.send(TRIP)
            print(f"A2A   {binding:7}  {type(client).__name__:18} {task.status.state.value}")
    async with AGUIClient(base_url, auth=auth) as ui:
        run = await ui.send("thread-async", REFUND)
        print(f"AG-UI {'':7}  {'AGUIClient':18} {run.outcome}")


def main(base_url: str, client_id: str) -> int:
    card = SyncA2AClient.fetch_card(base_url)  # public: it says how to authenticate
    token_url = card_token_url(card) or base_url + "/oauth/token"
    auth = ClientCredentials.from_env(token_url, client_id)
    print(f"tokens from {token_url} as {client_id}")
    for binding in BINDINGS:
        with SyncA2AClient.connect(base_url, binding=binding, auth=auth) as client:
            task = client.send(TRIP)
            print(f"A2A   {binding:7}  {'SyncA2AClient':18} {task.status.state.value}")
    asyncio.run(async_clients(base_url, auth))
    with SyncAGUIClient(base_url, auth=auth) as sync_ui:
        run = sync_ui.send("thread-sync", REFUND)
        print(f"AG-UI {'':7}  {'SyncAGUIClient':18} {run.outcome}")
    print(f"{auth.tokens_fetched} token(s) fetched for 8 clients")
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(f"usage: {sys.argv[0]} BASE_URL CLIENT_ID  (secret in AGENTPROTO_CLIENT_SECRET_<CLIENT_ID>)")
    sys.exit(main(sys.argv[1].rstrip("/"), sys.argv[2]))

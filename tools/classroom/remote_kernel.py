"""A kernel in a remote Jupyter server, driven by ``nbclient`` over the server's websocket.

``jupyter_server`` ships the pieces for a kernel that lives in another server:
:class:`~jupyter_server.gateway.managers.GatewayKernelManager` starts and stops it over the
REST API (``/api/kernels``) and :class:`~jupyter_server.gateway.managers.GatewayKernelClient`
speaks the kernel protocol over the ``/api/kernels/<id>/channels`` websocket. Both are meant
for a Kernel Gateway, but a JupyterHub single-user server (any ``jupyter_server``) has the
same API. Three small changes make them fit:

* the kernel is started with the notebook's ``path``, so it runs in the notebook's folder in
  the student's home (a Kernel Gateway gets ``KERNEL_WORKING_DIR`` instead);
* the websocket is opened with the token in its ``Authorization`` header (the stock client
  sends no credentials on the websocket, and the single-user server refuses it);
* binary frames (messages with buffers: a widget's image, for one) are decoded, not read as
  text (the stock router stops on the first one, and the kernel is lost);
* every message names its channel and carries ISO dates, as the server's websocket protocol
  wants (the stock queue sends neither, and the server logs a warning for every message);
* "is the kernel alive" asks the server (the stock manager would look for a local process).

Used by ``tools/classroom.py``'s per-student runner, one student per process (the gateway
configuration, :class:`GatewayClient`, is a per-process singleton).
"""

from __future__ import annotations

import json
from threading import Thread
from typing import Any

import websocket
from jupyter_client.asynchronous.client import AsyncKernelClient
from jupyter_client.jsonutil import json_default
from jupyter_core.utils import ensure_async
from jupyter_server.gateway.gateway_client import GatewayClient, gateway_request
from jupyter_server.gateway.managers import (
    ChannelQueue,
    GatewayKernelClient,
    GatewayKernelManager,
    HBChannelQueue,
)
from jupyter_server.services.kernels.connection.base import deserialize_binary_message
from jupyter_server.utils import url_escape, url_path_join
from tornado.escape import json_decode, json_encode
from traitlets import Type, Unicode

__all__ = ["configure_gateway", "RemoteKernelClient", "RemoteKernelManager"]


def configure_gateway(url: str, token: str, timeout: float = 120.0) -> None:
    """Point this process's gateway configuration at the server at *url* (``…/user/<name>/``)."""
    gateway = GatewayClient.instance()
    gateway.url = url.rstrip("/")
    gateway.auth_token = token
    gateway.request_timeout = timeout
    gateway.connect_timeout = timeout
    gateway.KERNEL_LAUNCH_TIMEOUT = int(timeout)


class RemoteChannelQueue(ChannelQueue):
    """A channel's queue whose messages say which channel they are for."""

    def send(self, msg: dict[str, Any]) -> None:
        self.channel_socket.send(json.dumps({**msg, "channel": self.channel_name}, default=json_default))


class RemoteHBChannelQueue(HBChannelQueue, RemoteChannelQueue):
    pass


class RemoteKernelClient(GatewayKernelClient):
    """:class:`GatewayKernelClient` whose websocket carries the token."""

    async def start_channels(
        self,
        shell: bool = True,
        iopub: bool = True,
        stdin: bool = True,
        hb: bool = True,
        control: bool = True,
    ) -> None:
        gateway = GatewayClient.instance()
        ws_url = url_path_join(
            gateway.ws_url or "", gateway.kernels_endpoint, url_escape(self.kernel_id), "channels"
        )
        self.channel_socket = websocket.create_connection(
            ws_url,
            timeout=gateway.KERNEL_LAUNCH_TIMEOUT,
            enable_multithread=True,
            header=[f"Authorization: token {gateway.auth_token}"],
        )
        self.channel_socket.settimeout(10)  # recv wakes up regularly to see whether to stop
        assert self._channel_queues is not None
        for name in ("shell", "iopub", "stdin", "control", "hb"):
            queue_class = RemoteHBChannelQueue if name == "hb" else RemoteChannelQueue
            queue = self._channel_queues[name] = queue_class(name, self.channel_socket, self.log)
            setattr(self, f"_{name}_channel", queue)
        await ensure_async(
            AsyncKernelClient.start_channels(
                self, shell=shell, iopub=iopub, stdin=stdin, hb=hb, control=control
            )
        )
        self.response_router = Thread(target=self._route_responses, daemon=True)
        self.response_router.start()

    def _route_responses(self) -> None:
        """Read the websocket until it closes; put each message on its channel's queue."""
        try:
            while not self._channels_stopped:
                assert self.channel_socket is not None
                try:
                    raw = self.channel_socket.recv()
                except websocket.WebSocketTimeoutException:
                    continue  # a long, silent cell: nbclient's own cell timeout decides, not the socket's
                if not raw:
                    break
                message = deserialize_binary_message(raw) if isinstance(raw, bytes) else json_decode(raw)
                assert self._channel_queues is not None
                self._channel_queues[message["channel"]].put_nowait(message)
        except websocket.WebSocketConnectionClosedException:
            pass  # closed by stop_channels
        except BaseException as exc:
            if not self._channels_stopped:
                self.log.warning(f"kernel websocket: {type(exc).__name__}: {exc}")
        for queue in (self._channel_queues or {}).values():
            queue.response_router_finished = True


class RemoteKernelManager(GatewayKernelManager):
    """:class:`GatewayKernelManager` that starts the kernel in the notebook's folder."""

    client_class = Unicode(f"{__name__}.RemoteKernelClient")  # type: ignore[assignment]
    client_factory = Type(klass=RemoteKernelClient, default_value=RemoteKernelClient)  # type: ignore[assignment]
    notebook_path = Unicode("", help="the notebook's path in the server, e.g. agentproto-course/00_x.ipynb")

    async def start_kernel(self, **kwargs: Any) -> None:
        body = {"name": kwargs.get("kernel_name") or "python3", "path": self.notebook_path or None}
        response = await gateway_request(
            self.kernels_url,
            method="POST",
            body=json_encode(body),
            headers={"Content-Type": "application/json"},
        )
        self.kernel = json_decode(response.body)
        self.kernel_id = self.kernel["id"]
        self.kernel_url = url_path_join(self.kernels_url, url_escape(str(self.kernel_id)))

    async def _async_is_alive(self) -> bool:
        return bool(await self.is_alive())

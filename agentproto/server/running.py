"""Run an ASGI app under a real uvicorn server on a free loopback port, in a background thread.

Used by the integration tests, by the notebooks that start a live server next to the learner's
kernel, and by anyone who wants to poke the demo agents from the same Python process::

    from agentproto.demo.app import create_app
    from agentproto.server import running_server

    with running_server(create_app()) as base_url:
        ...  # httpx.get(f"{base_url}/ag-ui/threads/t-1")

In a notebook, where a ``with`` block cannot span cells, keep the object instead::

    server = RunningServer(create_app()).start()
    server.url          # 'http://127.0.0.1:54321'
    server.stop()

The socket is bound before uvicorn starts (port 0: the kernel picks a free port), so there is no
race between choosing a port and someone else taking it. The server binds 127.0.0.1 only.

``ssl_certfile`` and ``ssl_keyfile`` (PEM files) serve HTTPS instead (uvicorn's TLS); the URL then
starts with ``https://``.
"""

from __future__ import annotations

import math
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import uvicorn

__all__ = ["RunningServer", "running_server"]


class RunningServer:
    """One uvicorn server in a daemon thread. :meth:`start` returns once it accepts connections."""

    def __init__(
        self,
        app: Any,
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        log_level: str = "warning",
        graceful_shutdown_s: float = 1.0,
        ssl_certfile: str | None = None,
        ssl_keyfile: str | None = None,
    ) -> None:
        self.app = app
        self.host = host
        self.port = port
        self.log_level = log_level
        self.graceful_shutdown_s = graceful_shutdown_s
        self.ssl_certfile = ssl_certfile
        self.ssl_keyfile = ssl_keyfile
        self._server: uvicorn.Server | None = None
        self._thread: threading.Thread | None = None
        self._socket: socket.socket | None = None

    @property
    def url(self) -> str:
        """The base URL, e.g. ``http://127.0.0.1:54321`` (no trailing slash; ``https`` with TLS)."""
        if self._socket is None:
            raise RuntimeError("server not started")
        scheme = "https" if self.ssl_certfile else "http"
        return f"{scheme}://{self.host}:{self.port}"

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def start(self, timeout_s: float = 10.0) -> RunningServer:
        if self.running:
            return self
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        # Each SSE event is a small write; without TCP_NODELAY (inherited by accepted
        # sockets on Linux), Nagle + delayed ACK can hold an event back ~40 ms.
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        sock.bind((self.host, self.port))
        self.port = sock.getsockname()[1]
        self._socket = sock
        config = uvicorn.Config(
            self.app,
            log_level=self.log_level,
            lifespan="auto",
            timeout_graceful_shutdown=math.ceil(self.graceful_shutdown_s),
            access_log=False,
            ssl_certfile=self.ssl_certfile,
            ssl_keyfile=self.ssl_keyfile,
        )
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(
            target=self._server.run, kwargs={"sockets": [sock]}, name=f"uvicorn-{self.port}", daemon=True
        )
        self._thread.start()
        deadline = time.monotonic() + timeout_s
        while not self._server.started:
            if not self._thread.is_alive():
                raise RuntimeError("uvicorn exited during start-up")
            if time.monotonic() > deadline:
                self.stop()
                raise TimeoutError(f"uvicorn did not start within {timeout_s} s")
            time.sleep(0.01)
        return self

    def stop(self, timeout_s: float = 5.0) -> None:
        """Ask uvicorn to exit, wait for it, and release the port."""
        if self._server is not None:
            self._server.should_exit = True
        if self._thread is not None:
            self._thread.join(timeout_s)
            if self._thread.is_alive() and self._server is not None:
                self._server.force_exit = True
                self._thread.join(timeout_s)
        if self._socket is not None:
            self._socket.close()
        self._thread = None

    def __enter__(self) -> RunningServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


@contextmanager
def running_server(app: Any, **kwargs: Any) -> Iterator[str]:
    """Serve ``app`` on a free 127.0.0.1 port for the duration of the block; yield the base URL."""
    server = RunningServer(app, **kwargs).start()
    try:
        yield server.url
    finally:
        server.stop()

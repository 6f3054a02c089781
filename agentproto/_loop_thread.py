"""The event loop that every sync client of this process shares, on one daemon thread.

The kit's clients are written once, async. Their sync twins (:class:`agentproto.a2a.
SyncA2AClient` on every binding, :class:`agentproto.agui.SyncAGUIClient`) run each call on
this loop and wait for the result, so scripts, plain functions and widget callbacks get every
method without ``await``. One loop for all of them: a process with ten sync clients has one
extra thread, not ten. The thread is a daemon, so a script that forgets to close a client still
exits; a forked child starts its own loop.
"""

from __future__ import annotations

import asyncio
import os
import threading
from collections.abc import Awaitable, Callable
from typing import TypeVar

__all__ = ["run"]

R = TypeVar("R")

_lock = threading.Lock()
_loop: asyncio.AbstractEventLoop | None = None
_thread: threading.Thread | None = None
_pid = 0


def _running() -> asyncio.AbstractEventLoop:
    global _loop, _thread, _pid
    with _lock:
        if _loop is None or _pid != os.getpid():
            loop = asyncio.new_event_loop()
            thread = threading.Thread(target=loop.run_forever, name="agentproto-sync-clients", daemon=True)
            thread.start()
            _loop, _thread, _pid = loop, thread, os.getpid()
        return _loop


def run(make: Callable[[], Awaitable[R]]) -> R:
    """Run ``make()`` on the shared loop thread and wait for its result (or its exception)."""
    loop = _running()
    if threading.current_thread() is _thread:
        raise RuntimeError("a sync client called from its own event loop: use the async client there")

    async def call() -> R:
        return await make()

    return asyncio.run_coroutine_threadsafe(call(), loop).result()

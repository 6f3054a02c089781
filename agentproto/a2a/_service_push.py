"""The push-notification-config operations of :class:`~agentproto.a2a.service.A2AService`
(spec §3.1.7–3.1.10), kept apart from the task lifecycle.

Every operation runs in the caller's :class:`~agentproto.a2a.jsonrpc.CallerScope`: the task
must be the caller's (else TaskNotFound, as for an unknown task), and the configs themselves
are stored and read with the scope's tenant and owner (:class:`~agentproto.a2a._taskstore.
TaskStore`), so a guessed config id never reaches another caller's webhook, token or
credentials. A stored config records the tenant it was made in (``tenant`` field).

Fan-out is bounded (a config multiplies every event of its task into one outbound POST): a
task holds at most :data:`MAX_PUSH_CONFIGS_PER_TASK` configs, and one per URL. The server
assigns ``id`` when the client gives none. A client-chosen id is kept — the spec's
``TaskPushNotificationConfig.id`` is an optional input ("created configuration with assigned
ID", §3.1.7) and a2a-sdk treats Create with a known id as set-or-update — but it must be a
short plain name (:data:`CONFIG_ID_PATTERN`), it lives in the namespace of its task (which is
the caller's), and creating it again replaces that config rather than adding one. A config
given with ``SendMessage`` for a URL the task already has updates that config (clients that
attach the same webhook to every message keep one config); ``CreateTaskPushNotificationConfig``
for a URL already there, under another id, is refused.

The webhook policy (``allow_loopback_webhooks`` / ``allow_private_webhooks``) lives on the
service's :class:`~agentproto.a2a.push.PushNotifier`: setting it on the service sets it there,
so the check when a config is created and the check when a notification is sent are one policy.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from agentproto.a2a._service_streams import LiveTasks
from agentproto.a2a._taskstore import TaskStore
from agentproto.a2a.errors import InvalidParamsError, TaskNotFoundError
from agentproto.a2a.jsonrpc import ANONYMOUS, CallerScope
from agentproto.a2a.push import PushNotifier, check_webhook_url
from agentproto.a2a.types import (
    DeleteTaskPushNotificationConfigRequest,
    GetTaskPushNotificationConfigRequest,
    ListTaskPushNotificationConfigsRequest,
    ListTaskPushNotificationConfigsResponse,
    TaskPushNotificationConfig,
)
from agentproto.clock import IdSource

__all__ = ["PushConfigs", "scoped", "MAX_PUSH_CONFIGS_PER_TASK", "CONFIG_ID_PATTERN"]

#: Push configs one task may hold (each one turns every event of the task into a POST).
MAX_PUSH_CONFIGS_PER_TASK = 5

#: What a client-chosen config id may look like: it ends up in REST paths and log lines.
CONFIG_ID_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9._~-]{0,63}")


def scoped(tenant: str, scope: CallerScope) -> CallerScope:
    """The scope an operation runs in: the caller's, in the request's ``tenant`` (a binding
    puts the tenant in both; a direct caller may set only the request's)."""
    if not tenant or tenant == scope.tenant:
        return scope
    if scope.tenant:
        raise InvalidParamsError(
            f"tenant {tenant!r} does not match the request's route tenant {scope.tenant!r}",
            violations=[("tenant", "does not match the tenant of the route")],
        )
    return scope.in_tenant(tenant)


_scoped = scoped


class PushConfigs:
    """Create / Get / List / Delete TaskPushNotificationConfig for one service's tasks.

    ``tasks`` finds the caller's task (TaskNotFound otherwise) and holds each live task's
    cached configs; ``require_push`` refuses every operation when the card declares no push."""

    def __init__(
        self,
        store: TaskStore,
        ids: IdSource,
        push: PushNotifier,
        tasks: LiveTasks,
        require_push: Callable[[], None],
    ) -> None:
        self.store, self.ids, self.push, self.tasks = store, ids, push, tasks
        self._require_push = require_push

    def check_url(self, url: str) -> None:
        """The webhook policy of :attr:`push`, judged when a config is made."""
        check_webhook_url(url, allow_loopback=self.push.allow_loopback, allow_private=self.push.allow_private)

    def check_room(
        self, cfg: TaskPushNotificationConfig, task_id: str, scope: CallerScope, *, created: bool = False
    ) -> TaskPushNotificationConfig:
        """May ``cfg`` be stored on the task? Returns it as it will be stored (``id`` set if it
        updates the task's config for the same URL). Raises InvalidParams for a bad id, a URL
        the task already has under another id (Create, or an explicit id), or a task already
        holding :data:`MAX_PUSH_CONFIGS_PER_TASK` configs. Reads only: call it before changing
        anything, so a refusal leaves the task as it was."""
        if cfg.id and not CONFIG_ID_PATTERN.fullmatch(cfg.id):
            raise InvalidParamsError(
                f"push notification config id {cfg.id[:80]!r} refused: up to 64 letters, digits "
                "and . _ ~ - (not starting with a punctuation mark)",
                violations=[("id", "not a plain name of at most 64 characters")],
            )
        existing = self.store.push_configs(task_id, scope)
        same_url = next((c for c in existing if c.url == cfg.url and c.id != cfg.id), None)
        if same_url is not None:
            if created or cfg.id:
                raise InvalidParamsError(
                    f"task {task_id} already has a push notification config for this url "
                    f"(id {same_url.id!r}); update or delete that one",
                    violations=[("url", "already configured on this task")],
                )
            cfg = cfg.model_copy(update={"id": same_url.id})  # the same webhook again: update it
        others = [c for c in existing if c.id != cfg.id]
        if len(others) >= MAX_PUSH_CONFIGS_PER_TASK:
            raise InvalidParamsError(
                f"task {task_id} has {len(others)} push notification configs; a task takes at most "
                f"{MAX_PUSH_CONFIGS_PER_TASK} (delete one first)",
                violations=[
                    ("url", f"at most {MAX_PUSH_CONFIGS_PER_TASK} push notification configs per task")
                ],
                metadata={"taskId": task_id, "limit": "pushConfigsPerTask", "max": MAX_PUSH_CONFIGS_PER_TASK},
            )
        return cfg

    def register(
        self, cfg: TaskPushNotificationConfig, task_id: str, scope: CallerScope, *, created: bool = False
    ) -> TaskPushNotificationConfig:
        """Store ``cfg`` on the task: from ``CreateTaskPushNotificationConfig`` (``created``) or
        from a ``SendMessage`` configuration, after :meth:`check_room`."""
        cfg = self.check_room(cfg, task_id, scope, created=created)
        ident = cfg.id or self.ids()
        stored = cfg.model_copy(update={"task_id": task_id, "id": ident, "tenant": scope.tenant})
        self.store.save_push_config(stored, scope)
        self._forget(task_id)
        return stored

    def _forget(self, task_id: str) -> None:
        live = self.tasks.live.get(task_id)
        if live is not None:
            live.push_configs = None  # reloaded on the next event

    def create_config(
        self, cfg: TaskPushNotificationConfig, scope: CallerScope = ANONYMOUS
    ) -> TaskPushNotificationConfig:
        """``CreateTaskPushNotificationConfig``: the server assigns ``id`` if missing (see the
        module docstring for client-chosen ids, duplicates and the per-task cap)."""
        self._require_push()
        scope = _scoped(cfg.tenant, scope)
        if not cfg.task_id:
            raise InvalidParamsError("taskId is required", violations=[("taskId", "required")])
        self.tasks.current(cfg.task_id, scope)
        self.check_url(cfg.url)
        return self.register(cfg, cfg.task_id, scope, created=True)

    def _task_scope(self, tenant: str, task_id: str, scope: CallerScope) -> CallerScope:
        """What every call on a task's configs checks first: push is supported, and the task is
        there in the caller's (tenant-narrowed) scope, which it returns."""
        self._require_push()
        scope = _scoped(tenant, scope)
        self.tasks.current(task_id, scope)
        return scope

    def get_config(
        self, req: GetTaskPushNotificationConfigRequest, scope: CallerScope = ANONYMOUS
    ) -> TaskPushNotificationConfig:
        scope = self._task_scope(req.tenant, req.task_id, scope)
        cfg = self.store.push_config(req.task_id, req.id, scope)
        if cfg is None:
            raise TaskNotFoundError(
                f"push notification config {req.id} not found for task {req.task_id}",
                metadata={"taskId": req.task_id, "configId": req.id},
            )
        return cfg

    def list_configs(
        self, req: ListTaskPushNotificationConfigsRequest, scope: CallerScope = ANONYMOUS
    ) -> ListTaskPushNotificationConfigsResponse:
        scope = self._task_scope(req.tenant, req.task_id, scope)
        configs = self.store.push_configs(req.task_id, scope)
        start = 0
        if req.page_token:
            try:
                start = int(req.page_token)
            except ValueError:
                raise InvalidParamsError(
                    f"invalid pageToken {req.page_token!r}", violations=[("pageToken", "not issued here")]
                ) from None
        size = req.page_size if req.page_size > 0 else len(configs) or 1
        page = configs[start : start + size]
        nxt = str(start + size) if start + size < len(configs) else ""
        return ListTaskPushNotificationConfigsResponse(configs=page, next_page_token=nxt)

    def delete_config(
        self, req: DeleteTaskPushNotificationConfigRequest, scope: CallerScope = ANONYMOUS
    ) -> None:
        """Idempotent: deleting a config that is not there is not an error."""
        scope = self._task_scope(req.tenant, req.task_id, scope)
        self.store.delete_push_config(req.task_id, req.id, scope)
        self._forget(req.task_id)

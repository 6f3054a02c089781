"""The push-notification-config operations of :class:`~agentproto.a2a.service.A2AService`
(spec §3.1.7–3.1.10), kept apart from the task lifecycle.

Every operation runs in the caller's :class:`~agentproto.a2a.jsonrpc.CallerScope`: the task
must be the caller's (else TaskNotFound, as for an unknown task), and the configs themselves
are stored and read with the scope's tenant and owner (:class:`~agentproto.a2a.taskstore.
TaskStore`), so a guessed config id never reaches another caller's webhook, token or
credentials. A stored config records the tenant it was made in (``tenant`` field).
"""

from __future__ import annotations

from typing import Any

from agentproto.a2a.errors import InvalidParamsError, TaskNotFoundError
from agentproto.a2a.jsonrpc import ANONYMOUS, CallerScope
from agentproto.a2a.push import check_webhook_url
from agentproto.a2a.taskstore import TaskStore
from agentproto.a2a.types import (
    DeleteTaskPushNotificationConfigRequest,
    GetTaskPushNotificationConfigRequest,
    ListTaskPushNotificationConfigsRequest,
    ListTaskPushNotificationConfigsResponse,
    Task,
    TaskPushNotificationConfig,
)
from agentproto.clock import IdSource

__all__ = ["PushConfigService", "scoped"]


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


class PushConfigService:
    """Create / Get / List / Delete TaskPushNotificationConfig; mixed into ``A2AService``,
    which provides the store, ids, the task lookup and the capability check."""

    store: TaskStore
    ids: IdSource
    allow_loopback_webhooks: bool
    allow_private_webhooks: bool
    _live: dict[str, Any]

    def _require_push(self) -> None:  # pragma: no cover - A2AService defines it
        raise NotImplementedError

    def _current(self, task_id: str, scope: CallerScope) -> Task:  # pragma: no cover - ditto
        raise NotImplementedError

    def _check_url(self, url: str) -> None:
        check_webhook_url(
            url, allow_loopback=self.allow_loopback_webhooks, allow_private=self.allow_private_webhooks
        )

    def _register_push(
        self, cfg: TaskPushNotificationConfig, task_id: str, scope: CallerScope
    ) -> TaskPushNotificationConfig:
        ident = cfg.id or self.ids()
        stored = cfg.model_copy(update={"task_id": task_id, "id": ident, "tenant": scope.tenant})
        self.store.save_push_config(stored, scope)
        self._forget_push_configs(task_id)
        return stored

    def _forget_push_configs(self, task_id: str) -> None:
        live = self._live.get(task_id)
        if live is not None:
            live.push_configs = None  # reloaded on the next event

    async def create_push_config(
        self, cfg: TaskPushNotificationConfig, scope: CallerScope = ANONYMOUS
    ) -> TaskPushNotificationConfig:
        """``CreateTaskPushNotificationConfig``: the server assigns ``id`` if missing."""
        self._require_push()
        scope = _scoped(cfg.tenant, scope)
        if not cfg.task_id:
            raise InvalidParamsError("taskId is required", violations=[("taskId", "required")])
        self._current(cfg.task_id, scope)
        self._check_url(cfg.url)
        return self._register_push(cfg, cfg.task_id, scope)

    async def get_push_config(
        self, req: GetTaskPushNotificationConfigRequest, scope: CallerScope = ANONYMOUS
    ) -> TaskPushNotificationConfig:
        self._require_push()
        scope = _scoped(req.tenant, scope)
        self._current(req.task_id, scope)
        cfg = self.store.push_config(req.task_id, req.id, scope)
        if cfg is None:
            raise TaskNotFoundError(
                f"push notification config {req.id} not found for task {req.task_id}",
                metadata={"taskId": req.task_id, "configId": req.id},
            )
        return cfg

    async def list_push_configs(
        self, req: ListTaskPushNotificationConfigsRequest, scope: CallerScope = ANONYMOUS
    ) -> ListTaskPushNotificationConfigsResponse:
        self._require_push()
        scope = _scoped(req.tenant, scope)
        self._current(req.task_id, scope)
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

    async def delete_push_config(
        self, req: DeleteTaskPushNotificationConfigRequest, scope: CallerScope = ANONYMOUS
    ) -> None:
        """Idempotent: deleting a config that is not there is not an error."""
        self._require_push()
        scope = _scoped(req.tenant, scope)
        self._current(req.task_id, scope)
        self.store.delete_push_config(req.task_id, req.id, scope)
        self._forget_push_configs(req.task_id)

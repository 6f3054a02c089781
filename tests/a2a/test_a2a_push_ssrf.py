"""Webhook URLs cannot aim the server at internal hosts (spec §13.2, server-side request forgery).

Two checks, both under the same policy (``allow_loopback`` / ``allow_private``):
- when a config is created, the URL as httpx will read it: legacy IPv4 spellings that the C
  resolver turns into an address (``2130706433``, ``0x7f000001``, ``127.1``, ``0`` …), trailing
  dots, percent-encoded hosts and private-use names are refused outright;
- when a notification is sent, the host is resolved, EVERY address is checked, and the
  connection goes to the address that was checked (no second lookup for a rebinding DNS
  server to answer differently).

Name resolution is faked by wrapping ``socket.getaddrinfo`` (no ``/etc/hosts`` edits); a real
webhook receiver on 127.0.0.1 shows what does and does not arrive.
"""

from __future__ import annotations

import socket
from collections.abc import Iterator

import pytest

from agentproto.a2a.errors import InvalidParamsError
from agentproto.a2a.push import PushNotifier, WebhookRecorder, check_webhook_url
from agentproto.a2a.types import SendMessageRequest, StreamResponse, TaskPushNotificationConfig, user_message
from agentproto.server import running_server

pytestmark = pytest.mark.anyio

#: Legacy or non-canonical spellings of loopback / unspecified (what reached a receiver in the
#: attack, plus the ones that were accepted but not triggered).
LOOPBACK_IN_DISGUISE = [
    "2130706433",  # decimal 127.0.0.1
    "0x7f000001",  # hex
    "0x7f.1",  # hex, short
    "0177.0.0.1",  # octal
    "127.1",  # short form
    "127.0.1",
    "0",  # 0.0.0.0, which Linux connects to the local host
    "localhost.",  # trailing dot
    "127.0.0.1.",
    "%31%32%37.0.0.1",  # percent-encoded digits
]
METADATA_AND_PRIVATE_IN_DISGUISE = [
    "2852039166",  # 169.254.169.254, decimal
    "0xa9fea9fe",
    "0251.0376.0251.0376",
    "169.254.43518",
    "167772161",  # 10.0.0.1
    "3232235777",  # 192.168.1.1
    "1.2.3.4.5",  # numeric last label, not an IPv4 address
]


@pytest.mark.parametrize("host", LOOPBACK_IN_DISGUISE + METADATA_AND_PRIVATE_IN_DISGUISE)
@pytest.mark.parametrize("loopback, private", [(False, False), (True, True)])
def test_non_canonical_ipv4_hosts_are_refused_whatever_the_policy(host, loopback, private):
    with pytest.raises(InvalidParamsError):
        check_webhook_url(f"http://{host}:8000/hook", allow_loopback=loopback, allow_private=private)


@pytest.mark.parametrize(
    "url",
    [
        "http://１２７.0.0.1/hook",  # full-width digits
        "http://metadata.google.internal/computeMetadata/v1/",
        "http://printer.local/hook",
        "http://router.home.arpa/hook",
        "http://0.0.0.0:8000/hook",
        "http://[::]:8000/hook",
        "http://100.64.0.1/hook",  # shared address space (RFC 6598): not global
        "http://[::ffff:7f00:1]/hook",  # IPv4-mapped loopback, hex form
        "http://user:pw@client.example/hook",  # userinfo (RFC 9110 §4.2.4)
        "http://client.example:0/hook",
        "http://client.example:99999/hook",
    ],
)
def test_names_and_addresses_that_cannot_be_public_are_refused(url):
    with pytest.raises(InvalidParamsError):
        check_webhook_url(url, allow_loopback=False, allow_private=False)


def test_the_unspecified_address_is_refused_even_when_everything_else_is_allowed():
    for url in ("http://0.0.0.0:8000/hook", "http://[::]:8000/hook"):
        with pytest.raises(InvalidParamsError, match="unspecified"):
            check_webhook_url(url, allow_loopback=True, allow_private=True)


async def test_a_service_in_auth_mode_refuses_the_disguised_forms(make_service):
    svc = make_service("conformance")  # loopback refused, as in `serve --auth`
    task = await svc.send_message(
        SendMessageRequest(message=user_message("x", message_id="tck-input-required"))
    )
    for host in LOOPBACK_IN_DISGUISE + METADATA_AND_PRIVATE_IN_DISGUISE:
        with pytest.raises(InvalidParamsError):
            await svc.create_push_config(
                TaskPushNotificationConfig(task_id=task.id, url=f"http://{host}:18081/hook")
            )


# --- at delivery time -------------------------------------------------------------------------


@pytest.fixture
def receiver() -> Iterator[tuple[WebhookRecorder, int]]:
    hook = WebhookRecorder()
    with running_server(hook.app()) as url:
        yield hook, int(url.rsplit(":", 1)[1])


class FakeDNS:
    """``dns.answers[name] = [[answer 1 …], [answer 2 …]]``: successive answers for ``name``
    (the last one repeats); other names go to the real resolver. ``dns.calls[name]`` counts."""

    def __init__(self, real):
        self.answers: dict[str, list[list[str]]] = {}
        self.calls: dict[str, int] = {}
        self._real = real

    def __setitem__(self, name: str, answers: list[list[str]]) -> None:
        self.answers[name] = answers

    def getaddrinfo(self, host, port, *args, **kwargs):
        name = host.decode() if isinstance(host, bytes) else host
        if name not in self.answers:
            return self._real(host, port, *args, **kwargs)
        n = self.calls[name] = self.calls.get(name, 0) + 1
        seq = self.answers[name]
        out = []
        for addr in seq[min(n, len(seq)) - 1]:
            if ":" in addr:
                out.append((socket.AF_INET6, socket.SOCK_STREAM, 6, "", (addr, int(port or 0), 0, 0)))
            else:
                out.append((socket.AF_INET, socket.SOCK_STREAM, 6, "", (addr, int(port or 0))))
        return out


@pytest.fixture
def fake_dns(monkeypatch) -> FakeDNS:
    dns = FakeDNS(socket.getaddrinfo)
    monkeypatch.setattr(socket, "getaddrinfo", dns.getaddrinfo)
    return dns


def _event() -> StreamResponse:
    return StreamResponse.from_wire(
        {"statusUpdate": {"taskId": "t", "contextId": "c", "status": {"state": "TASK_STATE_WORKING"}}}
    )


async def _push(notifier: PushNotifier, *urls: str) -> None:
    for n, url in enumerate(urls):
        notifier.enqueue(TaskPushNotificationConfig(task_id="t", id=f"c{n}", url=url), _event())
    await notifier.drain()
    await notifier.aclose()


async def no_sleep(_: float) -> None:
    return None


async def test_stored_disguised_urls_never_reach_a_loopback_receiver(receiver):
    """Configs stored before this check existed (or written to the db by hand) are checked
    again when a notification goes out: none of the legacy forms reaches the receiver."""
    hook, port = receiver
    notifier = PushNotifier(attempts=2, sleep=no_sleep)  # loopback refused
    await _push(notifier, *(f"http://{h}:{port}/hook" for h in LOOPBACK_IN_DISGUISE))
    assert hook.attempts == 0
    assert len(notifier.deliveries) == len(LOOPBACK_IN_DISGUISE)  # one attempt each: refused for good
    assert all(d.status_code is None and "refused" in d.error for d in notifier.deliveries)


async def test_the_canonical_form_still_reaches_the_receiver_when_loopback_is_allowed(receiver):
    hook, port = receiver
    notifier = PushNotifier(sleep=no_sleep, allow_loopback=True)
    await _push(notifier, f"http://127.0.0.1:{port}/hook", f"http://2130706433:{port}/hook")
    assert hook.attempts == 1  # the decimal form is refused in every mode
    assert {d.config_id: d.ok for d in notifier.deliveries} == {"c0": True, "c1": False}


@pytest.mark.parametrize(
    "answer",
    [["127.0.0.1"], ["169.254.169.254"], ["93.184.216.34", "127.0.0.1"], ["::ffff:127.0.0.1"], ["0.0.0.0"]],
)
async def test_a_name_is_refused_if_any_address_it_resolves_to_is_refused(receiver, fake_dns, answer):
    hook, port = receiver
    fake_dns["hook.example"] = [answer]
    notifier = PushNotifier(attempts=3, sleep=no_sleep)  # loopback and private refused
    await _push(notifier, f"http://hook.example:{port}/hook")
    assert hook.attempts == 0
    [d] = notifier.deliveries  # refused for good: no retry
    assert d.status_code is None and "refused" in d.error and "hook.example" in d.error


async def test_the_connection_goes_to_the_address_that_was_checked(receiver, fake_dns):
    """A rebinding DNS server answers 127.0.0.1 (allowed here) first and something else after:
    the name is looked up once per connection and the checked address is the one dialled;
    Host still names the name."""
    hook, port = receiver
    fake_dns["rebind.example"] = [["127.0.0.1"], ["127.0.0.2"]]  # nothing listens on .2
    notifier = PushNotifier(sleep=no_sleep, allow_loopback=True)
    await _push(notifier, f"http://rebind.example:{port}/hook")
    assert [d.status_code for d in notifier.deliveries] == [204]
    assert fake_dns.calls["rebind.example"] == 1
    assert hook.received[0].headers["host"] == f"rebind.example:{port}"


async def test_a_name_that_resolves_to_loopback_is_refused_in_auth_mode_services(
    make_service, receiver, fake_dns
):
    """End to end through the service, as `serve --auth` runs it: a host name is accepted when
    the config is created (nothing to judge offline) and refused when it resolves to loopback."""
    hook, port = receiver
    fake_dns["vm"] = [["127.0.0.1"]]
    svc = make_service("conformance")
    task = await svc.send_message(
        SendMessageRequest(message=user_message("x", message_id="tck-input-required-1"))
    )
    await svc.create_push_config(TaskPushNotificationConfig(task_id=task.id, url=f"http://vm:{port}/hook"))
    await svc.send_message(
        SendMessageRequest(message=user_message("more", message_id="m-2", task_id=task.id))
    )
    await svc.push.drain()
    await svc.aclose()
    assert hook.attempts == 0
    assert svc.push.deliveries and all("refused" in d.error for d in svc.push.deliveries)


def test_the_service_policy_is_the_notifiers_policy(make_service):
    """One policy for create time and delivery time: the service's settings are its notifier's."""
    svc = make_service("conformance", allow_loopback_webhooks=True)
    assert svc.push.allow_loopback and not svc.push.allow_private
    svc.allow_private_webhooks = True
    assert svc.push.allow_private


async def test_a_redirect_from_an_allowed_webhook_is_not_followed():
    """A 302 to another loopback port is the webhook's answer, not a new target."""
    from starlette.applications import Starlette
    from starlette.responses import RedirectResponse
    from starlette.routing import Route

    target = WebhookRecorder()
    with running_server(target.app()) as target_url:
        app = Starlette(
            routes=[Route("/hook", lambda r: RedirectResponse(target_url + "/hook", 302), methods=["POST"])]
        )
        with running_server(app) as base:
            notifier = PushNotifier(sleep=no_sleep, allow_loopback=True)
            await _push(notifier, base + "/hook")
    assert target.attempts == 0
    assert [d.status_code for d in notifier.deliveries] == [302]

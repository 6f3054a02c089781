"""Webhook URLs are stored exactly as they will be used, and logged safely (F13 of the
2026-12-01 attack): no control or non-ASCII characters, nothing httpx would rewrite or refuse,
and a URL that still cannot be sent is one WARNING line, not a traceback per event."""

from __future__ import annotations

import logging

import pytest

from agentproto.a2a.errors import InvalidParamsError
from agentproto.a2a.push import PushNotifier, check_webhook_url
from agentproto.a2a.types import StreamResponse, TaskPushNotificationConfig

pytestmark = pytest.mark.anyio

#: Characters a log viewer or terminal may act on.
SNEAKY = ["\n", "\r\n", "\t", "\x1b[2J", "\x00", "\x7f", "\u2028", "\u0085", "\u202e", " "]


@pytest.mark.parametrize("sneaky", SNEAKY)
@pytest.mark.parametrize("where", ["path", "query", "host"])
def test_urls_with_control_or_non_ascii_characters_are_refused(sneaky, where):
    url = {
        "path": f"https://client.example/x{sneaky}INFO: forged",
        "query": f"https://client.example/x?a={sneaky}b",
        "host": f"https://client{sneaky}.example/x",
    }[where]
    with pytest.raises(InvalidParamsError) as info:
        check_webhook_url(url, allow_loopback=True, allow_private=True)
    if sneaky.strip():  # the error names the URL escaped (repr), never raw
        assert sneaky not in str(info.value)


@pytest.mark.parametrize(
    "url",
    [
        "HTTPS://client.example/x",  # httpx lowercases the scheme
        "https://Client.Example/x",  # … and the host
        "https://client.example:443/x",  # … and drops the default port
        "http://[::1]:80/x",
        "https://bücher.example/x",  # httpx sends the punycode form
        "https://client.example/a b",
    ],
)
def test_urls_httpx_would_rewrite_are_refused_so_the_stored_url_is_the_one_used(url):
    with pytest.raises(InvalidParamsError, match="as written|ASCII"):
        check_webhook_url(url, allow_loopback=True, allow_private=True)


@pytest.mark.parametrize(
    "url",
    ["https://client.example/x", "https://client.example:8443/x?a=1&b=%20", "http://127.0.0.1:8000/hook"],
)
def test_canonical_urls_pass(url):
    check_webhook_url(url, allow_loopback=True, allow_private=False)


async def test_a_stored_url_that_cannot_be_sent_is_one_warning_and_no_traceback(caplog):
    """A config written before these checks (or by hand): delivery refuses it for good, logs
    one WARNING per config with the URL escaped, and never an ERROR traceback."""

    async def no_sleep(_: float) -> None:
        return None

    urls = [
        "http://127.0.0.1:9/x\r\nINFO: forged line",
        "http://127.0.0.1:9/x\u2028INFO:     127.0.0.1:1 - forged",
        "http://127.0.0.1:9/\u202egnp.exe",
        "http://127.0.0.1:9/x\u0085y",
    ]
    notifier = PushNotifier(attempts=3, sleep=no_sleep, allow_loopback=True)
    caplog.set_level(logging.DEBUG, logger="agentproto.a2a.push")
    for n, url in enumerate(urls):
        config = TaskPushNotificationConfig(task_id="t", id=f"c{n}", url=url)
        for state in ("TASK_STATE_WORKING", "TASK_STATE_COMPLETED"):  # two events per config
            notifier.enqueue(
                config,
                StreamResponse.from_wire(
                    {"statusUpdate": {"taskId": "t", "contextId": "c", "status": {"state": state}}}
                ),
            )
    await notifier.drain()
    await notifier.aclose()
    records = [r for r in caplog.records if r.name == "agentproto.a2a.push"]
    assert not [r for r in records if r.levelno >= logging.ERROR or r.exc_info]
    warnings = [r for r in records if r.levelno == logging.WARNING]
    assert len(warnings) == len(urls)  # one per config, not one per event or attempt
    for r in records:
        text = r.getMessage()
        assert not any(c in text for c in ("\r", "\n", "\u2028", "\u0085", "\u202e"))
    assert len(notifier.deliveries) == 2 * len(urls)  # no retries
    assert all(d.status_code is None and "refused" in d.error for d in notifier.deliveries)

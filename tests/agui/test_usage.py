"""Token usage accounting (spec events/lifecycle, Token usage)."""

from agentproto.agui.events import RunFinishedEvent, RunStartedEvent
from agentproto.agui.state import StateReducer
from agentproto.agui.types import TokenUsage
from agentproto.agui.usage import sum_usage, thread_usage


def test_parts_are_not_added_into_totals() -> None:
    u = TokenUsage(
        input_tokens=100,
        output_tokens=30,
        total_tokens=130,
        cached_input_tokens=40,
        cache_write_input_tokens=10,
        reasoning_tokens=12,
    )
    t = sum_usage([u])
    assert (t.input_tokens, t.output_tokens, t.total_tokens) == (100, 30, 130)
    assert (t.cached_input_tokens, t.cache_write_input_tokens, t.reasoning_tokens) == (40, 10, 12)


def test_absent_is_not_zero() -> None:
    t = sum_usage([TokenUsage(total_tokens=5, reasoning_tokens=0), TokenUsage(total_tokens=7)])
    assert t.total_tokens == 12
    assert t.reasoning_tokens is None  # one entry did not report it
    assert sum_usage([]).total_tokens is None


def test_camel_dicts_and_thread_total_counts_each_run_once() -> None:
    state = StateReducer()
    for run, n in (("parent", 100), ("child", 40), ("resumed", 10)):
        state.apply(RunStartedEvent(thread_id="t", run_id=run))
        state.apply(RunFinishedEvent(thread_id="t", run_id=run, usage=[TokenUsage(total_tokens=n)]))
    assert thread_usage(state.results).total_tokens == 150
    assert sum_usage([{"totalTokens": 3, "inputTokens": 2, "outputTokens": 1}]).total_tokens == 3

"""Token usage totals under the AG-UI 1.1 accounting (spec *events/lifecycle*, Token usage).

The rules this module applies, in the spec's terms:

* ``usage`` on ``RUN_FINISHED`` / ``RUN_ERROR`` is one ``TokenUsage`` entry per provider and
  model; a consumer that only wants totals sums across the entries.
* ``cachedInputTokens``, ``cacheWriteInputTokens`` and ``reasoningTokens`` are *parts* of
  ``inputTokens`` / ``outputTokens``, never additions to them, so nothing here adds them in.
* An absent count means "not reported": a consumer MUST NOT read it as zero. A summed field
  is therefore ``None`` (unknown) as soon as one entry lacks it.
* The run is the accounting boundary: a subagent's calls are already in its run's entry, a run
  named by ``parentRunId`` reports on its own terminal event (its parent MUST NOT include it),
  and a resumed run reports only its own calls. A thread's total is the sum over its runs,
  each run counted once.

>>> from agentproto.agui.types import TokenUsage
>>> a = TokenUsage(input_tokens=100, output_tokens=20, total_tokens=120, cached_input_tokens=60)
>>> b = TokenUsage(input_tokens=10, output_tokens=5, total_tokens=15)
>>> t = sum_usage([a, b])
>>> t.total_tokens, t.input_tokens, t.cached_input_tokens
(135, 110, None)
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, fields
from typing import Any

from agentproto.agui.types import TokenUsage

__all__ = ["USAGE_COUNTS", "UsageTotal", "sum_usage", "thread_usage"]

#: The six counts of a ``TokenUsage`` entry (snake_case attribute names).
USAGE_COUNTS = (
    "input_tokens",
    "output_tokens",
    "total_tokens",
    "reasoning_tokens",
    "cached_input_tokens",
    "cache_write_input_tokens",
)


@dataclass(frozen=True)
class UsageTotal:
    """Summed counts; ``None`` means at least one entry did not report that count."""

    input_tokens: int | None = None
    output_tokens: int | None = None
    total_tokens: int | None = None
    reasoning_tokens: int | None = None
    cached_input_tokens: int | None = None
    cache_write_input_tokens: int | None = None
    entries: int = 0

    def as_dict(self) -> dict[str, int | None]:
        return {f.name: getattr(self, f.name) for f in fields(self)}


def _entry(item: TokenUsage | Mapping[str, Any]) -> TokenUsage:
    return item if isinstance(item, TokenUsage) else TokenUsage.model_validate(dict(item))


def sum_usage(entries: Iterable[TokenUsage | Mapping[str, Any]]) -> UsageTotal:
    """Sum ``TokenUsage`` entries (models or their camelCase dicts) without reading absent as 0.

    >>> sum_usage([]).total_tokens is None
    True
    """
    items = [_entry(e) for e in entries]
    totals: dict[str, int | None] = {}
    for name in USAGE_COUNTS:
        values = [getattr(e, name) for e in items]
        totals[name] = None if not values or any(v is None for v in values) else sum(values)
    return UsageTotal(**totals, entries=len(items))


def thread_usage(results: Mapping[Any, Mapping[str, Any]]) -> UsageTotal:
    """A thread's total: every run's own ``usage`` counted once (``StateReducer.results`` shape).

    A child run (``parentRunId``) is one more run here, never folded into its parent; a run
    that reported no ``usage`` contributes no entries.
    """
    return sum_usage(entry for record in results.values() for entry in record.get("usage") or ())

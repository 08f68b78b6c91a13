"""Planning an eviction (`d` in the inspector), and the looks ahead that go with it: the next
automatic cut and what `/compact` would summarise.

`plan_evict` is pure over a `HistoryReader` (a read-only `History`) and a `Gauge`: it returns the `Edit` that `ChatSession`
applies (the context changes, never the transcript; one `manual_evict` event with what `/undo`
puts back). docs/context-governance.md, "Evict".
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from co_tui.governance.events import HistoryTrimmed
from co_tui.governance.evict import CACHE_WARNING, evict
from co_tui.governance.metered_cuts import preview_in_meter_figures
from co_tui.governance.next_cut import NextCut, compact_estimate, preview_next_cut
from co_tui.session.history import Edit
from co_tui.session.wording import worded_refusals

if TYPE_CHECKING:
    from co_tui.session.gauge import Gauge
    from co_tui.session.history_reader import HistoryReader

__all__ = ["evict_line", "plan_compact_preview", "plan_evict", "plan_next_cut"]


def plan_evict(history: HistoryReader, gauge: Gauge, index: int) -> Edit:
    """Remove what context message `index` holds (numbered as the inspector's In context tab): a
    tool output, or a whole older turn. The event's figures are the meter's readings before and
    after; the first eviction of a session also sets the event's `cache_warning`: the prompt cache
    breaks from that point. Raises `EvictRefused` (one line)."""
    with worded_refusals():
        result = evict(history.context, index, budget_tokens=gauge.budget_tokens, overhead_tokens=gauge.overhead_tokens)
    # The meter's readings, not the rules' raw estimate: the banner and the Trims row start from the
    # figure the meter showed (docs/context-governance.md, "The meter").
    event = replace(
        result.event,
        tokens_before=gauge.meter.reading(history.context).tokens,
        tokens_after=gauge.meter.reading(result.messages).tokens,
    )
    if not any(e.reason == "manual_evict" for e in history.ledger):  # warn once per session
        event = replace(event, cache_warning=CACHE_WARNING)
    # What /undo puts back (docs/context-governance.md, "Undo a cut").
    return Edit(event=event, context=result.messages, record=history.cut_record(history.context))


def evict_line(event: HistoryTrimmed) -> str:
    """The line a front end shows where the user evicted (the inspector's): what went, as the banner
    says it, and — when `plan_evict` set the event's `cache_warning` (the session's first eviction) —
    that warning. The front end shows it as it is; the warning is the plan's to decide."""
    from co_tui.session.banner import banner_line

    line = banner_line(event).removeprefix("✂ ")
    return f"{line}. Note: {event.cache_warning}." if event.cache_warning else line


def plan_next_cut(history: HistoryReader, gauge: Gauge, messages: Sequence[Any] | None = None) -> NextCut | None:
    """What the next automatic cut of `messages` (default: the context) would do, by the session's
    own policy, overhead and summariser cooldown — no model call (`preview_next_cut`)."""
    return preview_next_cut(
        gauge.governor,
        history.context if messages is None else messages,
        overhead_tokens=gauge.overhead_tokens,
    )


def plan_compact_preview(history: HistoryReader, gauge: Gauge) -> HistoryTrimmed | None:
    """What `/compact` would summarise now and the estimated size after (`compact_estimate`), in the
    meter's figures like `/clear`'s preview: its dialog counts what the meter beside it shows."""
    overhead = gauge.overhead_tokens
    pins = gauge.governor.pins  # left out of the summary, as the compaction does
    context = history.context
    estimate = compact_estimate(context, gauge.budget_tokens, overhead_tokens=overhead, pins=pins)
    return None if estimate is None else preview_in_meter_figures(estimate, gauge.meter, context, overhead)

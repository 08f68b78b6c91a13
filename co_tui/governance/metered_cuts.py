"""A policy pass's events restated in the meter's figures, so a banner and the meter agree.

The rules measure with the raw estimate (the messages' `estimate_tokens` plus the request's
estimated overhead); the meter shows a calibrated figure (anchored on the provider's last report,
or the estimate × its ratio plus the overhead that report revealed). A cut before a request in the
middle of a turn therefore read "6.2k → 3.9k" while the meter showed 4.1k for the same request.
The events of a pass are restated here in the meter's own readings of the context before and after
it, so the banner's "after" is the figure the meter shows for the request that goes out
(docs/context-governance.md, "The meter").
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from co_tui.governance.events import HistoryTrimmed

if TYPE_CHECKING:
    from co_tui.governance.meter import TokenMeter

__all__ = ["in_meter_figures", "preview_in_meter_figures"]


def in_meter_figures(
    events: Sequence[HistoryTrimmed], meter: TokenMeter, before: Sequence[Any], after: Sequence[Any]
) -> list[HistoryTrimmed]:
    """`events` (one pass, in order, chained: each starts where the previous ended) with their
    `tokens_before`/`tokens_after` replaced by the meter's figures.

    The first event starts at `meter.reading(before)`, the last ends at `meter.reading(after)` —
    exactly what the meter shows for those contexts. A boundary between two events of the pass
    (a context the session never holds) is the final figure plus the meter's calibrated estimate of
    what the later events removed (`ratio` × the difference of the rules' own figures), kept between
    the first and last figures so the chain never runs backwards. Never mutates its inputs.
    """
    if not events:
        return []
    first = meter.reading(before).tokens
    last = meter.reading(after).tokens
    final_estimate = events[-1].tokens_after
    restated: list[HistoryTrimmed] = []
    start = first
    for i, event in enumerate(events):
        if i == len(events) - 1:
            end = last
        else:
            end = last + round(meter.ratio * (event.tokens_after - final_estimate))
            end = max(min(end, start), last) if start >= last else min(max(end, start), last)
        restated.append(replace(event, tokens_before=start, tokens_after=end))
        start = end
    return restated


def preview_in_meter_figures(
    event: HistoryTrimmed, meter: TokenMeter, context: Sequence[Any], overhead_tokens: int
) -> HistoryTrimmed:
    """A cut's preview (`event`, in the rules' figures with `overhead_tokens` included, e.g.
    `next_cut.compact_estimate`) restated in the meter's: `tokens_before` is the meter's figure for
    `context`, `tokens_after` its calibrated estimate of the request the cut would leave (`ratio` ×
    the messages' estimate, plus the overhead the meter knows), never above the before figure. So
    the /compact dialog counts what the meter beside it counts, as the /clear dialog does
    (docs/context-governance.md, "/compact"). Never mutates its inputs."""
    before = meter.reading(context).tokens
    messages_after = max(0, event.tokens_after - overhead_tokens)
    after = round(meter.ratio * messages_after) + (meter.overhead if messages_after else 0)
    return replace(event, tokens_before=before, tokens_after=min(after, before))

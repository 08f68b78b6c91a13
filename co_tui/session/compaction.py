"""Planning `/compact` (once its summary is written) and `/clear`'s preview.

Pure over a `HistoryReader` (a read-only `History`) and a `Gauge`: the figures are the meter's, so the banner, the dialog and the
meter beside them agree to the token (docs/context-governance.md, "The `history_trimmed` event").
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from co_tui.governance.events import HistoryTrimmed
from co_tui.governance.summarize import clear_event
from co_tui.session.history import Edit

if TYPE_CHECKING:
    from co_tui.governance.summarize import CompactResult
    from co_tui.session.gauge import Gauge
    from co_tui.session.history_reader import HistoryReader

__all__ = ["plan_clear_preview", "plan_compact"]


def plan_compact(history: HistoryReader, gauge: Gauge, result: CompactResult, figure_before: int) -> Edit:
    """The edit a finished compaction makes: its summary pair as the context, its event restated in
    the meter's figures (`figure_before`: what the meter showed when it started), undoable by the
    context it started from."""
    event = result.event
    assert event is not None  # the caller says "nothing to compact" otherwise
    figures = replace(event, tokens_before=figure_before, tokens_after=gauge.meter.reading(result.messages).tokens)
    return Edit(event=figures, context=result.messages, record=history.cut_record(history.context))


def plan_clear_preview(history: HistoryReader, gauge: Gauge) -> HistoryTrimmed:
    """The event `/clear` would emit now: what the confirmation dialog shows, so the dialog and the
    banner after it give the same figures (one computation feeds both)."""
    event = clear_event(history.context, gauge.budget_tokens, overhead_tokens=gauge.overhead_tokens)
    # The meter's own figure (its calibrated estimate), not governance's raw one.
    return replace(event, tokens_before=gauge.meter.reading(history.context).tokens)

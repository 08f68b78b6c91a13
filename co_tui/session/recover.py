"""Planning the recovery of a lost item: `r` on a summary banner (docs/context-governance.md,
"Recover a lost item").

`plan_recover` is pure over a `HistoryReader` (a read-only `History`) and a `Gauge`; the rule is `co_tui/governance/recover.py`.
The excerpt is a context-only marker, saved with the context, and the event goes into the ledger
with what undoing it needs (the context before it): `/undo` takes the excerpt back out.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from co_tui.governance.events import HistoryTrimmed
from co_tui.governance.recover import RecoverRefused, recover_item
from co_tui.governance.undo import CutRecord
from co_tui.session.history import Edit
from co_tui.session.wording import worded_refusals

if TYPE_CHECKING:
    from pydantic_ai.messages import ModelMessage

    from co_tui.session.gauge import Gauge
    from co_tui.session.history_reader import HistoryReader

__all__ = ["plan_recover", "summarised_messages", "summary_index"]


def summary_index(ledger: Sequence[HistoryTrimmed], item: str, cut: int | None) -> int:
    """The ledger index of the summary `item` is recovered from: `cut` when its lost list holds the
    item, else (`cut` None) the newest summary that lost it. Raises `RecoverRefused` (one line)."""
    if cut is None:
        for i in range(len(ledger) - 1, -1, -1):
            if item in (ledger[i].summary_lost or []):
                return i
        raise RecoverRefused(f'no summary in this session lost "{item}"')
    if not 0 <= cut < len(ledger):
        raise RecoverRefused(f"no trim #{cut + 1} in this session's ledger")
    if item not in (ledger[cut].summary_lost or []):
        raise RecoverRefused(f'"{item}" is not on trim #{cut + 1}\'s list of what its summary lost')
    return cut


def summarised_messages(history: HistoryReader, cut: int) -> Sequence[ModelMessage]:
    """What ledger entry `cut`'s summary started from: the context before it when kept (the
    messages it summarised as the model saw them), else the transcript up to the cut."""
    entry = history.entries[cut]
    if entry.record.before is not None:
        return entry.record.before
    return history.transcript[: entry.position]


def plan_recover(history: HistoryReader, gauge: Gauge, item: str, cut: int | None = None) -> Edit:
    """Append a verbatim excerpt around `item` — on the lost list of ledger entry `cut` (0-based;
    None: the newest summary that lost it) — to the end of the context, with the `restore` event
    (`salvaged_item` set). Raises `RecoverRefused` (one line) when no such summary lost the item,
    or when `governance.recover.recover_item` refuses (already in the context, not found, over the budget)."""
    item = item.strip()
    index = summary_index(history.ledger, item, cut)
    with worded_refusals():
        result = recover_item(
            history.context,
            summarised_messages(history, index),
            item,
            strategy=history.ledger[index].strategy,
            cut_number=index + 1,
            budget_tokens=gauge.budget_tokens,
            tokens_before=gauge.meter.reading(history.context).tokens,
        )
    return Edit(event=result.event, context=result.messages, record=CutRecord(before=tuple(history.context)))

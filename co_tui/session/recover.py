"""Recover a lost item from the session: `r` on a summary banner (docs/context-governance.md,
"Recover a lost item").

`ChatSession.salvage` calls `recover_lost`; the pure part is `co_tui/governance/salvage.py`. The
excerpt is a context-only marker, so it is saved with the context, and the event goes into the
ledger with what undoing it needs (the context before it): `/undo` takes the excerpt back out.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from co_tui.governance.events import HistoryTrimmed

if TYPE_CHECKING:
    from pydantic_ai.messages import ModelMessage

    from co_tui.session.chat import ChatSession


def summary_index(ledger: Sequence[HistoryTrimmed], item: str, cut: int | None) -> int:
    """The ledger index of the summary `item` is recovered from: `cut` when its lost list holds the
    item, else (`cut` None) the newest summary that lost it. Raises `SalvageRefused` (one line)."""
    from co_tui.governance.salvage import SalvageRefused

    if cut is None:
        for i in range(len(ledger) - 1, -1, -1):
            if item in (ledger[i].summary_lost or []):
                return i
        raise SalvageRefused(f'no summary in this session lost "{item}"')
    if not 0 <= cut < len(ledger):
        raise SalvageRefused(f"no trim #{cut + 1} in this session's ledger")
    if item not in (ledger[cut].summary_lost or []):
        raise SalvageRefused(f'"{item}" is not on trim #{cut + 1}\'s list of what its summary lost')
    return cut


def summarised_messages(session: Any, cut: int) -> Sequence[ModelMessage]:
    """What ledger entry `cut`'s summary started from: the context before it when kept (the
    messages it summarised as the model saw them), else the transcript up to the cut."""
    before: Sequence[ModelMessage] | None = (
        session.ledger_records[cut].before if cut < len(session.ledger_records) else None
    )
    if before is not None:
        return before
    transcript: Sequence[ModelMessage] = session.transcript
    return transcript[: session.ledger_positions[cut]]


def recover_lost(session: ChatSession, item: str, cut: int | None = None) -> HistoryTrimmed:
    """Append a verbatim excerpt around `item` — on the lost list of ledger entry `cut` (0-based;
    None: the newest summary that lost it) — to the end of the context; record the `restore` event
    (with `salvaged_item`) and save. Raises `SalvageRefused` (a `ValueError`, one line) when busy,
    when no such summary lost the item, or when `governance.salvage.salvage` refuses (already in
    the context, not found, over the budget). Blocking: it saves."""
    from co_tui.governance.restore import CutRecord
    from co_tui.governance.salvage import SalvageRefused, salvage

    if session.busy:
        raise SalvageRefused("wait for the running turn to finish (or press Esc) before recovering an item")
    item = item.strip()
    index = summary_index(session.ledger, item, cut)
    result = salvage(
        session.context,
        summarised_messages(session, index),
        item,
        strategy=session.ledger[index].strategy,
        cut_number=index + 1,
        budget_tokens=session.policy.budget_tokens,
        tokens_before=session.meter.reading(session.context).tokens,
    )
    before = tuple(session.context)
    session.context = list(result.messages)
    trim = session._apply_trim(result.event, CutRecord(before=before))
    error = session._save(None)
    if error is not None:
        raise SalvageRefused(error.message)
    return trim

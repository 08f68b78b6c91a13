"""The user steering the context from the session: evict, and the looks ahead that go with it.

Kept out of chat.py (everyone edits that file): `ChatSession` calls these with a few lines. Each
operation changes only the context — never the transcript — records one `history_trimmed` event in
the ledger and saves. docs/context-governance.md, "Evict".
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from co_tui.governance.events import HistoryTrimmed

if TYPE_CHECKING:
    from co_tui.governance.next_cut import NextCut
    from co_tui.session.chat import ChatSession


class SteeringError(ValueError):
    """An operation the session refuses; the message is one line for the user."""


def evict_from_context(session: ChatSession, index: int) -> HistoryTrimmed:
    """Remove what context message `index` holds (numbered as the inspector's In context tab):
    a tool output, or a whole older turn. Returns the recorded event; the first eviction of a
    session also warns, in the event's note, that the prompt cache breaks from that point.
    Raises `SteeringError` (one line) when refused or busy. Blocking: it saves."""
    from co_tui.governance.evict import CACHE_WARNING, EvictError, evict

    if session.busy:
        raise SteeringError("wait for the running turn to finish (or press Esc) before evicting")
    try:
        result = evict(
            session.context,
            index,
            budget_tokens=session.policy.budget_tokens,
            overhead_tokens=session.overhead_tokens,
        )
    except EvictError as exc:
        raise SteeringError(str(exc)) from None
    # The meter's readings before and after, not the rules' raw estimate: the banner and the Trims
    # row then start from the figure the meter showed (docs/context-governance.md, "The meter").
    meter = session.meter
    event = replace(
        result.event,
        tokens_before=meter.reading(session.context).tokens,
        tokens_after=meter.reading(result.messages).tokens,
    )
    if not any(e.reason == "manual_evict" for e in session.ledger):  # warn once per session
        event = replace(event, note=f"{event.note}; {CACHE_WARNING}")
    record = session._cut_record(session.context)  # what /undo puts back (docs/context-governance.md, "Undo a cut")
    session.context = list(result.messages)
    trim = session._apply_trim(event, record)
    error = session._save(None)
    if error is not None:
        raise SteeringError(error.message)
    return trim


def next_cut_of(session: ChatSession, messages: Sequence[Any] | None = None) -> NextCut | None:
    """What the next automatic cut of `messages` (default: the context) would do, by the session's
    own policy, overhead and summariser cooldown — no model call (`preview_next_cut`)."""
    from co_tui.governance.next_cut import preview_next_cut

    return preview_next_cut(
        session.governance.governor,
        session.context if messages is None else messages,
        overhead_tokens=session.overhead_tokens,
    )


def compact_preview_of(session: ChatSession) -> HistoryTrimmed | None:
    """What `/compact` would summarise now and the estimated size after (`compact_estimate`), in the
    meter's figures like `/clear`'s preview: its dialog counts what the meter beside it shows."""
    from co_tui.governance.metered_cuts import preview_in_meter_figures
    from co_tui.governance.next_cut import compact_estimate

    overhead = session.overhead_tokens
    pins = session.governance.governor.pins  # left out of the summary, as `ChatSession.compact` does
    estimate = compact_estimate(session.context, session.policy.budget_tokens, overhead_tokens=overhead, pins=pins)
    return None if estimate is None else preview_in_meter_figures(estimate, session.meter, session.context, overhead)

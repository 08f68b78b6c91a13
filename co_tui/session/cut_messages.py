"""A cut said as a message, for a front end that shows no banner (ACP: an agent message): the
banner's own line, then what the user and the model can do about it (`/undo`, `recall`)."""

from __future__ import annotations

from co_tui.governance.events import HistoryTrimmed
from co_tui.session.banner import banner_line

__all__ = ["cut_message"]

_REVERSIBLE = ("token_budget", "message_count", "context_overflow", "manual_compact", "manual_evict")


def cut_message(event: HistoryTrimmed, *, undoable: bool) -> str:
    """`banner_line(event)`, and on the next lines the hints that apply: `/undo` when the cut can
    still be undone (`undoable`), `recall` for what left the model's view (the marker it left names
    the exact call), a summary's kept/lost items, its note, and its prompt-cache warning."""
    lines = [banner_line(event)]
    if event.reason in _REVERSIBLE:
        if undoable:
            lines.append("/undo puts it back (the model sees it again)")
        if event.reason != "manual_compact" or event.dropped_messages:
            lines.append("nothing is lost: the model can recall(...) what left, as the note it left says")
    if event.summary_lost:
        lines.append("the summary lost: " + ", ".join(event.summary_lost[:12]))
    if event.note and event.reason not in ("restore", "rewind", "branch_switch"):
        lines.append(event.note)
    if event.cache_warning:
        lines.append(f"note: {event.cache_warning}")
    return "\n".join(lines)

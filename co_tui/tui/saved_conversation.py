"""Showing a saved conversation on the chat screen: a resumed or switched-to session's newest entries
(banners at their cuts), the "Resumed" line, and the `truncated` badges of tool outputs the model now
sees shortened. Functions of a `ChatView` and what to show: the controller calls them at start-up
(the preview, the ready session), after a switch, a rewind or a branch switch, and after each turn.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from co_tui.session import HistoryTrimmed, SessionPort
    from co_tui.tui.chat_view import ChatView
    from co_tui.tui.transcript_view import Item

__all__ = ["show_conversation", "show_saved", "show_truncated"]


async def show_saved(view: ChatView, session: SessionPort, *, notice: bool = True) -> None:
    """Show `session`'s newest entries; the counts come from the session (the store's for a resumed
    one), so only the newest messages of a long transcript are decoded. `notice`: the "Resumed"
    line after them."""
    from co_tui.tui.transcript_view import RESUME_ENTRIES, newest_window

    counts = session.conversation_counts()
    positions, ledger = list(session.ledger_positions), list(session.ledger)
    start, items = newest_window(session.transcript, positions, RESUME_ENTRIES)
    await show_conversation(
        view,
        session.id,
        session.title,
        items,
        [(at, event) for at, event in zip(positions, ledger, strict=False) if at >= start],
        turns=counts.turns,
        messages=len(session.transcript),
        entries=counts.items + len(ledger),
        notice=notice,
    )
    show_truncated(view, session)


async def show_conversation(
    view: ChatView,
    session_id: str,
    title: str,
    items: list[Item],
    banners: Sequence[tuple[int, HistoryTrimmed]],
    *,
    turns: int,
    messages: int,
    entries: int | None = None,
    notice: bool = True,
) -> None:
    """Mount a saved conversation's newest entries (banners at their cuts) and the "Resumed"
    line (`notice`). `entries`: the whole conversation's, when `items` are only its newest part."""
    view.show_title(title)
    # One mount for the newest entries, banners at their cuts (not one mount per ledger event).
    await view.show_items(items, banners, entries=entries)
    if not notice:
        return
    from co_tui.text import plural

    name = title or session_id[:8]
    await view.add_notice(f"Resumed “{name}” · {plural(turns, 'turn')} · {plural(messages, 'message')}")


def show_truncated(view: ChatView, session: SessionPort) -> None:
    """The `truncated` badges of the tool calls whose output the model now sees shortened."""
    from co_tui.tui.transcript_view import truncated_tool_call_ids

    view.show_truncated(truncated_tool_call_ids(list(session.context)))

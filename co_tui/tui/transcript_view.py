"""What the chat log shows for saved messages (resume): the session's replay (`co_tui.session.replay_items`:
messages → display items, re-exported here) and how many rows its entries take on screen.
Nothing here imports pydantic-ai: a resumed conversation shows before it loads."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from co_tui.session import (
    FIRST_WINDOW,
    Item,
    newest_entries,
    newest_window,
    tail_shows,
    transcript_items,
    truncated_tool_call_ids,
    window_items,
    window_shows,
)

RESUME_ENTRIES = 24  # conversation entries mounted when a saved session opens: about a screenful and a half
# Columns an entry's text loses to the log's padding and its own border and padding (the widgets' CSS).
ENTRY_INSET = 6


def rows_at_least(entry: Any, width: int) -> int:
    """A lower bound of the rows chat-log entry `entry` (an `Item` or a trim banner) takes in a log
    `width` columns wide: its top margin, then a title line (tool calls, banners) or its text with
    every block's lines joined (Markdown may join soft line breaks, never splits fewer rows), one
    row between blocks."""
    if not isinstance(entry, Item) or entry.kind == "tool":
        return 2
    room = max(1, width - ENTRY_INSET)
    blocks = [block for block in entry.text.split("\n\n") if block.strip()] or [""]
    text_rows = sum(max(1, -(-len(" ".join(block.split())) // room)) for block in blocks)
    return 1 + text_rows + len(blocks) - 1 + (1 if entry.interrupted else 0)


def first_screen(entries: Sequence[Any], width: int, rows: int) -> int:
    """How many of the newest `entries` (oldest first) a log `width` x `rows` needs to be full
    (`rows_at_least`: the estimate never leaves the screen short); all of them when they do not
    fill it, or when the log has no size yet."""
    if width <= 0 or rows <= 0:
        return len(entries)
    filled = 0
    for count, entry in enumerate(reversed(entries), 1):
        filled += rows_at_least(entry, width)
        if filled >= rows:
            return count
    return len(entries)


__all__ = [
    "ENTRY_INSET",
    "FIRST_WINDOW",
    "RESUME_ENTRIES",
    "Item",
    "first_screen",
    "newest_entries",
    "newest_window",
    "rows_at_least",
    "tail_shows",
    "transcript_items",
    "truncated_tool_call_ids",
    "window_items",
    "window_shows",
]

"""Text helpers every layer uses (no imports: governance, agent, session and the TUI all may)."""

from __future__ import annotations


def one_line(text: str, limit: int) -> str:
    """`text` with its whitespace runs collapsed to single spaces, cut to at most `limit` characters
    (the last one an ellipsis when cut)."""
    line = " ".join(str(text).split())
    return line if len(line) <= limit else line[: max(0, limit - 1)].rstrip() + "…"

"""`#note` in the prompt and `/remember [--global] note`: telling a note from a prompt, and which
memory file it is for. Imports nothing: the TUI's prompt asks this before the session is loaded.
Writing one is `memory.py`'s."""

from __future__ import annotations

from typing import Literal

__all__ = ["GLOBAL_FLAG", "HASH", "hash_note", "parse_remember"]

HASH = "#"
GLOBAL_FLAG = "--global"


def hash_note(text: str) -> str | None:
    """The note of a prompt typed as `#note`, or None: not one (`##…` and a lone `#` are prompts as
    typed, so a Markdown heading can still be sent by starting it with `##`)."""
    if not text.startswith(HASH) or text.startswith(HASH * 2):
        return None
    return text[len(HASH) :].strip() or None


def parse_remember(argument: str) -> tuple[Literal["workspace", "global"], str]:
    """`/remember`'s argument → (scope, note): a leading `--global` means the user's own file."""
    words = argument.strip()
    if words == GLOBAL_FLAG or words.startswith(GLOBAL_FLAG + " "):
        return "global", words[len(GLOBAL_FLAG) :].strip()
    return "workspace", words

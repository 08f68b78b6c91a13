"""Alt+Enter as a key of its own, so it starts a new line in the prompt instead of sending.

Most terminals (xterm, GNOME Terminal, Konsole, Windows Terminal, iTerm2 with Option as Meta) and
tmux send Alt+Enter as ESC CR. Textual reads ESC CR as a bare `enter`, dropping the Alt: the prompt
sent. Here ESC CR is named `alt+enter` (and ESC LF `ctrl+j`, as Textual already reads it), by one
entry in Textual's table of key sequences, which its parser consults before anything else. Shift+
Enter needs no entry: terminals with the kitty keyboard protocol (kitty, WezTerm, foot, Ghostty)
send it as `CSI 13;2u`, which Textual reads as `shift+enter`; others send a plain CR, the same as
Enter, which no program can tell apart (docs/keys-and-commands.md says so).
"""

from __future__ import annotations

from enum import StrEnum

__all__ = ["ALT_ENTER_SEQUENCE", "install"]

ALT_ENTER_SEQUENCE = "\x1b\r"


class _Key(StrEnum):
    """A key name Textual's `Keys` lacks (its table maps a sequence to members with a `value`)."""

    ALT_ENTER = "alt+enter"


def install() -> None:
    """Make Textual's parser read ESC CR as `alt+enter` (idempotent; process-wide, as the table is)."""
    from textual._ansi_sequences import ANSI_SEQUENCES_KEYS

    ANSI_SEQUENCES_KEYS[ALT_ENTER_SEQUENCE] = (_Key.ALT_ENTER,)  # type: ignore[index]

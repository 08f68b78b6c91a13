"""What print mode writes to a terminal, escaped: a model, a tool or a server never drives it.

A tool name the model chose, its arguments, a provider's error text or a cut's note reach stderr
inside co-tui's own lines. Written raw, an OSC sequence in one (`ESC ] 0 ; … BEL`) retitled the
terminal window, and others can move the cursor or rewrite what is shown. `EscapedOutput` wraps a
stream and escapes control characters in every write (`text.escape_controls`): on stderr each write
is one line (only its closing newline is kept); on a terminal stdout the answer keeps its newlines
and tabs. A pipe's stdout and the jsonl stream (JSON-escaped already) are left byte-exact.
"""

from __future__ import annotations

from typing import Any, TextIO

from co_tui.text import escape_controls


class EscapedOutput:
    """`stream` with control characters escaped in each write. `keep_lines=False` (stderr): one
    line per write, its trailing newline kept; True (an answer): newlines and tabs kept."""

    def __init__(self, stream: TextIO, *, keep_lines: bool = False) -> None:
        self._stream = stream
        self._keep_lines = keep_lines

    def write(self, text: str) -> int:
        """Write `text` escaped; returns the length written to the stream."""
        if self._keep_lines:
            shown = escape_controls(text, keep_lines=True)
        else:
            body, end = (text[:-1], "\n") if text.endswith("\n") else (text, "")
            shown = escape_controls(body) + end
        return self._stream.write(shown)

    def flush(self) -> None:
        """Flush the stream."""
        self._stream.flush()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)  # fileno, isatty, encoding…


def is_terminal(stream: TextIO) -> bool:
    """Whether `stream` is a terminal (False for a pipe, a file, or a stream without a descriptor)."""
    try:
        return stream.isatty()
    except (AttributeError, ValueError, OSError):
        return False


__all__ = ["EscapedOutput", "is_terminal"]

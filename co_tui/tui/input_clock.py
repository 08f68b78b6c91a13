"""When the user last typed into the prompt, so output that can wait gives way to input.

A streamed answer's flush (Markdown append, a layout pass, a repaint) costs a frame or two of
work; landing on the frame that should show a key press, it can double that key's latency. So a
flush waits a moment after a key press (`AssistantMessage`), bounded so text is never held long.
"""

from __future__ import annotations

from time import monotonic

_last_input = float("-inf")


def note_input() -> None:
    """Record a key press in the prompt (now)."""
    global _last_input
    _last_input = monotonic()


def since_input() -> float:
    """Seconds since the last key press in the prompt (infinite before the first one)."""
    return monotonic() - _last_input

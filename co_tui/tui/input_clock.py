"""When the user last typed into the prompt, so output that can wait gives way to input.

A streamed answer's flush (Markdown append, a layout pass, a repaint) costs a frame or two of
work; landing on the frame that should show a key press, it can double that key's latency. So a
flush waits a moment after a key press (`AssistantMessage`), bounded so text is never held long,
and a frame that owes both a key's repaint and a layout paints the key first (key_echo.py).
"""

from __future__ import annotations

from time import monotonic

_last_input = float("-inf")
_unpainted = False  # a key press in the prompt has not been painted yet


def note_input() -> None:
    """Record a key press in the prompt (now); it waits to be painted."""
    global _last_input, _unpainted
    _last_input = monotonic()
    _unpainted = True


def since_input() -> float:
    """Seconds since the last key press in the prompt (infinite before the first one)."""
    return monotonic() - _last_input


def input_unpainted() -> bool:
    """Whether a key press in the prompt waits for a frame to show it."""
    return _unpainted


def note_input_painted() -> None:
    """A frame painted the prompt since the last key press."""
    global _unpainted
    _unpainted = False

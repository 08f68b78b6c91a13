"""When the user last typed into the prompt, so output that can wait gives way to input.

A streamed answer's flush (Markdown append, a layout pass, a repaint) costs a frame or two of
work; landing on the frame that should show a key press, it can double that key's latency. So a
flush waits a moment after a key press (`AssistantMessage`), bounded so text is never held long,
and a frame that owes both a key's repaint and a layout paints the key first (key_echo.py).

A key is "in flight" from the moment the terminal driver's thread reads it (`note_key_arrived`,
key_arrival.py) until a frame paints the prompt after the prompt handled it: layout frames wait
for it (key_echo.py), so a key does not queue behind a layout that started after it was typed.
"""

from __future__ import annotations

from time import monotonic

FORGET_S = 1.0  # a key read this long ago is no longer in flight, painted or not

_last_input = float("-inf")
_unpainted = False  # a key press in the prompt has not been painted yet
_arrived = float("-inf")  # when the driver's thread last read a key from the terminal
_echoed = float("-inf")  # when a frame last painted the prompt after it handled a key


def note_input() -> None:
    """Record a key press in the prompt (now); it waits to be painted."""
    global _last_input, _unpainted
    _last_input = monotonic()
    _unpainted = True


def since_input() -> float:
    """Seconds since the last key press: read from the terminal, or handled by the prompt
    (infinite before the first one)."""
    return monotonic() - max(_last_input, _arrived)


def input_unpainted() -> bool:
    """Whether a key press in the prompt waits for a frame to show it."""
    return _unpainted


def note_input_painted() -> None:
    """A frame painted the prompt since the last key press."""
    global _unpainted, _echoed
    if _unpainted:
        _echoed = monotonic()
    _unpainted = False


def note_key_arrived() -> None:
    """Record that a key was read from the terminal (now). Safe from the driver's input thread:
    one assignment of a float."""
    global _arrived
    _arrived = monotonic()


def key_in_flight() -> float | None:
    """When the key now in flight was read from the terminal: read, and not painted in the prompt
    since (None when there is none, or it was read more than `FORGET_S` ago: a key that never
    reaches the prompt, a binding say, stops counting)."""
    arrived = _arrived
    if arrived > _echoed and monotonic() - arrived < FORGET_S:
        return arrived
    return None

"""When the user last typed into the prompt, so output that can wait gives way to input.

A streamed answer's flush (Markdown append, a layout pass, a repaint) costs a frame or two of
work; landing on the frame that should show a key press, it can double that key's latency. So a
flush waits a moment after a key press (`AssistantMessage`), bounded so text is never held long,
and a frame that owes both a key's repaint and a layout paints the key first (key_echo.py).

A key is "in flight" from the moment the terminal driver's thread reads it (`note_key_arrived`,
key_arrival.py) until a frame paints the prompt after the prompt handled it: layout frames wait
for it (key_echo.py), so a key does not queue behind a layout that started after it was typed.

The times belong to one app: `CoTuiApp` creates its `KeyClock` and hands it to the code that
notes keys (its driver, the prompt, the chat screen's frames) and the code that reads them (the
answer's flush, key_echo, the held garbage collection). Two apps in one process (the tests run
many) keep their own. See docs/architecture.md ("Streaming").
"""

from __future__ import annotations

from time import monotonic

FORGET_S = 1.0  # a key read this long ago is no longer in flight, painted or not


class KeyClock:
    """One app's key timings: plain attributes, read and written on every key and frame, so the
    hot path is an attribute access and a float store (no allocation). All times are `monotonic()`."""

    def __init__(self) -> None:
        self.last_input = float("-inf")  # when the prompt last handled a key press
        self.unpainted = False  # a key press in the prompt has not been painted yet
        self.arrived = float("-inf")  # when the driver's thread last read a key from the terminal
        self.echoed = float("-inf")  # when a frame last painted the prompt after it handled a key

    def note_input(self) -> None:
        """Record a key press in the prompt (now); it waits to be painted."""
        self.last_input = monotonic()
        self.unpainted = True

    def since_input(self) -> float:
        """Seconds since the last key press: read from the terminal, or handled by the prompt
        (infinite before the first one)."""
        return monotonic() - max(self.last_input, self.arrived)

    def note_input_painted(self) -> None:
        """A frame painted the prompt since the last key press."""
        if self.unpainted:
            self.echoed = monotonic()
        self.unpainted = False

    def note_key_arrived(self) -> None:
        """Record that a key was read from the terminal (now). Safe from the driver's input thread:
        one store of a float."""
        self.arrived = monotonic()

    def key_in_flight(self) -> float | None:
        """When the key now in flight was read from the terminal: read, and not painted in the
        prompt since (None when there is none, or it was read more than `FORGET_S` ago: a key that
        never reaches the prompt, a binding say, stops counting)."""
        arrived = self.arrived
        if arrived > self.echoed and monotonic() - arrived < FORGET_S:
            return arrived
        return None

"""Key echo first: a typed key is painted alone, before the layout the answer owes.

While an answer streams, most frames carry a layout: the answer grew, so the whole chat log is
re-arranged and repainted (15–40 ms on an idle 2-core host, more under load). A key typed into
the prompt just then waited for that frame, and often for the next one too: measured in
`benchmarks/tui.py` part c, a typed letter took 73 ms to paint (median; p95 133 ms).

The prompt's size does not change when a letter is typed or erased, so its repaint does not need
that layout: `paint_typed_key` paints the prompt alone on the old layout (a millisecond or two)
right after the prompt handled the key, in the same callback, so no flush or append that was due
runs first; the layout and every other widget's repaint come with the next frame. When it could
not (the screen was not current, or in a batch), `paint_key_first` does the same on the frame that
owes both. When the prompt itself asked for a layout (it grew a line), the frame runs as usual.

Before the prompt has even handled the key, a layout frame can still start: the key passes the
App's and the prompt's message queues first, and a frame that begins in between makes it wait
15–40 ms more, twice when the anchored scroll asks for a second layout. Traced key by key in part
c, that was most of the slow keys' wait. So while a key read from the terminal is in flight
(key_arrival.py, input_clock.py), `hold_for_key` skips layout frames, for at most `KEY_HOLD_S`
per key (a key that never reaches the prompt, say a binding, delays the layout only that long).
The chat screen owns its `KeyEcho` (the frame it holds), built on its app's `KeyClock`.
See docs/architecture.md ("Streaming").
"""

from __future__ import annotations

from time import monotonic
from typing import Any

from co_tui.tui.input_clock import KeyClock

KEY_HOLD_S = 0.05  # the longest a layout frame waits for a key in flight


class KeyEcho:
    """The chat screen's key-first frame hooks over its app's `KeyClock`, and which frame they hold:
    each chat screen owns one (its held frame is its own)."""

    def __init__(self, clock: KeyClock) -> None:
        self.clock = clock
        self.held_since: float | None = None  # when the frame now held was first due
        self.released = float("-inf")  # the key (its arrival time) that held frames as long as it may

    def paint_key_first(self, screen: Any, prompt: Any) -> bool:
        """On `screen`'s update frame: when a key press in `prompt` waits to be painted and the
        frame also owes a layout, paint `prompt` alone now, re-arm the frame for the rest, and
        return True; otherwise return False (the caller runs the frame as usual)."""
        if (
            not self._may_paint_alone(screen, prompt)
            or not screen._layout_required
            or prompt not in screen._dirty_widgets
        ):
            return False
        screen._update_timer.pause()
        self._paint_alone(screen, prompt)
        screen._update_timer.resume()  # the layout and the other repaints, one frame period later
        return True

    def paint_typed_key(self, screen: Any, prompt: Any) -> bool:
        """Right after `prompt` handled a key press, in the same event-loop callback: when the
        prompt owes a repaint and no layout of its own, paint it alone now, on the current layout,
        and return True; otherwise return False (the next frame paints it as usual).

        Without this the repaint waited for the prompt's idle turn, the screen's message queue and
        the next update tick; a flush or a Markdown append that ran in between added its whole
        length to the key's wait. The frame still runs at its time for everything else."""
        if not self._may_paint_alone(screen, prompt) or not (
            prompt._repaint_required or prompt in screen._dirty_widgets
        ):
            return False
        prompt._repaint_required = False  # painted here: no Update message for it on idle
        self._paint_alone(screen, prompt)
        return True

    def _may_paint_alone(self, screen: Any, prompt: Any) -> bool:
        """A key press in `prompt` waits to be painted, `screen` can paint now (current, not in a
        batch) and the prompt keeps its size (else the layout is the key's own)."""
        return (
            self.clock.unpainted and screen.is_current and not screen.app._batch_count and not prompt._layout_required
        )

    def _paint_alone(self, screen: Any, prompt: Any) -> None:
        """Paint `prompt` alone on `screen`'s current layout; every other dirty widget stays dirty."""
        screen._dirty_widgets.discard(prompt)
        # Textual's refresh forgets every dirty widget, painted or not, and the next frame's layout
        # repaints only those it finds dirty: the others (a hint under the prompt) are kept for it.
        others = set(screen._dirty_widgets)
        screen._compositor.update_widgets({prompt})
        screen._compositor_refresh()
        screen._dirty_widgets.update(others)
        self.clock.note_input_painted()

    def hold_for_key(self, screen: Any, prompt: Any) -> bool:
        """On `screen`'s update frame: when a key read from the terminal has not been painted in
        the focused `prompt` yet and the frame owes a layout, skip the frame and return True (the
        update timer keeps running: the next tick asks again). Each key holds frames at most
        `KEY_HOLD_S`; then, or when no key is in flight, return False (the caller runs the frame)."""
        arrived = self.clock.key_in_flight()
        if (
            arrived is None
            or arrived == self.released
            or not screen.is_current
            or not screen._layout_required
            or not prompt.has_focus
        ):
            self.held_since = None
            return False
        now = monotonic()
        if self.held_since is None:
            self.held_since = now
        if now - self.held_since < KEY_HOLD_S:
            return True
        self.held_since, self.released = None, arrived  # held long enough for this key
        return False

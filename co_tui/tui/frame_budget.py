"""How often a streamed answer may change the layout: its content frame rate adapts to their cost.

Every append to a streaming answer grows the chat log, so the next frame re-arranges and repaints
the screen (a reflow, and another once the new blocks mounted). Measured in
`benchmarks/tui.py` on a loaded 2-core host, one such frame took 15–40 ms; at a fixed 10 appends
a second they used half the event loop, and the stream was taken from the model at a tenth of
the rate it was offered (the provider's tokens wait in the loop behind the frames).

So the chat screen times each layout frame (`note_layout`, on the `FrameBudget` it owns) and an
answer appends at most once per `content_interval()`: the interval keeps layout work under
`LAYOUT_SHARE` of the time, never faster than `1 / MAX_CONTENT_HZ` (cheap frames: the usual 10 a
second) and never slower than `MAX_INTERVAL_S`. A key press is not a content frame: it repaints only the prompt, at the app's
full frame rate, and an append waits briefly after it (see input_clock.py), so keys paint first.
See docs/architecture.md ("Streaming").
"""

from __future__ import annotations

from time import monotonic

MAX_CONTENT_HZ = 10  # appends a second when frames are cheap
MAX_INTERVAL_S = 0.5  # the slowest cadence: text never waits longer than this to appear
LAYOUT_SHARE = 0.25  # at most this share of the time goes to layout frames caused by appends
LAYOUTS_PER_APPEND = 2  # the reflow, then another for the new blocks' mount (widgets/kept_lines.py)
_SMOOTHING = 0.2  # weight of the newest frame in the running average


class FrameBudget:
    """One chat screen's layout cost and last append: the screen times its layout frames
    (`note_layout`), its streaming answer appends at most once per `content_interval()` and notes
    each append (`note_append`), and its activity line reads `since_append()`. Each chat screen
    holds its own, so one app's frames never set another's cadence."""

    def __init__(self) -> None:
        self.layout_s = 0.0  # running average of one layout frame's cost, in seconds
        self.appended_at = float("-inf")  # when a streaming answer last appended text

    def note_layout(self, seconds: float) -> None:
        """Record the cost of one layout frame (a reflow and repaint of the screen)."""
        self.layout_s += _SMOOTHING * (seconds - self.layout_s)

    def layout_cost(self) -> float:
        """The running average cost of a layout frame, in seconds (0 before the first)."""
        return self.layout_s

    def content_interval(self) -> float:
        """Seconds between two appends of a streaming answer: `LAYOUTS_PER_APPEND` layout frames
        per append take at most `LAYOUT_SHARE` of the time, bounded by `MAX_CONTENT_HZ` and
        `MAX_INTERVAL_S`."""
        wanted = self.layout_s * LAYOUTS_PER_APPEND / LAYOUT_SHARE
        return min(MAX_INTERVAL_S, max(1 / MAX_CONTENT_HZ, wanted))

    def note_append(self) -> None:
        """Record that a streaming answer appended text now (its growth shows the turn is alive)."""
        self.appended_at = monotonic()

    def since_append(self) -> float:
        """Seconds since a streaming answer last appended text (infinite before the first)."""
        return monotonic() - self.appended_at

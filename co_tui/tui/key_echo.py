"""Key echo first: a frame that owes both a key press and a layout paints the key alone first.

While an answer streams, most frames carry a layout: the answer grew, so the whole chat log is
re-arranged and repainted (15–40 ms on an idle 2-core host, more under load). A key typed into
the prompt just then waited for that frame, and often for the next one too: measured in
`benchmarks/tui.py` part c, a typed letter took 73 ms to paint (median; p95 133 ms).

The prompt's size does not change when a letter is typed or erased, so its repaint does not need
that layout: `paint_key_first` paints the prompt alone on the old layout (a millisecond or two)
and leaves the layout, and every other widget's repaint, to the next frame, one frame period
later. When the prompt itself asked for a layout (it grew a line), the frame runs as usual.
See docs/architecture.md ("Streaming").
"""

from __future__ import annotations

from typing import Any

from co_tui.tui.input_clock import input_unpainted, note_input_painted


def paint_key_first(screen: Any, prompt: Any) -> bool:
    """On `screen`'s update frame: when a key press in `prompt` waits to be painted and the frame
    also owes a layout, paint `prompt` alone now, re-arm the frame for the rest, and return True;
    otherwise return False (the caller runs the frame as usual)."""
    if not input_unpainted():
        return False
    if (
        not screen.is_current
        or screen.app._batch_count
        or not screen._layout_required
        or prompt not in screen._dirty_widgets
        or prompt._layout_required  # the prompt changes size: the layout is the key's own
    ):
        return False
    screen._update_timer.pause()
    screen._dirty_widgets.discard(prompt)
    screen._compositor.update_widgets({prompt})
    screen._compositor_refresh()
    note_input_painted()
    screen._update_timer.resume()  # the layout and the other repaints, one frame period later
    return True

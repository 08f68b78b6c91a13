"""Containers that keep their drawn lines when they only grow taller.

While an answer streams, every append makes the answer, its Markdown and the chat log taller (or
their scrollable size larger), and Textual then draws each of them whole again on the next
frame: `Widget._size_updated` marks a widget dirty when its size changed, and sets its
`virtual_size`, a reactive that repaints and asks for one more layout. Counted in
`benchmarks/tui.py` part c, ~85% of the lines drawn in a layout frame were those containers'
(a border, padding and a background: the same on every line), and Textual's own follow-up layout
made ~3 layout frames per append. A container whose lines do not depend on its height (no top or
bottom border or padding) keeps them: only new lines are drawn, and the reflow that set its new
sizes is the only layout. See docs/architecture.md ("Streaming").
"""

from __future__ import annotations

from textual.geometry import Size
from textual.widget import Widget


def _height_free(widget: Widget) -> bool:
    """Whether `widget` draws the same line at every height: no top or bottom border, no top or
    bottom padding, no border title."""
    styles = widget.styles
    return (
        styles.border_top[0] in ("", "none", "hidden")
        and styles.border_bottom[0] in ("", "none", "hidden")
        and not styles.padding.top
        and not styles.padding.bottom
        and widget._border_title is None
        and widget._border_subtitle is None
    )


class KeptLines:
    """A mixin for containers, first among the bases of a Widget class (it is no DOM node itself, so
    the widget's CSS type names are its other bases'). Placed at a new height with the same width,
    the lines already drawn stay valid; a new virtual size asks for no further layout (the reflow
    that set it placed every child already). See the module docstring."""

    def _size_updated(self, size: Size, virtual_size: Size, container_size: Size, layout: bool = True) -> bool:
        widget: Widget = self  # type: ignore[assignment]
        resized = widget._size != size
        if resized and widget._size.width == size.width and _height_free(widget):
            widget._size = size  # no repaint of the lines drawn: only the new ones are drawn
        updated: bool = super()._size_updated(size, virtual_size, container_size, layout=False)  # type: ignore[misc]
        return updated or resized

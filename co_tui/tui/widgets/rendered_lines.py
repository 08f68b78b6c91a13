"""A finished part of a streaming answer drawn as one widget: its Markdown's lines, rendered once.

Every layout frame walks every displayed widget on the screen (Textual's compositor places them
all, on screen or not), and a Markdown has a widget per block: while an answer streams, each
append made every finished segment's blocks cost time again, so frames grew with the answer
(docs/architecture.md, "Streaming"). A finished segment's Markdown is hidden behind a
`RenderedLines` holding the lines it drew, which a layout pass places as one widget.

The lines are only valid at the width and theme they were drawn in: a change of either, or the
end of the answer, puts the Markdown back (`thaw`), so selection, links and resizes work on the
real widgets once the answer is done.
"""

from __future__ import annotations

from textual._compositor import Compositor
from textual.geometry import Size
from textual.message import Message
from textual.strip import Strip
from textual.widget import Widget


def render_subtree(widget: Widget) -> list[Strip] | None:
    """The lines `widget` and its descendants draw at its current width, or None when the
    screen's last layout does not match its content yet (a block was added or changed since; try
    after the next frame). The widget must be mounted, displayed and laid out."""
    width = widget.region.width
    if width <= 0:
        return None
    height = widget.get_content_height(widget.container_size, widget.app.size, width)
    compositor = Compositor()  # a private one: the screen's map is left alone
    compositor.reflow(widget, Size(width, height))
    for placed, geometry in compositor.full_map.items():
        # Each widget draws at the size the screen's layout gave it: it must be the one here.
        if placed is not widget and placed.region.size != geometry.region.size:
            return None
    if widget.region.size != Size(width, height):
        return None
    return compositor.render_strips()


class RenderedLines(Widget):
    """Fixed lines standing in for a hidden widget (see the module docstring). Posts `Stale` when
    its width or the theme changes: its owner then shows the real widget again."""

    DEFAULT_CSS = """
    RenderedLines { height: auto; background: transparent; }
    """

    class Stale(Message):
        """The lines no longer match what the hidden widget would draw (a new width or theme)."""

    def __init__(self, lines: list[Strip], width: int) -> None:
        super().__init__()
        self.lines = lines
        self.drawn_width = width

    def on_mount(self) -> None:
        """A theme change makes the lines stale (`Stale`)."""
        self.app.theme_changed_signal.subscribe(self, self._theme_changed)

    def _theme_changed(self, _theme: object) -> None:
        self.post_message(self.Stale())

    def on_resize(self) -> None:
        """A new width makes the lines stale (`Stale`)."""
        if self.size.width != self.drawn_width:
            self.post_message(self.Stale())

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        """One row per drawn line, whatever the width."""
        return len(self.lines)

    def render_line(self, y: int) -> Strip:
        """Drawn line `y` (blank past the end)."""
        if y < len(self.lines):
            return self.lines[y]
        return Strip.blank(self.size.width)

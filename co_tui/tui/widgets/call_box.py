"""The bounded, scrollable box an approval shows a call in (`agent/approval_text.py` says what).

The call's text is painted as plain `Content` (markup in it is shown, never applied); an escaped
character is drawn reversed and a folded gap or co-tui's own note dim and italic, so neither can be
mistaken for text of the call. Diff lines are coloured by kind.

A `ScrollView` that wraps the text once per width and paints only the rows in view (Textual's
line API): a 50,000-character call or a 1,500-line diff opens as fast as a one-line command. As a
`Static` holding all of it, a 5,000-line command took 5 s to open and froze the screen meanwhile.
"""

from __future__ import annotations

from collections.abc import Iterable

from rich.segment import Segment
from textual.content import Content, Span
from textual.geometry import Size
from textual.scroll_view import ScrollView
from textual.strip import Strip

from co_tui.session import ShownLine

_SEGMENT_STYLE = {"escape": "reverse $warning", "gap": "italic $text-muted"}
_LINE_STYLE = {"add": "$text-success", "delete": "$text-error", "hunk": "bold $text-accent"}


def lines_content(lines: Iterable[ShownLine]) -> Content:
    """`lines` as one `Content`: a line per `ShownLine`, escapes and gaps styled apart from the text."""
    text: list[str] = []
    spans: list[Span] = []
    at = 0
    for number, line in enumerate(lines):
        if number:
            text.append("\n")
            at += 1
        start = at
        for segment in line.segments:
            style = _SEGMENT_STYLE.get(segment.kind)
            if style:
                spans.append(Span(at, at + len(segment.text), style))
            text.append(segment.text)
            at += len(segment.text)
        if line.kind in _LINE_STYLE:
            spans.insert(0, Span(start, at, _LINE_STYLE[line.kind]))
    return Content("".join(text), spans=spans)


class CallBox(ScrollView, can_focus=True):
    """The call's lines in a box of bounded height (approval.tcss) that scrolls: ↑ ↓ PgUp PgDn Home End."""

    DEFAULT_CSS = """
    CallBox {
        height: auto;
        max-height: 12;
        padding: 0 1;
        border: round $primary 60%;
        background: $background;
        overflow-x: hidden;
        scrollbar-size-vertical: 1;
    }
    CallBox:focus { border: round $accent; }
    """

    def __init__(self, lines: Iterable[ShownLine], *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.content = lines_content(lines)
        self._rows: list[Content] = []
        self._wrapped_at = -1

    @property
    def text(self) -> str:
        """The box's text, as shown (escapes and notes as written)."""
        return self.content.plain

    def _wrap(self, width: int) -> list[Content]:
        """The rows at `width` (wrapped once per width)."""
        width = max(1, width)
        if width != self._wrapped_at:
            self._rows = self.content.wrap(width)
            self._wrapped_at = width
        return self._rows

    def get_content_width(self, container: Size, viewport: Size) -> int:
        """As wide as the box is given."""
        return container.width

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        """Every wrapped row (the CSS caps the box's height; the rest scrolls)."""
        return len(self._wrap(width - self.scrollbar_size_vertical))

    def on_resize(self) -> None:
        """Wrap for the new width; the scrollable area is that many rows."""
        self._fit(self.scrollable_content_region.width)

    def _fit(self, width: int) -> list[Content]:
        rows = self._wrap(width)
        if self.virtual_size != Size(width, len(rows)):  # e.g. the scrollbar took a column
            self.virtual_size = Size(width, len(rows))
        return rows

    def render_line(self, y: int) -> Strip:
        """Row `y` of the view: only the rows in view are painted."""
        width = self.scrollable_content_region.width
        row = self.scroll_offset.y + y
        rows = self._fit(width)
        if row >= len(rows):
            return Strip.blank(width, self.rich_style)
        # The row is already wrapped: render it as it is (a second wrap would drop its indent).
        base = self.visual_style
        pieces = rows[row].render(base, end="", parse_style=self._get_style)  # resolves `$warning`…
        strip = Strip([Segment(text, (base + style).rich_style) for text, style in pieces])
        return strip.adjust_cell_length(width, self.rich_style)

"""The bounded, scrollable box an approval shows a call in (`agent/approval_text.py` says what).

The call's text is painted as plain `Content` (markup in it is shown, never applied); an escaped
character is drawn reversed and a folded gap or co-tui's own note dim and italic, so neither can be
mistaken for text of the call. Diff lines are coloured by kind.
"""

from __future__ import annotations

from collections.abc import Iterable

from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.content import Content, Span
from textual.widgets import Static

from co_tui.agent.approval_text import ShownLine

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


class CallBox(VerticalScroll):
    """The call's lines in a box of bounded height (approval.tcss) that scrolls: ↑ ↓ PgUp PgDn Home End."""

    DEFAULT_CSS = """
    CallBox {
        height: auto;
        max-height: 12;
        border: round $primary 60%;
        background: $background;
        scrollbar-size-vertical: 1;
    }
    CallBox:focus { border: round $accent; }
    CallBox > Static { width: 1fr; padding: 0 1; }
    """

    def __init__(self, lines: Iterable[ShownLine], *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.lines = tuple(lines)

    def compose(self) -> ComposeResult:
        """One static holding every line."""
        yield Static(lines_content(self.lines), id="call-box-text")

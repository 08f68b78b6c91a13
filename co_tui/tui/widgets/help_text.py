"""`HelpText`: the keys-and-commands reference drawn as ONE widget.

Textual's `Markdown` widget mounts a widget per block and per table cell — the reference made ~230
of them, and styling and laying them out was most of the ~4 s the first F1 took on a loaded machine
(benchmarks/help_screen.py). Here Rich's own Markdown renderer draws the same source into lines in
one pass, with the styles taken from this widget's component classes (so they follow the Textual
theme), and tables without grid lines whose middle column — the description — takes the room left
and is the only one that wraps (docs/keys-and-commands.md).
"""

from __future__ import annotations

from typing import Any, ClassVar

from rich.console import Console, ConsoleOptions, RenderResult
from rich.markdown import Markdown, MarkdownElement, TableElement
from rich.segment import Segment
from rich.table import Table
from rich.theme import Theme
from textual.widget import Widget

# Component class → the Rich Markdown style it sets.
_STYLES = {
    "help-text--heading": "markdown.h2",
    "help-text--code": "markdown.code",
    "help-text--table-header": "markdown.table.header",
    "help-text--bullet": "markdown.item.bullet",
}


class _CompactTable(TableElement):
    """A Markdown table with no grid lines; column 1 (the description) wraps, the others never do."""

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        table = Table(box=None, pad_edge=False, padding=(0, 2, 0, 0), expand=True, show_edge=False)
        header = self.header.row.cells if self.header is not None and self.header.row is not None else []
        for i, column in enumerate(header):
            heading = column.content.copy()
            heading.stylize("markdown.table.header")
            table.add_column(heading, no_wrap=i != 1, ratio=1 if i == 1 else None)
        for row in self.body.rows if self.body is not None else []:
            table.add_row(*(cell.content for cell in row.cells))
        yield table


class _ReferenceMarkdown(Markdown):
    elements: ClassVar[dict[str, type[MarkdownElement]]] = {**Markdown.elements, "table_open": _CompactTable}


class _Themed:
    """`renderable` drawn under `theme` (Rich looks Markdown styles up on the console by name),
    once per width: Textual asks for the lines to measure the height and again to paint them."""

    def __init__(self, renderable: Any, theme: Theme) -> None:
        self.renderable, self.theme = renderable, theme
        self._drawn: dict[int, list[Segment]] = {}

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        segments = self._drawn.get(options.max_width)
        if segments is None:
            with console.use_theme(self.theme):
                # Drawn inside the block: the styles are looked up while rendering, not when yielded.
                segments = self._drawn[options.max_width] = list(console.render(self.renderable, options))
        yield from segments


class HelpText(Widget):
    """Markdown `source` as one widget (see the module docstring). `source` is kept for tests."""

    COMPONENT_CLASSES: ClassVar[set[str]] = set(_STYLES)
    DEFAULT_CSS = """
    HelpText {
        height: auto;
        padding: 1 1;
    }
    HelpText > .help-text--heading { color: $markdown-h2-color; text-style: bold underline; }
    HelpText > .help-text--code { color: $text-warning 95%; background: $warning 10%; }
    HelpText > .help-text--table-header { color: $primary; }
    HelpText > .help-text--bullet { color: $primary; text-style: bold; }
    """

    def __init__(self, source: str, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.source = source
        self._drawn: _Themed | None = None

    def render(self) -> Any:
        """The reference in the current theme's colours; drawn once per theme (and width), not per frame."""
        theme = Theme({name: self.get_component_rich_style(cls) for cls, name in _STYLES.items()}, inherit=True)
        if self._drawn is None or self._drawn.theme.styles != theme.styles:  # a new Textual theme draws anew
            self._drawn = _Themed(_ReferenceMarkdown(self.source, hyperlinks=False), theme)
        return self._drawn

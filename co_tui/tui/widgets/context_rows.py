"""The rows of the context breakdown (`/context`): one line per part the next request holds, then
the free space, the reserve and the total, fitted to the width the screen gives them."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from textual.content import Content
from textual.widget import Widget

from co_tui.text import escape_controls, format_tokens, plural
from co_tui.tui.widgets.context_bar import CATEGORY_STYLE, FREE_STYLE

if TYPE_CHECKING:
    from co_tui.session import ContextBreakdown

__all__ = ["ContextRows", "row_lines"]

_TITLE_W, _ROOMY_LABEL_W, _TOKENS_W = 23, 24, 7
_MIN_LABEL_W = 12


def _share(tokens: int, window: int) -> str:
    if not window or not tokens:
        return ""
    pct = 100 * tokens / window
    return "<1%" if pct < 1 else f"{round(pct)}%"


def _wrapped(text: str, width: int) -> list[str]:
    """`text` in lines of at most `width` cells, broken after a `/` or a space (a path keeps its
    parts whole, a memory row its note count), within a part only when one alone is too long."""
    lines: list[str] = []
    line = ""
    for piece in re.findall(r"[^/ ]+[/ ]?|[/ ]", text):
        if line and len(line) + len(piece.rstrip()) > width:
            lines.append(line.rstrip())
            line = ""
        line += piece
        while len(line.rstrip()) > width:
            lines.append(line[:width])
            line = line[width:]
    return [*lines, line.rstrip()] if line.strip() or not lines else lines


def _count(key: str, items: int) -> str:
    if not items:
        return ""
    if key == "tool_schemas":
        return f" ({plural(items, 'tool')})"
    if key == "memory":
        return f" ({plural(items, 'note')})"
    if key in ("messages", "markers", "pinned"):
        return plural(items, "message")
    return ""


def _what(key: str, label: str, items: int) -> str:
    """What a row holds, in its label column: the file, server or source and its count (a row of
    messages: the count alone), control characters escaped (a file's or a server's name)."""
    if key in ("messages", "markers", "pinned"):
        return _count(key, items)
    return escape_controls(label) + _count(key, items)


def _over_note(breakdown: ContextBreakdown) -> str:
    """What happens to a request over the trigger: the cut that comes, or why none does."""
    if breakdown.cut_pending:
        return "trims on next send"
    if breakdown.overhead_excess:
        return "no cut yet: instructions over half"
    return "no cut on next send"


def row_lines(breakdown: ContextBreakdown, width: int = 0) -> list[Content]:
    """One line per row: swatch, category (on its first row), what it is, tokens, share of the
    window; then the free space, the reserve and the total. `width` (0: roomy): the cells the
    lines may take. The "what it is" column is as wide as its longest label where there is room; on
    a narrow screen it gives way first, so the window column stays on screen (at 60 columns it was
    cut off), and a longer label wraps onto lines of its own (it was cut: `…-tui/memory.md`)."""
    from co_tui.session import CATEGORY_TITLES

    # Swatch, category, tokens, then "  window" (the header), or past the trigger its note, if wider.
    last = max(8, 2 + len(_over_note(breakdown))) if breakdown.over_tokens else 8
    fixed = 2 + _TITLE_W + _TOKENS_W + last
    whats = [_what(row.key, row.label, row.items) for row in breakdown.rows]
    # As wide as the longest label (`~/.config/co-tui/memory.md (3 notes)`) where the screen has the
    # room; narrower, a label too long wraps onto lines of its own under it.
    label_w = max(_ROOMY_LABEL_W, *(len(what) + 1 for what in whats))
    if width:
        label_w = min(label_w, max(_MIN_LABEL_W, width - fixed))

    lines: list[Content] = [
        Content.assemble(" " * (2 + _TITLE_W + label_w), (f"{'tokens':>{_TOKENS_W}}  window", "$text-muted"))
    ]
    window = breakdown.window_tokens
    previous = ""
    for row, what in zip(breakdown.rows, whats, strict=True):
        title = CATEGORY_TITLES[row.key] if row.key != previous else ""
        previous = row.key
        first, *more = _wrapped(what, label_w - 1)
        lines.append(
            Content.assemble(
                ("■ ", CATEGORY_STYLE[row.key]),
                (f"{title:<{_TITLE_W}}", "bold"),
                f"{first:<{label_w}}",  # a file's, a server's name
                (f"{format_tokens(row.tokens):>{_TOKENS_W}}", "$foreground"),
                (f"  {_share(row.tokens, window):>4}", "$text-muted"),
            )
        )
        lines += [Content(" " * (2 + _TITLE_W) + part) for part in more]
    approx = "" if breakdown.exactness == "exact" else "~"
    lines.append(Content(""))
    if breakdown.over_tokens:
        lines.append(
            Content.assemble(
                ("▲ ", "$error"),
                (f"{'Over the trigger':<{_TITLE_W + label_w}}", "bold $error"),
                (f"{format_tokens(breakdown.over_tokens):>{_TOKENS_W}}", "$error"),
                (f"  {_over_note(breakdown)}", "italic $text-warning"),
            )
        )
    else:
        lines.append(
            Content.assemble(
                ("░ ", FREE_STYLE),
                (f"{'Free before the trigger':<{_TITLE_W + label_w}}", "bold"),
                f"{format_tokens(breakdown.free_tokens):>{_TOKENS_W}}",
                (f"  {_share(breakdown.free_tokens, window):>4}", "$text-muted"),
            )
        )
    lines.append(
        Content.assemble(
            ("· ", "$foreground 40%"),
            (f"{'Reserve above the trigger':<{_TITLE_W + label_w}}", "bold"),
            f"{format_tokens(breakdown.reserve_tokens):>{_TOKENS_W}}",
            (f"  {_share(breakdown.reserve_tokens, window):>4}", "$text-muted"),
        )
    )
    lines.append(
        Content.assemble(
            "  ",
            (f"{'Next request':<{_TITLE_W + label_w}}", "bold"),
            (f"{approx + format_tokens(breakdown.total_tokens):>{_TOKENS_W}}", "bold $foreground"),
            (f"  {_share(breakdown.total_tokens, window):>4}", "$text-muted"),
        )
    )
    return lines


class ContextRows(Widget):
    """The rows of a breakdown (`row_lines`), fitted to the width the screen gives them."""

    DEFAULT_CSS = """
    ContextRows {
        height: auto;
    }
    """

    def __init__(self, breakdown: ContextBreakdown, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.breakdown = breakdown

    def render(self) -> Content:
        """The rows at the widget's width (`row_lines`)."""
        return Content("\n").join(row_lines(self.breakdown, self.content_size.width))

"""The context breakdown (`/context`): what the next request holds, by category, against the window.

Read-only. A bar across the model's window — one colour per category, the free space before the
trigger, the trigger mark (the budget, where governance cuts) and the reserve above it — then one
row per part: co-tui's instructions, each project instructions file, the tool schemas of each
source, the conversation's messages, markers and summaries, pinned turns. The figures come from
`co_tui.session.context_breakdown` (they add up to the meter's); this screen only lays them out.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Static

from co_tui.text import format_tokens, plural
from co_tui.tui.widgets.key_footer import KeyFooter

if TYPE_CHECKING:
    from co_tui.session.context_breakdown import ContextBreakdown


class BreakdownSource(Protocol):
    """What the screen reads of a session (`SessionPort.context_breakdown`)."""

    def context_breakdown(self) -> ContextBreakdown: ...


# One colour per category (a Textual theme variable), shared by the bar and the rows' swatches.
CATEGORY_STYLE: dict[str, str] = {
    "instructions": "$primary",
    "project_instructions": "$accent",
    "tool_schemas": "$secondary-lighten-2",
    "messages": "$success",
    "markers": "$error",
    "pinned": "$foreground 85%",
}
FREE_STYLE = "$foreground 25%"
RESERVE_STYLE = "$foreground 12%"
MARK_STYLE = "bold $foreground 70%"

_TITLE_W, _ROOMY_LABEL_W, _TOKENS_W = 23, 24, 7
_MIN_LABEL_W = 12


def bar_cells(breakdown: ContextBreakdown, width: int) -> list[tuple[str, int]]:
    """The bar as (category key | `free` | `mark` | `reserve`, cells) runs adding up to `width`:
    the window drawn to scale, the trigger (`mark`) one cell where the budget ends — after the free
    space, or inside what the request holds when it is past the trigger. Empty parts take no cell."""
    from co_tui.session.context_breakdown import apportion

    if width < 2:
        return []
    names = [row.key for row in breakdown.rows] + ["free", "reserve"]
    weights = [float(row.tokens) for row in breakdown.rows] + [
        float(breakdown.free_tokens),
        float(breakdown.reserve_tokens),
    ]
    cells = [name for name, count in zip(names, apportion(weights, width - 1), strict=True) for _ in range(count)]
    if breakdown.over_tokens:
        scale = breakdown.total_tokens + breakdown.reserve_tokens
        mark = round((width - 1) * breakdown.budget_tokens / scale) if scale else 0
    else:
        mark = len(cells) - cells.count("reserve")  # where the free space ends
    cells.insert(min(mark, len(cells)), "mark")
    runs: list[tuple[str, int]] = []
    for name in cells:
        if runs and runs[-1][0] == name:
            runs[-1] = (name, runs[-1][1] + 1)
        else:
            runs.append((name, 1))
    return runs


def bar_content(breakdown: ContextBreakdown, width: int) -> Content:
    """The stacked bar (`bar_cells`) in colour: █ for what the request holds, ░ free, ┃ the
    trigger, · the reserve."""
    parts: list[tuple[str, str]] = []
    for name, count in bar_cells(breakdown, width):
        if name == "free":
            parts.append(("░" * count, FREE_STYLE))
        elif name == "reserve":
            parts.append(("·" * count, RESERVE_STYLE))
        elif name == "mark":
            parts.append(("┃", MARK_STYLE))
        else:
            parts.append(("█" * count, CATEGORY_STYLE.get(name, "$foreground")))
    return Content.assemble(*parts)


def _share(tokens: int, window: int) -> str:
    if not window or not tokens:
        return ""
    pct = 100 * tokens / window
    return "<1%" if pct < 1 else f"{round(pct)}%"


def _fit(text: str, width: int) -> str:
    """`text` in at most `width` cells, its start elided (a path's file name is what matters)."""
    return text if len(text) <= width else "…" + text[-(width - 1) :]


def _count(key: str, items: int) -> str:
    if not items:
        return ""
    if key == "tool_schemas":
        return f" ({plural(items, 'tool')})"
    if key in ("messages", "markers", "pinned"):
        return plural(items, "message")
    return ""


def row_lines(breakdown: ContextBreakdown, width: int = 0) -> list[Content]:
    """One line per row: swatch, category (on its first row), what it is, tokens, share of the
    window; then the free space, the reserve and the total. `width` (0: roomy): the cells the
    lines may take; on a narrow screen the "what it is" column gives way first, so the window
    column stays on screen (at 60 columns it was cut off)."""
    from co_tui.session.context_breakdown import CATEGORY_TITLES

    fixed = 2 + _TITLE_W + _TOKENS_W + 8  # swatch, category, tokens, "  window" (the header is widest)
    label_w = min(_ROOMY_LABEL_W, max(_MIN_LABEL_W, width - fixed)) if width else _ROOMY_LABEL_W

    lines: list[Content] = [
        Content.assemble(" " * (2 + _TITLE_W + label_w), (f"{'tokens':>{_TOKENS_W}}  window", "$text-muted"))
    ]
    window = breakdown.window_tokens
    previous = ""
    for row in breakdown.rows:
        title = CATEGORY_TITLES[row.key] if row.key != previous else ""
        previous = row.key
        if row.key in ("messages", "markers", "pinned"):
            what = _count(row.key, row.items)
        else:
            what = row.label + _count(row.key, row.items)
        lines.append(
            Content.assemble(
                ("■ ", CATEGORY_STYLE[row.key]),
                (f"{title:<{_TITLE_W}}", "bold"),
                f"{_fit(what, label_w - 1):<{label_w}}",
                (f"{format_tokens(row.tokens):>{_TOKENS_W}}", "$foreground"),
                (f"  {_share(row.tokens, window):>4}", "$text-muted"),
            )
        )
    approx = "" if breakdown.exactness == "exact" else "~"
    lines.append(Content(""))
    if breakdown.over_tokens:
        lines.append(
            Content.assemble(
                ("▲ ", "$error"),
                (f"{'Over the trigger':<{_TITLE_W + label_w}}", "bold $error"),
                (f"{format_tokens(breakdown.over_tokens):>{_TOKENS_W}}", "$error"),
                ("  trims on next send", "italic $text-warning"),
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


def summary_line(breakdown: ContextBreakdown) -> str:
    """`~12.3k/25.6k tokens to the trigger (48%) · window 32k (guessed) · estimated`."""
    approx = "" if breakdown.exactness == "exact" else "~"
    budget = breakdown.budget_tokens
    pct = round(100 * breakdown.total_tokens / budget) if budget else 0
    window = format_tokens(breakdown.window_tokens) + (" (guessed)" if breakdown.window_is_guess else "")
    how = {"exact": "reported", "anchored": "reported + estimate"}.get(breakdown.exactness, "estimated")
    line = (
        f"{approx}{format_tokens(breakdown.total_tokens)}/{format_tokens(budget)} tokens to the trigger "
        f"({pct}%) · window {window} · {how}"
    )
    if breakdown.meter_tokens == 0 and breakdown.total_tokens:
        line += " · the meter counts these from the first message"
    return line


class ContextBar(Widget):
    """The stacked bar of a breakdown, as wide as the screen lets it be."""

    DEFAULT_CSS = """
    ContextBar {
        height: 1;
    }
    """

    def __init__(self, breakdown: ContextBreakdown, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.breakdown = breakdown

    def render(self) -> Content:
        return bar_content(self.breakdown, self.content_size.width or 60)


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
        return Content("\n").join(row_lines(self.breakdown, self.content_size.width))


class ContextScreen(Screen[None]):
    """`/context`: the breakdown of the next request. Esc or Q closes it, R reads it again."""

    CSS_PATH = "context.tcss"
    BINDINGS = [
        Binding("escape,q", "close", "Close"),
        Binding("r", "refresh_breakdown", "Refresh"),
    ]

    def __init__(self, source: BreakdownSource) -> None:
        super().__init__()
        self.source = source
        self.breakdown = source.context_breakdown()

    def compose(self) -> ComposeResult:
        yield Static("Context · what the next request holds", id="context-title")
        with Vertical(id="context-summary"):
            yield ContextBar(self.breakdown, id="context-bar")
            yield Static(summary_line(self.breakdown), id="context-figures")
        with VerticalScroll(id="context-body"):
            yield ContextRows(self.breakdown, id="context-rows")
            yield Static(
                "Instructions and tool schemas go with every request, never trimmed; governance cuts "
                "messages, markers and summaries when the request reaches the trigger.",
                id="context-note",
            )
        yield KeyFooter()

    def action_refresh_breakdown(self) -> None:
        """Read the breakdown again (after a turn ended behind the screen)."""
        self.breakdown = self.source.context_breakdown()
        bar = self.query_one("#context-bar", ContextBar)
        bar.breakdown = self.breakdown
        bar.refresh()
        self.query_one("#context-figures", Static).update(summary_line(self.breakdown))
        rows = self.query_one("#context-rows", ContextRows)
        rows.breakdown = self.breakdown
        rows.refresh(layout=True)

    def action_close(self) -> None:
        """Back to the chat."""
        self.dismiss(None)


__all__ = ["ContextBar", "ContextRows", "ContextScreen", "bar_cells", "bar_content", "row_lines", "summary_line"]

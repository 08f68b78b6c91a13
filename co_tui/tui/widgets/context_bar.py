"""The stacked bar of the context breakdown (`/context`): the model's window to scale, one colour
per category, the free space before the trigger, the trigger mark and the reserve above it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.content import Content
from textual.widget import Widget

if TYPE_CHECKING:
    from co_tui.session import ContextBreakdown

__all__ = ["CATEGORY_STYLE", "ContextBar", "bar_cells", "bar_content"]

# One colour per category (a Textual theme variable), shared by the bar and the rows' swatches.
CATEGORY_STYLE: dict[str, str] = {
    "instructions": "$primary",
    "project_instructions": "$accent",
    "memory": "$warning",
    "tool_schemas": "$secondary-lighten-2",
    "messages": "$success",
    "markers": "$error",
    "pinned": "$foreground 85%",
}
FREE_STYLE = "$foreground 25%"
RESERVE_STYLE = "$foreground 12%"
MARK_STYLE = "bold $foreground 70%"


def bar_cells(breakdown: ContextBreakdown, width: int) -> list[tuple[str, int]]:
    """The bar as (category key | `free` | `mark` | `reserve`, cells) runs adding up to `width`:
    the window drawn to scale, the trigger (`mark`) one cell where the budget ends — after the free
    space, or inside what the request holds when it is past the trigger. Empty parts take no cell."""
    from co_tui.session import apportion

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
        """The bar at the widget's width (`bar_content`)."""
        return bar_content(self.breakdown, self.content_size.width or 60)

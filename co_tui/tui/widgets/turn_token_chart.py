"""A bar chart of tokens per user turn, coloured by whether the model still sees the turn.

Unlike `Sparkline` (two colours, by value) each bar carries its own state, so the chart shows
where the context cut falls: dim bars on the left were dropped, bright ones are still sent.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from rich.style import Style
from rich.text import Text
from textual.reactive import reactive
from textual.widget import Widget

from co_tui.session import TurnBar, TurnState

__all__ = ["STATE_COLOURS", "STATE_LABELS", "TurnBar", "TurnState", "TurnTokenChart", "legend_markup", "render_bars"]

# Eighth-blocks: the top of a bar ends on one of these.
_EIGHTHS = " ▁▂▃▄▅▆▇█"
# One colour per state, shared by the bars, the legend and the inspector's status column.
STATE_COLOURS: dict[str, str] = {
    "in_context": "$success",
    "partial": "$warning",
    "summarised": "#b48ead",
    "dropped": "$foreground-disabled",
}
STATE_LABELS: dict[str, str] = {
    "in_context": "in context",
    "partial": "partly",
    "summarised": "summarised",
    "dropped": "dropped",
}
# When one column stands for several turns, the most visible state wins.
_STATE_RANK: dict[str, int] = {"dropped": 0, "summarised": 1, "partial": 2, "in_context": 3}


def _columns(bars: tuple[TurnBar, ...], width: int) -> tuple[list[TurnBar], int, int]:
    """Bars to draw (bucketed when there are more turns than columns), bar width and gap."""
    if not bars or width <= 0:
        return [], 1, 0
    if len(bars) * 2 <= width:
        bar_width = max(1, min(4, (width + 1) // len(bars) - 1))
        return list(bars), bar_width, 1
    if len(bars) <= width:
        return list(bars), 1, 0
    per_column = math.ceil(len(bars) / width)
    merged = []
    for start in range(0, len(bars), per_column):
        group = bars[start : start + per_column]
        state = max((bar.state for bar in group), key=_STATE_RANK.__getitem__)
        merged.append(TurnBar(group[0].turn, max(bar.tokens for bar in group), state))
    return merged, 1, 0


def legend_markup() -> str:
    """Content markup naming each bar colour, e.g. for a `Static` under the chart."""
    return "  ".join(f"[{STATE_COLOURS[state]}]█[/] {label}" for state, label in STATE_LABELS.items())


def render_bars(bars: tuple[TurnBar, ...], width: int, height: int, styles: Mapping[str, Style | str]) -> Text:
    """The chart as `height` lines of `width` cells; `styles` maps a state to a Rich style."""
    columns, bar_width, gap = _columns(bars, width)
    peak = max((bar.tokens for bar in columns), default=0)
    lines = [Text() for _ in range(height)]
    for bar in columns:
        eighths = 0 if peak == 0 else round(bar.tokens / peak * height * 8)
        if bar.tokens > 0:
            eighths = max(1, eighths)  # a turn with any tokens is never invisible
        style = styles.get(bar.state, "")
        for row in range(height):
            level = height - 1 - row  # 0 is the bottom line
            fill = min(8, max(0, eighths - level * 8))
            lines[row].append(_EIGHTHS[fill] * bar_width, style=style)
            lines[row].append(" " * gap)
    return Text("\n").join(lines)


class TurnTokenChart(Widget):
    """Tokens per turn as bars; set `bars` to redraw."""

    COMPONENT_CLASSES = {
        "turn-token-chart--in-context",
        "turn-token-chart--partial",
        "turn-token-chart--summarised",
        "turn-token-chart--dropped",
    }

    DEFAULT_CSS = f"""
    TurnTokenChart {{
        height: 3;
        & > .turn-token-chart--in-context {{ color: {STATE_COLOURS["in_context"]}; }}
        & > .turn-token-chart--partial {{ color: {STATE_COLOURS["partial"]}; }}
        & > .turn-token-chart--summarised {{ color: {STATE_COLOURS["summarised"]}; }}
        & > .turn-token-chart--dropped {{ color: {STATE_COLOURS["dropped"]}; }}
    }}
    """

    bars: reactive[tuple[TurnBar, ...]] = reactive(())

    def __init__(self, bars: tuple[TurnBar, ...] = (), *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.bars = bars

    def render(self) -> Text:
        """The bars (`render_bars`), each state in its component class's colour."""
        styles = {
            state: self.get_component_rich_style(f"turn-token-chart--{state.replace('_', '-')}")
            for state in _STATE_RANK
        }
        return render_bars(self.bars, self.size.width, self.size.height, styles)

"""The context meter: messages and tokens against the budget, always visible above the footer."""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from textual.content import Content
from textual.reactive import reactive
from textual.widget import Widget

if TYPE_CHECKING:
    from co_tui.session.events import UsageUpdate

Level = Literal["low", "mid", "high"]

# Colour thresholds of DESIGN/issue 4: < 60% green, < 85% yellow, >= 85% red.
MID_AT, HIGH_AT = 0.60, 0.85
LEVEL_STYLE = {"low": "$success", "mid": "$warning", "high": "$error"}


def meter_level(fraction: float) -> Level:
    """The colour level of a budget fraction (tokens / budget)."""
    if fraction >= HIGH_AT:
        return "high"
    if fraction >= MID_AT:
        return "mid"
    return "low"


def meter_text(reading: UsageUpdate) -> str:
    """`23/40 msgs · ~18.2k/100k tokens (18%)`; `~` unless the figure is the provider's own report."""
    from co_tui.tui.format import format_tokens

    approx = "" if reading.exactness == "exact" else "~"
    pct = round(100 * reading.context_tokens / reading.budget_tokens) if reading.budget_tokens else 0
    limit = f"/{reading.max_messages}" if reading.max_messages else ""  # 0: no message limit
    return (
        f"{reading.messages}{limit} msgs · "
        f"{approx}{format_tokens(reading.context_tokens)}/{format_tokens(reading.budget_tokens)} tokens ({pct}%)"
    )


def meter_bar(fraction: float, trigger: float, width: int) -> tuple[int, int]:
    """(filled cells, mark cell) of a bar whose full width is the window (budget / trigger).

    The budget is where governance steps in (the compaction trigger), so it sits at `trigger` of
    the bar, and the bar reaches the mark exactly when the budget is used up.
    """
    trigger = min(max(trigger, 0.05), 1.0)
    filled = round(min(max(fraction * trigger, 0.0), 1.0) * width)
    mark = min(width - 1, round(trigger * width))
    return filled, mark


class ContextMeter(Widget):
    """One line: `Context ███░░┃░ 23/40 msgs · ~18.2k/100k tokens (18%)`.

    `reading` is the latest `UsageUpdate`; `None` until the session is ready. `trigger` is the
    compaction threshold (`Settings.compact_threshold`), drawn as a mark on the bar.
    """

    DEFAULT_CSS = """
    ContextMeter {
        height: 1;
        padding: 0 1;
        background: $panel;
        color: $text-muted;
    }
    """

    reading: reactive[UsageUpdate | None] = reactive(None, layout=False)

    BAR_WIDTH = 20

    def __init__(self, trigger: float = 0.8, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.trigger = trigger

    @property
    def fraction(self) -> float:
        """Tokens used as a fraction of the budget (0 when unknown)."""
        r = self.reading
        return r.context_tokens / r.budget_tokens if r and r.budget_tokens else 0.0

    @property
    def level(self) -> Level:
        """The current colour level."""
        return meter_level(self.fraction)

    def watch_reading(self) -> None:
        for level in ("low", "mid", "high"):
            self.set_class(self.reading is not None and level == self.level, f"-{level}")

    def render(self) -> Content:
        if self.reading is None:
            return Content.from_markup("Context [dim]starting…[/]")
        filled, mark = meter_bar(self.fraction, self.trigger, self.BAR_WIDTH)
        style = LEVEL_STYLE[self.level]
        cells: list[tuple[str, str]] = []
        for i in range(self.BAR_WIDTH):
            if i == mark:
                cells.append(("┃", f"bold {style}" if i < filled else "$foreground 60%"))
            elif i < filled:
                cells.append(("█", style))
            else:
                cells.append(("░", "$foreground 25%"))
        parts: list[str | tuple[str, str]] = ["Context ", *cells, " ", (meter_text(self.reading), "$foreground")]
        if self.over_limit:
            parts.append(("  trims on next send", "italic $text-warning"))
        if self.reading.window_is_guess:
            parts.append(("  window guessed", "italic $text-warning"))
        return Content.assemble(*parts)

    @property
    def over_limit(self) -> bool:
        """Whether governance will cut this context before the next request (the reading's
        `trim_pending`). It happens right after an answer, which joins the next request."""
        return self.reading is not None and self.reading.trim_pending

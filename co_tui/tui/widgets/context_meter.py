"""The context meter: messages and tokens against the budget, always visible above the footer.

Besides the figure it says what the session costs and how much of the last request the provider's
prompt cache served (`$0.42 · 81% cached`), and, past half the budget, roughly how many turns are
left before governance cuts (`≈3 turns to trim`). On a narrow terminal it shortens itself in a
fixed order (`LAYOUTS`) rather than being cropped mid-word.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal, NamedTuple

from textual.content import Content
from textual.reactive import reactive
from textual.widget import Widget

if TYPE_CHECKING:
    from co_tui.session import UsageUpdate

Level = Literal["low", "mid", "high"]

# Colour thresholds (docs/keys-and-commands.md): < 60% green, < 85% yellow, >= 85% red.
MID_AT, HIGH_AT = 0.60, 0.85
LEVEL_STYLE = {"low": "$success", "mid": "$warning", "high": "$error"}


def meter_level(fraction: float) -> Level:
    """The colour level of a budget fraction (tokens / budget)."""
    if fraction >= HIGH_AT:
        return "high"
    if fraction >= MID_AT:
        return "mid"
    return "low"


def meter_text(reading: UsageUpdate, *, messages: bool = True) -> str:
    """`23/500 msgs · ~18.2k/100k tokens (18%)`; `~` unless the figure is the provider's own report.
    `messages=False` leaves out the message count."""
    from co_tui.text import format_tokens
    from co_tui.tui.format import budget_percent

    approx = "" if reading.exactness == "exact" else "~"
    pct = budget_percent(reading.context_tokens, reading.budget_tokens)
    limit = f"/{reading.max_messages}" if reading.max_messages else ""  # 0: no message limit
    count = f"{reading.messages}{limit} msgs · " if messages else ""
    return (
        f"{count}{approx}{format_tokens(reading.context_tokens)}/{format_tokens(reading.budget_tokens)} tokens ({pct}%)"
    )


def economy_text(reading: UsageUpdate, *, short: bool = False) -> str:
    """`$0.42 · 81% cached`: the session's cost (when priced) and the share of the last request's
    input read from the provider's prompt cache (when the provider reported cache use). `short`
    keeps the cost alone. Empty when neither is known."""
    from co_tui.session import cached_share, format_usd

    parts = [] if reading.cost_usd is None else [format_usd(reading.cost_usd)]
    share = cached_share(reading.input_tokens, reading.cache_read_tokens)
    if share is not None and (reading.cache_read_tokens or reading.cache_write_tokens) and not (short and parts):
        parts.append(f"{round(100 * share)}% cached")
    return " · ".join(parts)


def ahead_text(reading: UsageUpdate, *, short: bool = False) -> str:
    """What comes next: `trims on next send` when governance will cut before the next request,
    `≈3 turns to trim` when a cut is forecast (`reading.turns_to_trim`); empty otherwise. A figure
    over 100% with no cut coming says why: the newest turn alone is over the budget (it is never
    cut), or the instructions and tool schemas take more than half of it."""
    if reading.oversized_turn:
        return "newest turn sent whole" if short else "over: the newest turn alone, sent whole"
    if reading.trim_pending and reading.asks_first:  # compact_mode ask: the send asks first
        return "asks next send" if short else "asks before next send"
    if reading.trim_pending:
        # Which kind of cut it will be (docs/context-governance.md, "See the next cut coming").
        if reading.trim_kind == "summary":
            return "summary next send" if short else "summarises on next send"
        if reading.trim_kind in ("tool_output_trim", "step_shrink"):
            return "shortens next send" if short else "shortens outputs on next send"
        return "trims next send" if short else "trims on next send"
    if reading.overhead_excess and reading.context_tokens > reading.budget_tokens:
        # Over 100% with no cut coming: the instructions and tool schemas take more than half.
        from co_tui.text import format_tokens

        return (
            "over: instructions"
            if short
            else f"over: instructions + tools take {format_tokens(reading.overhead_tokens)}"
        )
    n = reading.turns_to_trim
    if n is None:
        return ""
    action = "summary" if reading.forecast_kind == "summary" else "trim"  # the strategy's cut
    if short:
        return f"≈{n} to {action}"
    from co_tui.text import plural

    return f"≈{plural(n, 'turn')} to {action}"


class MeterLayout(NamedTuple):  # not a frozen dataclass: ~0.4 ms more before the first frame
    """Which parts of the meter line are shown, and how long."""

    label: bool = True  # "Context "
    bar_width: int = 20  # 0: no bar
    messages: bool = True  # "23/500 msgs · "
    economy: Literal["full", "short", "none"] = "full"
    ahead: Literal["full", "short"] = "full"
    guess: bool = True  # "window guessed"


# From the fullest line to the barest; the first one that fits the width is drawn. What goes first:
# bar cells, then wording, then the least needed facts. The figure itself always stays.
LAYOUTS: tuple[MeterLayout, ...] = (
    MeterLayout(),
    MeterLayout(bar_width=12),
    MeterLayout(bar_width=12, ahead="short"),
    MeterLayout(label=False, bar_width=12, ahead="short"),
    MeterLayout(label=False, bar_width=8, ahead="short"),
    MeterLayout(label=False, bar_width=8, ahead="short", economy="short"),
    MeterLayout(label=False, bar_width=8, ahead="short", economy="short", messages=False),
    MeterLayout(label=False, bar_width=0, ahead="short", economy="short", messages=False),
    MeterLayout(label=False, bar_width=0, ahead="short", economy="short", messages=False, guess=False),
    MeterLayout(label=False, bar_width=0, ahead="short", economy="none", messages=False, guess=False),
)

GAP = "  "


def attach_text(attaching: int, *, short: bool = False) -> str:
    """`+1.2k tokens attached on send`: what the `@path` mentions in the prompt add when it is sent
    (`attaching` tokens; empty when none)."""
    if not attaching:
        return ""
    from co_tui.text import format_tokens

    return f"+{format_tokens(attaching)} @" if short else f"+{format_tokens(attaching)} tokens attached on send"


def meter_notes(reading: UsageUpdate, layout: MeterLayout, attaching: int = 0) -> list[tuple[str, str]]:
    """The (text, kind) notes after the figure, in order: kind is `attach` (what the prompt's `@path`
    mentions add: `attaching` tokens), `economy`, `pinned`, `ahead` or `guess`."""
    notes = []
    if attaching:
        notes.append((attach_text(attaching, short=layout.ahead == "short"), "attach"))
    if layout.economy != "none" and (economy := economy_text(reading, short=layout.economy == "short")):
        notes.append((economy, "economy"))
    if reading.pinned_tokens:  # part of the figure, never cut (docs/context-governance.md, "Pins")
        from co_tui.text import format_tokens

        notes.append((f"{format_tokens(reading.pinned_tokens)} pinned", "pinned"))
    if ahead := ahead_text(reading, short=layout.ahead == "short"):
        notes.append((ahead, "ahead"))
    if layout.guess and reading.window_is_guess:
        notes.append(("window guessed", "guess"))
    if reading.mcp_starting:  # their schemas join the figure once they run (session/agent_binding.py)
        notes.append(("MCP tools not counted yet" if layout.guess else "MCP pending", "guess"))
    return notes


def meter_width(reading: UsageUpdate, layout: MeterLayout, attaching: int = 0) -> int:
    """Cells the meter line takes in `layout`."""
    cells = (len("Context ") if layout.label else 0) + (layout.bar_width + 1 if layout.bar_width else 0)
    cells += len(meter_text(reading, messages=layout.messages))
    return cells + sum(len(GAP) + len(text) for text, _ in meter_notes(reading, layout, attaching))


def fit_layout(reading: UsageUpdate, width: int, attaching: int = 0) -> MeterLayout:
    """The fullest of `LAYOUTS` that fits in `width` cells (the barest one if none does)."""
    return next((layout for layout in LAYOUTS if meter_width(reading, layout, attaching) <= width), LAYOUTS[-1])


def meter_bar(reading: UsageUpdate, width: int) -> tuple[int, int]:
    """(filled cells, mark cell) of a bar whose full width is the model's window (`window_tokens`;
    the budget when that is unknown or smaller).

    The budget is where governance steps in (the trigger), so the mark sits at budget / window of
    the bar — where /context draws it — and the bar reaches the mark exactly when the budget is used up.
    """
    budget = max(reading.budget_tokens, 1)
    window = max(reading.window_tokens, budget)
    filled = round(min(max(reading.context_tokens / window, 0.0), 1.0) * width)
    mark = min(width - 1, round(budget / window * width))
    return filled, mark


class ContextMeter(Widget):
    """One line: `Context ███░░┃░ 23/500 msgs · ~18.2k/100k tokens (64%)  $0.42 · 81% cached  ≈3 turns to trim`.

    `reading` is the latest `UsageUpdate`; `None` until the session is ready. The bar spans the
    model's window, with a mark where the budget (the trigger) ends (`meter_bar`).
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
    # Tokens the `@path` mentions in the prompt will add when it is sent (the session prices them).
    attaching: reactive[int] = reactive(0, layout=False)

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)

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
        """The `-low`/`-mid`/`-high` class follows the reading's level."""
        for level in ("low", "mid", "high"):
            self.set_class(self.reading is not None and level == self.level, f"-{level}")

    def render(self) -> Content:
        """One line: the bar (window-wide, marked at the budget), the figures, the notes that fit
        (`starting…` before the first reading)."""
        if self.reading is None:
            return Content.from_markup("Context [dim]starting…[/]")
        layout = fit_layout(self.reading, self.content_size.width or 80, self.attaching)
        style = LEVEL_STYLE[self.level]
        parts: list[str | tuple[str, str]] = ["Context "] if layout.label else []
        if layout.bar_width:
            filled, mark = meter_bar(self.reading, layout.bar_width)
            for i in range(layout.bar_width):
                if i == mark:
                    parts.append(("┃", f"bold {style}" if i < filled else "$foreground 60%"))
                elif i < filled:
                    parts.append(("█", style))
                else:
                    parts.append(("░", "$foreground 25%"))
            parts.append(" ")
        parts.append((meter_text(self.reading, messages=layout.messages), "$foreground"))
        for text, kind in meter_notes(self.reading, layout, self.attaching):
            note_style = "$foreground" if kind in ("economy", "pinned") else "italic $text-warning"
            if kind == "attach":
                note_style = "bold $text-accent"
            if kind == "ahead" and not self.over_limit:
                note_style = "italic"  # a forecast, not a warning
            # The gap is a segment of its own: a note whose text began with it was drawn glued to
            # the figure (`(75%)$0.42`) by SVG renderers, which drop a text element's leading spaces.
            parts.append(GAP)
            parts.append((text, note_style))
        return Content.assemble(*parts)

    @property
    def over_limit(self) -> bool:
        """Whether governance will cut this context before the next request (the reading's
        `trim_pending`). It happens right after an answer, which joins the next request."""
        return self.reading is not None and self.reading.trim_pending

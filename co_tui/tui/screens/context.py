"""The context breakdown (`/context`): what the next request holds, by category, against the window.

Read-only. A bar across the model's window — one colour per category, the free space before the
trigger, the trigger mark (the budget, where governance cuts) and the reserve above it — then one
row per part: co-tui's instructions, each project instructions file, the tool schemas of each
source, the conversation's messages, markers and summaries, pinned turns. The figures come from
`co_tui.session.context_breakdown` (they add up to the meter's); this screen only lays them out.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import Screen
from textual.widgets import Static

from co_tui.text import format_tokens
from co_tui.tui.widgets.context_bar import ContextBar, bar_cells, bar_content
from co_tui.tui.widgets.context_rows import ContextRows, row_lines
from co_tui.tui.widgets.key_footer import KeyFooter

if TYPE_CHECKING:
    from co_tui.session import ContextBreakdown, SubagentsUsage


class BreakdownSource(Protocol):
    """What the screen reads of a session (`SessionPort.context_breakdown`, `.subagents_usage`)."""

    def context_breakdown(self) -> ContextBreakdown: ...

    def subagents_usage(self) -> SubagentsUsage: ...


def subagents_line(usage: SubagentsUsage) -> str:
    """`Subagents: 2 · 5 requests · 12.3k in / 400 out · $0.0120 — in their own contexts: …`
    (empty when there were none): what the children used, apart from the figures above."""
    if not usage.children:
        return ""
    from co_tui.session import subagent_cost_text
    from co_tui.text import plural

    return (
        f"Subagents: {usage.children} · {plural(usage.requests, 'request')} · "
        f"{format_tokens(usage.input_tokens)} in / {format_tokens(usage.output_tokens)} out · "
        f"{subagent_cost_text(usage.cost_usd)} — in their own contexts, not counted above: "
        "this one holds only their answers (the delegate results)."
    )


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
    return line


def note(breakdown: ContextBreakdown) -> str:
    """The line under the rows: what is never cut, and what happens at the trigger (in
    `compact_mode` off, nothing automatic)."""
    fixed = "Instructions and tool schemas go with every request, never trimmed; "
    if breakdown.cuts_off:
        return (
            fixed + "compact_mode is off: nothing is cut automatically at the trigger (/compact and /clear still cut)."
        )
    return fixed + "governance cuts messages, markers and summaries when the request reaches the trigger."


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
        self.subagents: SubagentsUsage | None = None  # counted in a thread once the screen shows

    def compose(self) -> ComposeResult:
        """The breakdown's bar and figures above its rows (which scroll), then the keys."""
        yield Static("Context · what the next request holds", id="context-title")
        with Vertical(id="context-summary"):
            yield ContextBar(self.breakdown, id="context-bar")
            yield Static(summary_line(self.breakdown), id="context-figures")
        with VerticalScroll(id="context-body"):
            yield ContextRows(self.breakdown, id="context-rows")
            yield Static(note(self.breakdown), id="context-note")
            yield Static(id="context-subagents")
        yield KeyFooter()

    def on_mount(self) -> None:
        """Count what the subagents used (it reads the whole transcript: in a thread)."""
        self._count_subagents()

    @work(thread=True, exclusive=True, group="subagents", exit_on_error=False)
    def _count_subagents(self) -> None:
        usage = self.source.subagents_usage()
        self.app.call_from_thread(self._show_subagents, usage)

    def _show_subagents(self, usage: SubagentsUsage) -> None:
        line = self.query_one("#context-subagents", Static)
        line.update(subagents_line(usage))
        line.display = bool(usage.children)
        self.subagents = usage

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
        self.query_one("#context-note", Static).update(note(self.breakdown))
        self._count_subagents()

    def action_close(self) -> None:
        """Back to the chat."""
        self.dismiss(None)


__all__ = [
    "ContextBar",
    "ContextRows",
    "ContextScreen",
    "bar_cells",
    "bar_content",
    "row_lines",
    "subagents_line",
    "summary_line",
]

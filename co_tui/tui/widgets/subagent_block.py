"""A subagent in the chat log: a live block for one `delegate` call, which opens to the child's transcript.

```
▸ ◆ explore · Find which file in docs mentions governance                     running · 4s
  ███░░░░░░░ 3 msgs · ~2.1k/40k tokens (5%)  $0.00
  ⚙ read_file(path="docs/a.md")  running…
  ✂ History trimmed · 4 messages (2 turns) · 41.2k → 12.9k tokens · token budget
```

The chat screen routes every event of a child here by its `delegation` (`ChatScreen.show_event`);
none of them lands in the main chat flow. The block folds them into a `SubagentView`
(co_tui/session/subagent_view.py, which also words the lines) and keeps them, so Enter or a click
opens the child's transcript (`Open`: the app pushes screens/subagent.py) at any time — while the
child runs, that screen streams the events that follow.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from textual.binding import Binding
from textual.content import Content
from textual.events import Click
from textual.message import Message
from textual.widget import Widget

if TYPE_CHECKING:
    from textual.timer import Timer

    from co_tui.session import Event, SubagentView

BAR_WIDTH = 10
SHOWN_TRIMS = 2  # the child's newest cuts drawn as banner lines; the opened transcript has them all
TASK_CHARS = 200

Clock = Callable[[], float]
CLOCK: Clock = time.monotonic  # where blocks read elapsed time (a snapshot test fixes it)


def block_lines(
    view: SubagentView, elapsed_s: float | None, *, interrupted: bool = False, shown_trims: int = SHOWN_TRIMS
) -> list[Content]:
    """The block's lines for `view`, `elapsed_s` after it started (None: not known, a resumed child
    stopped with the turn): title with how it stands, its meter, what it runs now (or what it
    returned and cost), its newest `shown_trims` cuts. The model's words (the task, a tool's name
    and arguments, an error, a refusal) have their control characters escaped: they never drive the terminal."""
    from co_tui.session import (
        banner_line,
        elapsed_text,
        subagent_cost_text,
        subagent_fraction,
        subagent_meter_line,
        subagent_result_line,
        subagent_state_text,
    )
    from co_tui.text import escape_controls, one_line, plural
    from co_tui.tui.widgets.context_meter import LEVEL_STYLE, meter_level
    from co_tui.tui.widgets.tool_call_block import args_inline

    ended = not view.running
    state = "interrupted" if interrupted and not ended else subagent_state_text(view)
    failed = state not in ("running", "done")
    title = Content.assemble(
        ("◆ ", "$error" if failed else "$secondary"),
        (escape_controls(view.agent_name), "bold"),
        " ",  # a gap of its own: SVG renderers drop a styled text's leading spaces
        (f"· {one_line(escape_controls(view.task), TASK_CHARS)}", "$text-muted"),
    )
    status_style = "$text-error" if failed else "$text-success" if ended else "italic $text-muted"
    status = Content.assemble((state, status_style))
    if elapsed_s is not None:
        status = Content.assemble(status, " ", (f"· {elapsed_text(elapsed_s)}", "$text-muted"))
    lines = [Content.assemble(title, "  ", status)]

    share = subagent_fraction(view)
    filled = round(min(share, 1.0) * BAR_WIDTH)
    meter: list[str | tuple[str, str]] = []
    if view.budget_tokens or (
        view.reading is not None and view.reading.budget_tokens
    ):  # a record saved before budgets were kept has none
        meter += [("█" * filled, LEVEL_STYLE[meter_level(share)]), ("░" * (BAR_WIDTH - filled), "$foreground 25%"), " "]
    meter.append((subagent_meter_line(view), "$foreground"))
    if not ended:
        if view.cost_usd is not None:
            meter += ["  ", (subagent_cost_text(view.cost_usd), "$foreground")]
        if view.tool_calls:
            meter += ["  ", (plural(view.tool_calls, "tool call"), "$text-muted")]
    if view.reading is not None or not interrupted:  # a child stopped before its first request has no figure
        lines.append(Content.assemble(*meter))

    if ended:
        returned = escape_controls(subagent_result_line(view))  # a refusal quotes the model's words
        lines.append(Content.assemble(("↩ ", "$text-error" if failed else "$text-success"), returned))
        # Why: the child's own error line, else the head of what the parent got back ("stopped after…").
        why = view.error or (view.result or "").strip().split("\n", 1)[0]
        if failed and why and view.finished is not None:
            lines.append(Content.assemble(("✗ ", "$text-error"), (one_line(escape_controls(why), 160), "$text-error")))
    elif interrupted:
        lines.append(Content.assemble(("⏹ ", "$text-warning"), ("stopped before it returned", "italic $text-warning")))
    elif view.tool is not None:
        name, args = view.tool
        lines.append(
            Content.assemble(
                ("⚙ ", "$secondary"),
                (escape_controls(name), "bold"),
                (f"({args_inline(args)})", "$text-muted"),
                ("  running…", "italic $text-muted"),
            )
        )
    else:
        doing = "starting…" if not view.agent else "writing its answer…" if view.chars else "thinking…"
        lines.append(Content.assemble((doing, "italic $text-muted")))
    hidden = len(view.trims) - shown_trims
    if hidden > 0:
        lines.append(
            Content.assemble(
                ("✂ ", "$text-warning"), (f"{plural(hidden, 'earlier cut')} (open it to see them)", "$text-warning")
            )
        )
    for trim in view.trims[len(view.trims) - min(shown_trims, len(view.trims)) :]:
        lines.append(Content.assemble((banner_line(trim), "$text-warning")))  # it begins with its ✂
    return lines


class SubagentBlock(Widget, can_focus=True):
    """One child's live block (see the module docstring). `show(event)` takes the child's next
    event (or the parent's result for its call); `events` holds all of them, in order."""

    BINDINGS = [Binding("enter", "open", "Open subagent")]

    @dataclass
    class Open(Message):
        """Enter or a click on the block: show the child's transcript."""

        block: SubagentBlock

    DEFAULT_CSS = """
    SubagentBlock {
        height: auto;
        margin: 1 0 0 0;
        padding: 0 0 0 1;
        border-left: outer $secondary;
        background: $secondary 8%;
    }
    SubagentBlock.-failed { border-left: outer $error; background: $error 8%; }
    SubagentBlock.-done { border-left: outer $success 70%; background: $success 5%; }
    SubagentBlock:focus { background: $accent 25%; }
    """

    def __init__(
        self,
        view: SubagentView,
        *,
        clock: Clock | None = None,
        saved: Callable[[], list[Event]] | None = None,
    ) -> None:
        """`view`: the child as it started (or, resumed, as it ended); `clock`: where elapsed time is
        read (monotonic seconds; a test gives a fixed one); `saved`: a resumed child's events, read
        when it is first opened."""
        super().__init__()
        self.view = view
        self._events: list[Event] = []
        self._saved = saved
        self.resumed = saved is not None  # drawn from a saved conversation, not seen running
        self.interrupted = False
        self._clock = clock or CLOCK
        self._started_at = self._clock()
        self._ticker: Timer | None = None
        self._stopped_at: float | None = None  # when it ended with no figure of its own (refused, interrupted)
        # Called after every change (an open transcript screen catches up on `events`).
        self.listeners: list[Callable[[], object]] = []

    @property
    def events(self) -> list[Event]:
        """Every event of the child so far, in order (a resumed child's: read from its record now)."""
        if self._saved is not None:
            saved, self._saved = self._saved, None
            self._events[:0] = saved()
        return self._events

    @property
    def delegation(self) -> str:
        """The `delegate` call's id."""
        return self.view.delegation

    @property
    def elapsed_s(self) -> float | None:
        """Seconds since it started; once it ended, how long it ran (the child's own figure); None
        for a resumed child the turn stopped (no figure was kept)."""
        end = self.view.finished
        if end is not None:
            return end.elapsed_s
        if self.resumed:
            return None
        if self._stopped_at is not None:
            return self._stopped_at - self._started_at
        return self._clock() - self._started_at

    def on_mount(self) -> None:
        """Tick the elapsed time once a second while the child runs."""
        if self.view.running and not self.interrupted:
            self._ticker = self.set_interval(1.0, self.refresh)

    def show(self, event: Event) -> None:
        """Fold the child's next event into the block and hand it to an open transcript."""
        from co_tui.session import advance_subagent

        self._events.append(event)
        self.view = advance_subagent(self.view, event)
        if not self.view.running:
            self._stop_ticking()
        self._restyle()
        self._tell()

    def mark_interrupted(self) -> None:
        """The turn stopped and the child never said how it ended: the block says it was stopped."""
        if self.view.running and not self.interrupted:
            self.interrupted = True
            self._stop_ticking()
            self._restyle()
            self._tell()

    def _tell(self) -> None:
        for listener in list(self.listeners):
            listener()

    def _stop_ticking(self) -> None:
        if self._stopped_at is None:
            self._stopped_at = self._clock()
        if self._ticker is not None:
            self._ticker.stop()
            self._ticker = None

    def _restyle(self) -> None:
        outcome = self.view.outcome
        self.set_class(outcome == "done", "-done")
        self.set_class((outcome is not None and outcome != "done") or self.interrupted, "-failed")
        self.refresh(layout=True)

    def render(self) -> Content:
        """The block's lines (`block_lines`), the first one marked `▸` (`▾` when focused)."""
        lines = block_lines(self.view, self.elapsed_s, interrupted=self.interrupted)
        marker = ("▸ ", "bold $accent") if self.has_focus else ("▸ ", "$text-muted")
        first = Content.assemble(marker, lines[0])
        rest = [Content.assemble("  ", line) for line in lines[1:]]
        return Content("\n").join([first, *rest])

    def on_focus(self) -> None:
        """Redraw the marker."""
        self.refresh()

    def on_blur(self) -> None:
        """Redraw the marker."""
        self.refresh()

    def action_open(self) -> None:
        """Enter: open the child's transcript."""
        self.post_message(self.Open(self))

    def on_click(self, event: Click) -> None:
        """A click opens it too, as a click opens a tool row."""
        event.stop()
        self.post_message(self.Open(self))

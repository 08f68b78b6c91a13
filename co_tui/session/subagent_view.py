"""What a front end shows of one delegation: its child's state, folded from the child's events.

A `delegate` call starts a child (`SubagentStarted`); the child's own events follow, each carrying
the call's `delegation` id; `SubagentFinished` ends it (docs/subagents.md, "What the user sees").
`SubagentView` is the fold of those events — pure and immutable, as `governance/trim.py` is: the
TUI's live block and its opened transcript only draw it, and the words they draw come from here too
(`subagent_meter_line`, `subagent_result_line`, …), so the block, its screen and the inspector agree.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, assert_never

from co_tui.governance.events import HistoryTrimmed
from co_tui.session.events import (
    Done,
    ErrorEvent,
    Notice,
    OversizedTurn,
    SubagentFinished,
    SubagentStarted,
    TextDelta,
    ToolCall,
    ToolResult,
    UsageUpdate,
)

if TYPE_CHECKING:
    from co_tui.session.events import Event, SubagentOutcome

DELEGATE_TOOL = "delegate"
"""The tool a parent calls to start a child (docs/subagents.md); its call id is the delegation's id."""
DEFAULT_AGENT = "explore"

OUTCOME_TEXT: dict[str, str] = {
    "done": "done",
    "failed": "failed",
    "timed_out": "timed out",
    "cancelled": "cancelled",
    "limit": "stopped at a limit",
}
"""How a child ended, as the block says it."""


@dataclass(frozen=True)
class SubagentView:
    """One child as the user sees it. `reading`: its own meter (its newest `usage` event);
    `tool`: the (name, raw arguments) of the tool it runs now; `trims`: its own cuts, oldest first;
    `chars`: what it has written so far; `error`: its newest error line; `finished`: its end (None
    while it runs); `result`/`result_error`: the parent's tool result for the call, once it came."""

    delegation: str
    agent: str
    agent_name: str
    task: str
    budget_tokens: int
    max_requests: int = 0
    reading: UsageUpdate | None = None
    tool: tuple[str, str] | None = None
    tool_calls: int = 0
    trims: tuple[HistoryTrimmed, ...] = ()
    chars: int = 0
    error: str | None = None
    finished: SubagentFinished | None = None
    result: str | None = None
    result_error: bool = False

    @property
    def running(self) -> bool:
        """Whether the child has not ended yet (nor the call been answered without one)."""
        return self.finished is None and self.result is None

    @property
    def outcome(self) -> SubagentOutcome | None:
        """How it ended (None while it runs). A call answered with no child (refused: an unknown
        agent, too many at once) counts as failed."""
        if self.finished is not None:
            return self.finished.outcome
        if self.result is not None:
            return "failed" if self.result_error else "done"
        return None

    @property
    def cost_usd(self) -> float | None:
        """What its requests cost so far at list prices (None: unpriced, or no request yet)."""
        if self.finished is not None:
            return self.finished.cost_usd
        return None if self.reading is None else self.reading.cost_usd


def subagent_pending(tool_call_id: str, args: str) -> SubagentView:
    """The view of a `delegate` call the parent just made (`args` as the model wrote them), before
    its child starts: the task and agent it asks for, read leniently (the child's start corrects them)."""
    import json

    try:
        data = json.loads(args) if args.strip() else {}
    except ValueError:
        data = {}
    if not isinstance(data, dict):
        data = {}
    task, agent = data.get("task"), data.get("agent")
    return SubagentView(
        delegation=tool_call_id,
        agent="",
        agent_name=agent if isinstance(agent, str) and agent else DEFAULT_AGENT,
        task=task if isinstance(task, str) else args,
        budget_tokens=0,
    )


def subagent_started(event: SubagentStarted) -> SubagentView:
    """The view of a child that has just started."""
    return SubagentView(
        delegation=event.delegation,
        agent=event.agent,
        agent_name=event.agent_name,
        task=event.task,
        budget_tokens=event.budget_tokens,
        max_requests=event.max_requests,
    )


def advance_subagent(view: SubagentView, event: Event) -> SubagentView:
    """`view` after one more event of its child (or the parent's tool result for its call); never
    mutates `view`. Events of other agents leave it as it is."""
    match event:
        case SubagentStarted():
            if event.delegation != view.delegation:
                return view
            return replace(
                view,
                agent=event.agent,
                agent_name=event.agent_name,
                task=event.task,
                budget_tokens=event.budget_tokens,
                max_requests=event.max_requests,
            )
        case SubagentFinished():
            return replace(view, finished=event, tool=None) if event.delegation == view.delegation else view
        case ToolResult() if event.agent is None:  # the parent's result for this delegate call
            if event.tool_call_id != view.delegation:
                return view
            return replace(view, result=event.content, result_error=event.is_error)
        case _ if event.delegation != view.delegation:
            return view
        case TextDelta(text=text):
            return replace(view, chars=view.chars + len(text))
        case ToolCall():
            return replace(view, tool=(event.tool_name, event.args), tool_calls=view.tool_calls + 1)
        case ToolResult():
            return replace(view, tool=None)
        case HistoryTrimmed():
            return replace(view, trims=(*view.trims, event))
        case UsageUpdate():
            return replace(view, reading=event)
        case ErrorEvent(message=message):
            return replace(view, error=message)
        case Notice() | Done() | OversizedTurn():
            return view
        case _:
            assert_never(event)


def subagent_meter_line(view: SubagentView) -> str:
    """`4 msgs · ~2.1k/40k tokens (5%)`: its own context against its own budget, as the footer
    meter words the main one (`budget 40k` before its first reading)."""
    from co_tui.text import format_tokens, plural

    reading = view.reading
    if reading is None:
        return f"0 msgs · 0/{format_tokens(view.budget_tokens)} tokens" if view.budget_tokens else "starting"
    approx = "" if reading.exactness == "exact" else "~"
    budget = reading.budget_tokens or view.budget_tokens
    if budget <= 0:  # a saved child: its figure as it ended, its budget not kept
        return f"{plural(reading.messages, 'msg')} · {approx}{format_tokens(reading.context_tokens)} tokens"
    pct = round(100 * reading.context_tokens / budget) if budget > 0 else 0
    return (
        f"{plural(reading.messages, 'msg')} · {approx}{format_tokens(reading.context_tokens)}"
        f"/{format_tokens(budget)} tokens ({pct}%)"
    )


def subagent_fraction(view: SubagentView) -> float:
    """Its context as a fraction of its budget (0 before its first reading)."""
    reading = view.reading
    budget = (reading.budget_tokens if reading else 0) or view.budget_tokens
    return reading.context_tokens / budget if reading is not None and budget > 0 else 0.0


def elapsed_text(seconds: float) -> str:
    """`4s`, `1m 05s`, `1h 02m`: how long a child ran (or has been running)."""
    whole = max(0, int(seconds))
    if whole < 60:
        return f"{whole}s"
    if whole < 3600:
        return f"{whole // 60}m {whole % 60:02d}s"
    return f"{whole // 3600}h {whole % 3600 // 60:02d}m"


def subagent_result_line(view: SubagentView) -> str:
    """`returned 1.2k chars · recall handle d-3 · 4 requests · 12.3k in / 800 out · $0.01` (empty
    while it runs): what the parent got back, and what the child cost."""
    end = view.finished
    if end is None:
        if view.result is not None:  # answered with no child (refused)
            from co_tui.text import one_line

            return one_line(view.result, 160)
        return ""
    from co_tui.text import format_tokens, plural

    size = plural(end.result_chars, "char", format_tokens(end.result_chars))
    parts = [f"returned {size}" if end.result_chars else "returned nothing"]
    if end.handle:
        parts.append(f"recall {end.handle}")
    parts.append(plural(end.requests, "request"))
    parts.append(f"{format_tokens(end.input_tokens)} in / {format_tokens(end.output_tokens)} out")
    parts.append(subagent_cost_text(end.cost_usd))
    return " · ".join(parts)


def subagent_cost_text(cost_usd: float | None) -> str:
    """`$0.0036` under a cent (a child's cost is often that small, and `<$0.01` says little),
    `$0.42` above (and `$0.00` for nothing); `unpriced` for None."""
    from co_tui.session.cost import format_usd

    return format_usd(cost_usd, unknown="unpriced", digits=4 if cost_usd is not None and 0 < cost_usd < 0.01 else 2)


def subagent_state_text(view: SubagentView) -> str:
    """`running`, or how it ended (`done`, `failed`, `timed out`, `cancelled`, `stopped at a limit`)."""
    outcome = view.outcome
    return "running" if outcome is None else OUTCOME_TEXT.get(outcome, outcome)


__all__ = [
    "DEFAULT_AGENT",
    "DELEGATE_TOOL",
    "OUTCOME_TEXT",
    "SubagentView",
    "advance_subagent",
    "elapsed_text",
    "subagent_cost_text",
    "subagent_fraction",
    "subagent_meter_line",
    "subagent_pending",
    "subagent_result_line",
    "subagent_started",
    "subagent_state_text",
]

"""The `oversized_turn` event: a newest turn that alone is over the budget (sent whole), or a prompt
that alone is over the model's context window (refused before anything is sent or saved).

Governance never cuts the newest turn (docs/context-governance.md), so the only honest thing left
is to say so, where it happens, in one line that every front end shows the same way.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from co_tui.governance.tokens import estimate_text_tokens
from co_tui.session.events import OversizedTurn, UsageUpdate
from co_tui.text import format_tokens

__all__ = [
    "TOOL_SCHEMA_SHARE",
    "oversized_message",
    "refuse_oversized_prompt",
    "sent_whole",
    "tight_budget_warning",
    "tool_schemas_warning",
]

TOOL_SCHEMA_SHARE = 0.25
"""The share of the context window the MCP servers' tool schemas may take before co-tui warns."""


def oversized_message(turn_tokens: int, budget_tokens: int, context_window: int | None, *, refused: bool) -> str:
    """The one line, e.g. `this turn alone is 5.1k tokens, over the budget of 1.5k: sent whole
    (the newest turn is never cut)`."""
    if refused:
        window = format_tokens(context_window or 0)
        return (
            f"not sent: this prompt alone is {format_tokens(turn_tokens)} tokens, over the model's context "
            f"window of {window}; shorten it or send it in parts"
        )
    return (
        f"this turn alone is {format_tokens(turn_tokens)} tokens, over the budget of "
        f"{format_tokens(budget_tokens)}: sent whole (the newest turn is never cut)"
    )


def tight_budget_warning(reading: UsageUpdate, files: Sequence[str] = ()) -> OversizedTurn | None:
    """The `⚠ over budget` line for instructions and tool schemas that take more than the half of
    the budget they may take (`reading.overhead_excess`): requests then go over the budget before any
    cut, by up to that much. None when the budget holds. `files`: the instruction files' names."""
    if not reading.overhead_excess:
        return None
    budget, overhead = reading.budget_tokens, reading.overhead_tokens
    shorten = f"shorten {', '.join(files)} " if files else ""
    message = (
        f"instructions and tool schemas take {format_tokens(overhead)} of the {format_tokens(budget)}-token "
        f"budget; the conversation keeps {format_tokens(budget - budget // 2)} for itself, so requests go up "
        f"to {format_tokens(budget + reading.overhead_excess)} before a cut. Raise context_budget_tokens "
        f"or {shorten}(project_instructions = false leaves them out)"
    )
    return OversizedTurn(turn_tokens=overhead, budget_tokens=budget, context_window=None, message=message)


def sent_whole(turn_tokens: int, budget_tokens: int, context_window: int | None) -> OversizedTurn:
    """The event for a newest turn sent whole over the budget (governance found nothing to cut)."""
    return OversizedTurn(
        turn_tokens=turn_tokens,
        budget_tokens=budget_tokens,
        context_window=context_window,
        message=oversized_message(turn_tokens, budget_tokens, context_window, refused=False),
    )


def refuse_oversized_prompt(
    prompt: str, *, overhead_tokens: int, budget_tokens: int, context_window: int | None
) -> OversizedTurn | None:
    """The refusal of a prompt whose request alone (prompt plus `overhead_tokens`) exceeds the
    model's `context_window`; None when it fits or the window is unknown (the provider decides then)."""
    if not context_window:
        return None
    tokens = estimate_text_tokens(prompt) + overhead_tokens
    if tokens <= context_window:
        return None
    return OversizedTurn(
        turn_tokens=tokens,
        budget_tokens=budget_tokens,
        context_window=context_window,
        refused=True,
        message=oversized_message(tokens, budget_tokens, context_window, refused=True),
    )


def tool_schemas_warning(servers: Sequence[Any], reading: UsageUpdate) -> str | None:
    """One line when the running MCP servers' tool schemas, sent with every request, take more than
    `TOOL_SCHEMA_SHARE` of the model's context window (of the budget when the window is unknown):
    how many tools, from which servers, how many tokens and what share. None below that.
    2,000 tools once made every request 782 KB (~74k tokens against a 32k window), unsaid."""
    from co_tui.agent.factory import tool_schema_tokens

    priced = [(s.name, len(s.tool_defs), tool_schema_tokens(s.tool_defs)) for s in servers if s.tool_defs]
    tokens = sum(t for _n, _c, t in priced)
    window = reading.window_tokens or reading.budget_tokens
    if not priced or not window or tokens <= window * TOOL_SCHEMA_SHARE:
        return None
    tools = sum(c for _n, c, _t in priced)
    biggest = sorted(priced, key=lambda p: -p[2])[:3]
    named = ", ".join(f"{name} {count:,}" for name, count, _t in biggest) + (" …" if len(priced) > 3 else "")
    which = "the context window" if reading.window_tokens else "the budget"
    return (
        f"MCP tool schemas take ~{format_tokens(tokens)} tokens, sent with every request: {tools:,} tools "
        f"({named}), {tokens * 100 // window}% of {which} ({format_tokens(window)}); "
        f"remove servers you do not need from mcp_servers (/mcp lists them)"
    )

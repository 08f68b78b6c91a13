"""When the `recall` tool is offered: only once something of the session is out of the model's view.

Before any cut, `recall` has nothing to bring back, and its schema (~280 tokens) would ride along in
every request for nothing. It is offered from the first request whose context carries a note
governance left — a marker (breadcrumb, summary, compact, eviction, salvage), an output cut to its
note or previewed because it was too big — and withdrawn when no note is left (an `/undo` of every
cut). The decision is made on the request as the policy leaves it (`ContextGovernance`), so the
request of the cut already offers the tool its notes name. pydantic-ai records a tool that joins
mid-run (its `ToolAvailabilityDeltaPart`, an announcement in that request); its list then changes
once, at the cut, where the prefix the provider cached is broken anyway (docs/context-governance.md,
"When recall is offered"). Pure: inputs are never mutated.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from pydantic_ai.messages import ModelMessage, ModelRequest, ToolReturnPart

from co_tui.governance.handles import RECALL_TOOL
from co_tui.governance.markers import FUSED_KEY, is_evicted_output, is_marker, is_truncated_output
from co_tui.governance.preview import previewed_chars

__all__ = ["carries_cut_notes", "offer_recall"]


def _cut_output(part: Any) -> bool:
    if not isinstance(part, ToolReturnPart):
        return False
    if previewed_chars(part) is not None or is_evicted_output(part):
        return True
    return isinstance(part.content, str) and is_truncated_output(part.content)


# A subagent's result names the handle of its transcript (docs/subagents.md): its work is out of view too.
DELEGATE_TOOL = "delegate"


def carries_cut_notes(messages: Sequence[ModelMessage]) -> bool:
    """Whether `messages` hold a note governance left where something went out of view (see the
    module docstring): a marker, a fused one, a tool output truncated, cleared or previewed, or a
    subagent's result (its transcript is recallable)."""
    for message in messages:
        if not isinstance(message, ModelRequest):
            continue
        if FUSED_KEY in (message.metadata or {}) or is_marker(message):
            return True
        if any(_cut_output(part) or getattr(part, "tool_name", None) == DELEGATE_TOOL for part in message.parts):
            return True
    return False


def offer_recall(parameters: Any, messages: Sequence[ModelMessage]) -> Any:
    """`parameters` (pydantic-ai's `ModelRequestParameters`) as they are when `messages` carry a
    cut note, else a copy without the `recall` tool."""
    tools = parameters.function_tools
    if not any(tool.name == RECALL_TOOL for tool in tools) or carries_cut_notes(messages):
        return parameters
    return replace(parameters, function_tools=[tool for tool in tools if tool.name != RECALL_TOOL])

"""A finished subagent as a resumed conversation shows it: its block's view and its transcript's events.

The engine keeps a child in the metadata of the parent's `delegate` result (`child_record.py`):
its `subagent_finished` figures, its task, its whole transcript and its cuts. On resume the chat
draws the block from that record (`saved_subagent`, plain dicts: no pydantic-ai, so it can be
drawn from the store's raw rows before the model has loaded), and opening it replays the child's
transcript as the events it streamed live (`saved_subagent_events`, decoded when opened).
The record does not say where in its run each cut happened: replayed, the cuts come after the
messages, in order.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, fields, replace
from typing import TYPE_CHECKING, Any

from co_tui.session.child_record import SUBAGENT_KEY
from co_tui.session.events import SubagentFinished, TextDelta, ToolCall, UsageUpdate
from co_tui.session.subagent_view import SubagentView, subagent_pending
from co_tui.session.tool_facts import tool_result

if TYPE_CHECKING:
    from co_tui.session.events import Event

__all__ = [
    "SUBAGENT_KEY",
    "SavedChild",
    "SubagentsUsage",
    "saved_children",
    "saved_subagent",
    "saved_subagent_events",
    "subagents_usage",
]


@dataclass(frozen=True)
class SubagentsUsage:
    """What a conversation's subagents used, in their own contexts (`/context` counts it apart: it
    never filled the main one). `context_tokens`: their contexts' sizes as they ended, summed;
    `cost_usd` None when one was unpriced."""

    children: int = 0
    requests: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    context_tokens: int = 0
    cost_usd: float | None = 0.0


def subagents_usage(messages: Sequence[Any]) -> SubagentsUsage:
    """The sum over every child recorded on the `delegate` results of `messages` (a transcript:
    pydantic-ai messages or the store's JSON rows). Reads each message: for a resumed session,
    blocking (call it in a thread)."""
    from co_tui.session.conversation_counts import field_of

    total = SubagentsUsage()
    for message in messages:
        if field_of(message, "kind") != "request":
            continue
        for part in field_of(message, "parts") or ():
            metadata = field_of(part, "metadata")
            end = _finished(metadata.get(SUBAGENT_KEY)) if isinstance(metadata, dict) else None
            if end is None:
                continue
            cost = None if total.cost_usd is None or end.cost_usd is None else total.cost_usd + end.cost_usd
            total = SubagentsUsage(
                children=total.children + 1,
                requests=total.requests + end.requests,
                input_tokens=total.input_tokens + end.input_tokens,
                output_tokens=total.output_tokens + end.output_tokens,
                context_tokens=total.context_tokens + end.context_tokens,
                cost_usd=cost,
            )
    return total


@dataclass(frozen=True)
class SavedChild:
    """A child a transcript records (the history inspector's Subagents rows): `view` as it ended,
    `record` the raw record (for `saved_subagent_events`), `index` the transcript message holding it."""

    view: SubagentView
    record: Any
    index: int


def saved_children(messages: Sequence[Any], start: int = 0) -> list[SavedChild]:
    """Every child recorded on the `delegate` results of `messages` (pydantic-ai messages; `start`:
    the transcript index of the first), oldest first."""
    found: list[SavedChild] = []
    for index, message in enumerate(messages, start):
        if getattr(message, "kind", None) != "request":
            continue
        for part in message.parts:
            metadata = getattr(part, "metadata", None)
            record = metadata.get(SUBAGENT_KEY) if isinstance(metadata, dict) else None
            if record is None or _finished(record) is None:
                continue
            view = saved_subagent(part.tool_call_id, "", None, False, record)
            found.append(SavedChild(view, record, index))
    return found


def _finished(record: Any) -> SubagentFinished | None:
    data = record.get("finished") if isinstance(record, dict) else None
    if not isinstance(data, dict):
        return None
    known = {f.name for f in fields(SubagentFinished)} - {"type"}
    try:
        return SubagentFinished(**{k: v for k, v in data.items() if k in known})
    except TypeError:  # a damaged record: the block says what the call itself says
        return None


def saved_subagent(tool_call_id: str, args: str, result: str | None, is_error: bool, record: Any) -> SubagentView:
    """The view of a saved `delegate` call: from its child's `record` (the raw metadata the engine
    saved; None or damaged: only the call and its result are known), ended as the call ended (no
    result and no record: it never ended, the turn was interrupted)."""
    from co_tui.governance.events import HistoryTrimmed

    view = subagent_pending(tool_call_id, args)
    finished = _finished(record)
    if finished is not None:
        ledger = record.get("ledger") or ()
        trims = tuple(HistoryTrimmed.from_dict(e) for e in ledger if isinstance(e, dict))
        task = record.get("task")
        view = replace(
            view,
            agent=finished.agent,
            agent_name=finished.agent_name or view.agent_name,
            task=task if isinstance(task, str) and task else view.task,
            finished=finished,
            tool_calls=finished.tool_calls,
            trims=trims,
            # Its meter as it ended (a record saved before budgets were kept has 0: the figure alone).
            reading=UsageUpdate(
                input_tokens=finished.input_tokens,
                output_tokens=finished.output_tokens,
                context_tokens=finished.context_tokens,
                budget_tokens=finished.budget_tokens,
                messages=len(record.get("transcript") or ()),
                max_messages=0,
                exactness="exact",
                cost_usd=finished.cost_usd,
            ),
        )
    if result is not None:
        view = replace(view, result=result, result_error=is_error)
    return view


def saved_subagent_events(record: Any, delegation: str) -> list[Event]:
    """The child's transcript as the events it streamed (its task's prompt left out: the screen
    shows the task), then its cuts and its end; empty for a record that cannot be read."""
    from co_tui.session.child_record import ChildRecord

    child = ChildRecord.from_metadata(record)
    if child is None:
        return []
    agent = child.agent
    from pydantic_ai.messages import RetryPromptPart, TextPart, ToolCallPart, ToolReturnPart

    events: list[Event] = []
    for message in child.transcript:
        for part in message.parts:
            if isinstance(part, TextPart) and part.content.strip():
                events.append(TextDelta(text=part.content, agent=agent, delegation=delegation))
            elif isinstance(part, ToolCallPart):
                args = part.args_as_json_str()
                events.append(
                    ToolCall(
                        tool_name=part.tool_name,
                        tool_call_id=part.tool_call_id,
                        args=args,
                        agent=agent,
                        delegation=delegation,
                    )
                )
            elif isinstance(part, ToolReturnPart | RetryPromptPart):
                retry = isinstance(part, RetryPromptPart)
                text = part.model_response() if isinstance(part, RetryPromptPart) else part.model_response_str()
                # As session/stream_map.py: a return whose outcome is not success is an error.
                is_error = retry or getattr(part, "outcome", None) not in (None, "success")
                events.append(
                    tool_result(
                        tool_name=part.tool_name or "",
                        tool_call_id=part.tool_call_id,
                        content=text,
                        chars=len(text),
                        is_error=is_error,
                        agent=agent,
                        delegation=delegation,
                    )
                )
    events += [replace(cut, agent=agent, delegation=delegation) for cut in child.ledger]
    events.append(child.finished)
    return events

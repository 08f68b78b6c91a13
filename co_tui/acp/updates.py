"""The one mapping from the session's events to ACP session updates (`updates_of`), and the few
shapes built from session values the protocol needs (a replayed entry, the commands, the modes).

No logic of co-tui's own lives here: the session decides, words and counts; this only says it in
the protocol's types (the `agent-client-protocol` SDK, imported with this module — which
`co-tui acp` alone loads).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, assert_never

from acp import schema as s
from acp.helpers import (
    start_tool_call,
    text_block,
    tool_content,
    tool_diff_content,
    update_agent_message_text,
    update_tool_call,
    update_user_message_text,
)

from co_tui.session import (
    Done,
    ErrorEvent,
    Event,
    HistoryTrimmed,
    Notice,
    OversizedTurn,
    SubagentFinished,
    SubagentStarted,
    TextDelta,
    ToolCall,
    ToolResult,
    UsageUpdate,
)

__all__ = ["Calls", "available_commands", "kind_of", "modes_of", "replayed", "updates_of"]

SHOWN_RESULT_CHARS = 20_000  # of a tool's output in a tool_call_update (the model's copy is governed apart)

KINDS: dict[str, s.ToolKind] = {
    "read_file": "read",
    "list_dir": "read",
    "recall": "read",
    "search_text": "search",
    "run_shell": "execute",
    "user_shell": "execute",
    "write_file": "edit",
    "edit_file": "edit",
    "delegate": "think",
}


def kind_of(tool: str) -> s.ToolKind:
    """The ACP kind of a co-tui tool (an MCP tool is `other`, or `fetch` when its name says so)."""
    return KINDS.get(tool) or ("fetch" if "fetch" in tool.lower() else "other")


@dataclass
class Calls:
    """What one ACP session's mapping remembers between events: the workspace (paths become
    absolute), each open call's tool, and whether a message line is open (a notice starts its own)."""

    workspace: Path
    tools: dict[str, str] = field(default_factory=dict)
    # What each running child (subagent) has said so far, by its `delegate` call's id: the call's
    # content, shown as it grows (this SDK version has no child sessions).
    children: dict[str, str] = field(default_factory=dict)
    undoable: Any = None  # () -> list[int]: the session's undoable cuts (a cut message's /undo hint)

    def location(self, args: dict[str, Any]) -> list[s.ToolCallLocation]:
        """The file a call is about, absolute (none when it names no path)."""
        path = args.get("path")
        return [s.ToolCallLocation(path=str(self.workspace / path))] if isinstance(path, str) and path else []


def _args(raw: str) -> dict[str, Any]:
    try:
        value = json.loads(raw) if raw else {}
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def _title(tool: str, args: dict[str, Any]) -> str:
    shown = args.get("command") or args.get("path") or args.get("pattern") or args.get("task") or ""
    shown = " ".join(str(shown).split())
    return f"{tool}: {shown[:80]}" if shown else tool


def _diff(calls: Calls, tool: str, args: dict[str, Any]) -> list[Any]:
    """A `diff` for an edit: `write_file`'s new content, `edit_file`'s replaced text (the exact
    unified diff is in the permission request)."""
    path = args.get("path")
    if not isinstance(path, str):
        return []
    where = str(calls.workspace / path)
    if tool == "write_file" and isinstance(args.get("content"), str):
        return [tool_diff_content(where, args["content"])]
    if tool == "edit_file" and isinstance(args.get("new_string"), str):
        return [tool_diff_content(where, args["new_string"], str(args.get("old_string", "")))]
    return []


def _message(text: str) -> s.AgentMessageChunk:
    return update_agent_message_text(text)


def usage_of(event: UsageUpdate) -> s.UsageUpdate:
    """The meter as `usage_update`: `used` its tokens, `size` the budget, `cost` the session's."""
    cost = s.Cost(amount=event.cost_usd, currency="USD") if event.cost_usd is not None else None
    return s.UsageUpdate(session_update="usage_update", used=event.context_tokens, size=event.budget_tokens, cost=cost)


CHILD_SHOWN_CHARS = 6_000  # of a child's running account, in its delegate call's content (the newest part)


def _child_line(event: Event) -> str:
    """A child's event as text in its `delegate` call's account (the same union, said briefly)."""
    match event:
        case TextDelta(text=text):
            return text
        case ToolCall(tool_name=tool, args=raw):
            return f"\n→ {_title(tool, _args(raw))}\n"
        case ToolResult(tool_name=tool, chars=chars, is_error=is_error):
            return f"  {'✗' if is_error else '✓'} {tool} ({chars:,} chars)\n"
        case HistoryTrimmed():
            from co_tui.session import banner_line

            return f"\n{banner_line(event)}\n"
        case ErrorEvent(message=message) | OversizedTurn(message=message) | Notice(message=message):
            return f"\n⚠ {message}\n"
        case SubagentStarted(agent=agent, task=task):
            return f"{agent}: {task}\n"
        case SubagentFinished(summary=summary):
            return f"\n{summary}\n"
        case UsageUpdate() | Done():
            return ""
        case _:
            assert_never(event)


def _child_update(event: Event, calls: Calls, delegation: str) -> list[Any]:
    """A subagent's event as a `tool_call_update` of its `delegate` call: the child's account so far
    (its words, tool calls, cuts, end) as the call's content; its end marks the call failed when it
    did not answer (the parent's tool result, which follows, completes it)."""
    line = _child_line(event)
    if not line and not isinstance(event, SubagentFinished):
        return []
    account = calls.children.get(delegation, "") + line
    calls.children[delegation] = account
    shown = account if len(account) <= CHILD_SHOWN_CHARS else "…" + account[-CHILD_SHOWN_CHARS:]
    status: s.ToolCallStatus = "in_progress"
    if isinstance(event, SubagentFinished):
        calls.children.pop(delegation, None)
        status = "completed" if event.outcome == "done" else "failed"
    return [update_tool_call(delegation, status=status, content=[tool_content(text_block(shown))])]


def updates_of(event: Event, calls: Calls) -> list[Any]:
    """The ACP session updates that say `event` (none for `Done`: the prompt's answer ends the turn).

    Text streams as `agent_message_chunk`; a tool call is a `tool_call` (kind, pending, its file as
    location, a diff for an edit) and its result a `tool_call_update` (completed or failed, its
    output); every cut is a visible message in the banner's wording with its hints; the meter is a
    `usage_update`; notices, errors and oversized turns are message lines of their own. A subagent's
    events (`agent` set) go to its `delegate` call as `tool_call_update`s (`_child_update`).
    """
    delegation = getattr(event, "delegation", None)
    if getattr(event, "agent", None) is not None and delegation:
        return _child_update(event, calls, delegation)
    match event:
        case TextDelta(text=text):
            return [_message(text)] if text else []
        case ToolCall(tool_name=tool, tool_call_id=call_id, args=raw):
            args = _args(raw)
            calls.tools[call_id] = tool
            return [
                start_tool_call(
                    call_id,
                    _title(tool, args),
                    kind=kind_of(tool),
                    status="pending",
                    locations=calls.location(args),
                    content=_diff(calls, tool, args) or None,
                    raw_input=args or raw,
                )
            ]
        case ToolResult(tool_call_id=call_id, content=content, is_error=is_error):
            calls.tools.pop(call_id, None)
            shown = content if len(content) <= SHOWN_RESULT_CHARS else content[:SHOWN_RESULT_CHARS] + "\n[…]"
            return [
                update_tool_call(
                    call_id, status="failed" if is_error else "completed", content=[tool_content(text_block(shown))]
                )
            ]
        case HistoryTrimmed():
            from co_tui.session import cut_message

            undoable = bool(calls.undoable()) if calls.undoable is not None else False
            return [_message(f"\n\n{cut_message(event, undoable=undoable)}\n\n")]
        case UsageUpdate():
            return [usage_of(event)]
        case ErrorEvent(message=message):
            return [_message(f"\n\n⚠ {message}\n")]
        case OversizedTurn(message=message):
            return [_message(f"\n\n⚠ {message}\n")]
        case Notice(message=message):
            return [_message(f"\n\n· {message}\n")]
        case Done():
            return []
        case SubagentStarted() | SubagentFinished():  # always a child's (`agent` set): handled above
            return []
        case _:
            assert_never(event)


def replayed(entry: Any, calls: Calls) -> list[Any]:
    """A saved conversation's entry (`co_tui.session.replay_items`: an `Item` or a cut) as the updates
    `session/load` sends: the user's prompt, the answer, a tool call with its result, the cut."""
    if isinstance(entry, HistoryTrimmed):
        return updates_of(entry, calls)
    if entry.kind == "user":
        return [update_user_message_text(entry.text)]
    if entry.kind == "assistant":
        return [_message(entry.text)]
    call = ToolCall(tool_name=entry.tool_name, tool_call_id=entry.tool_call_id, args=entry.args)
    updates = updates_of(call, calls)
    if (result := entry.tool_result()) is not None:
        updates += updates_of(result, calls)
    return updates


def available_commands(commands: Any) -> s.AvailableCommandsUpdate:
    """The session's command table (those with a handler) as `available_commands_update`."""
    listed = [
        s.AvailableCommand(
            name=command.name,
            description=command.summary,
            input=s.AvailableCommandInput(root=s.UnstructuredCommandInput(hint=command.arguments))
            if command.arguments
            else None,
        )
        for command in commands
    ]
    return s.AvailableCommandsUpdate(session_update="available_commands_update", available_commands=listed)


def modes_of(current: str) -> s.SessionModeState:
    """`compact_mode` as the session's modes: auto, ask, off (each with what it does)."""
    from co_tui.session import COMPACT_MODES, MODE_TEXT

    modes = [s.SessionMode(id=mode, name=f"compact: {mode}", description=MODE_TEXT[mode]) for mode in COMPACT_MODES]
    return s.SessionModeState(current_mode_id=current, available_modes=modes)

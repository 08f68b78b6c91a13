"""The session: its public face for the front ends (the TUI, print mode, the CLI).

A front end imports session things from here only (`from co_tui.session import SessionPort, …`):
the port and its roles, the closed event union, the banner's wording, opening sessions, the saved
sessions' records and the figures the screens show. Exports are resolved lazily (PEP 562), as
`co_tui.governance` does: importing this package loads nothing — no pydantic, no sqlite — until a
name is used, so the TUI paints first.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

_EXPORTS: dict[str, str] = {
    # the port (port.py) and what its operations raise and return
    "SessionPort": "port",
    "Turns": "port",
    "HistoryView": "port",
    "Steering": "port",
    "SessionInfo": "port",
    "Lifecycle": "port",
    "SessionCatalog": "port",
    "Refused": "port",
    "PinChange": "pin_change",
    "BranchRow": "branching",
    "RewindPoint": "branching",
    "Rewound": "branching",
    "FilesBack": "file_rewind",
    "PlannedCut": "ask_cut",
    # start and close (lifecycle.py), approvals (approvals.py)
    "SessionLifecycle": "lifecycle",
    "Closing": "lifecycle_types",
    "instruction_events": "lifecycle",
    "Item": "replay",
    "HistoryTrimmed": "events",
    "cut_message": "cut_message",
    "with_client_servers": "client_mcp",
    "COMPACT_MODES": "compact_mode",
    "MODE_TEXT": "compact_mode",
    "replay": "replay",
    # the one command table (commands.py)
    "COMMANDS": "commands",
    "Command": "commands",
    "find_command": "commands",
    "headless_commands": "commands",
    "parse_slash": "commands",
    "run_command": "commands",
    "closest_command": "commands",
    "complete": "commands",
    # replay (replay.py): the items of a saved conversation
    "newest_entries": "replay",
    "newest_window": "replay",
    "tail_shows": "replay",
    "transcript_items": "replay",
    "truncated_tool_call_ids": "replay",
    "window_items": "replay",
    "window_shows": "replay",
    "FIRST_WINDOW": "replay",
    # compact_mode ask (ask_flow.py)
    "CutAnswer": "ask_flow",
    "CutChoice": "ask_flow",
    "next_step": "ask_flow",
    "plan_before_send": "ask_flow",
    "planned_cut_rows": "ask_flow",
    "ApprovalRequest": "approvals",
    "Approvals": "approvals",
    "Decision": "approvals",
    "MAIN_AGENT": "agent_ids",
    "CannotAsk": "approvals",
    # the events a session yields (events.py)
    "Event": "events",
    "Done": "events",
    "DoneReason": "events",
    "ErrorEvent": "events",
    "Notice": "events",
    "OversizedTurn": "events",
    "SubagentFinished": "events",
    "SubagentStarted": "events",
    # which subagent asks, for an approval dialog to name it (child_event.py)
    "asking_agent": "child_event",
    "TextDelta": "events",
    "ToolCall": "events",
    "ToolResult": "events",
    "UsageUpdate": "events",
    "INTERRUPTED_MESSAGE": "events",
    # a subagent as the screens show it (subagent_view.py)
    "SubagentView": "subagent_view",
    "DELEGATE_TOOL": "subagent_view",
    "advance_subagent": "subagent_view",
    "elapsed_text": "subagent_view",
    "subagent_cost_text": "subagent_view",
    "subagent_fraction": "subagent_view",
    "subagent_meter_line": "subagent_view",
    "subagent_pending": "subagent_view",
    "subagent_result_line": "subagent_view",
    "subagent_started": "subagent_view",
    "subagent_state_text": "subagent_view",
    "saved_subagent": "subagent_replay",
    "SavedChild": "subagent_replay",
    "SubagentsUsage": "subagent_replay",
    "saved_subagent_events": "subagent_replay",
    "SUBAGENT_KEY": "child_record",
    # words and figures the screens show
    "banner_line": "banner",
    "banner_details": "banner",
    "strategy_text": "banner",
    "REASON_TEXT": "banner",
    "ContextBreakdown": "context_breakdown",
    "CATEGORY_TITLES": "context_breakdown",
    "apportion": "context_breakdown",
    "RequestCost": "cost",
    "cached_share": "cost",
    "format_usd": "cost",
    "session_cost_of": "cost",
    "field_of": "conversation_counts",
    "format_updated": "times",
    "fork_origin": "times",
    "HistoryRows": "history_rows",
    "read_history_rows": "history_rows",
    # `!command` typed in the prompt (user_shell.py)
    "bang_command": "bang",
    # memory (memory.py, note_prompt.py)
    "hash_note": "note_prompt",
    "parse_remember": "note_prompt",
    "Memory": "memory",
    "MemoryEntry": "memory",
    "entry_where": "memory",
    "USER_SHELL_TOOL": "bang",
    "ShellPreview": "shell_preview",
    "shell_preview": "shell_preview",
    # opening sessions (opening.py) and the saved ones
    "OpenSessionError": "opening",
    "exit_code_for": "opening",
    "open_session": "opening",
    "fork_saved": "opening",
    "open_store": "opening",
    "open_store_at": "opening",
    "open_store_read_only": "opening",
    "quit_lines": "opening",
    "resolve_session_id": "opening",
    "resume_hint": "closing_lines",
    "SessionMeta": "saved_session",
    "SessionHit": "saved_session",
    "hit_segments": "co_tui.store.search",
    "SessionTail": "co_tui.store.tail",
    "StoreError": "co_tui.store.errors",
    "SessionBusy": "session_lock",
    "busy_elsewhere": "session_lock",
    "FORMATS": "export",
    "render_saved": "export",
    "tight_budget_warning": "oversize",
    "tool_schemas_warning": "oversize",
}

__all__ = list(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'co_tui.session' has no attribute {name!r}")
    # A session module, or one of the store's (`co_tui.store`), named in full.
    value = getattr(
        importlib.import_module(module if module.startswith("co_tui.") else f"co_tui.session.{module}"), name
    )
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)


if TYPE_CHECKING:  # pragma: no cover - static names for type checkers and IDEs
    from co_tui.session.agent_ids import MAIN_AGENT
    from co_tui.session.approvals import ApprovalRequest, Approvals, CannotAsk, Decision
    from co_tui.session.ask_cut import PlannedCut
    from co_tui.session.ask_flow import CutAnswer, CutChoice, next_step, plan_before_send, planned_cut_rows
    from co_tui.session.bang import USER_SHELL_TOOL, bang_command
    from co_tui.session.banner import REASON_TEXT, banner_details, banner_line, strategy_text
    from co_tui.session.branching import BranchRow, RewindPoint, Rewound
    from co_tui.session.child_event import asking_agent
    from co_tui.session.child_record import SUBAGENT_KEY
    from co_tui.session.client_mcp import with_client_servers
    from co_tui.session.closing_lines import resume_hint
    from co_tui.session.commands import (
        COMMANDS,
        Command,
        closest_command,
        complete,
        find_command,
        headless_commands,
        parse_slash,
        run_command,
    )
    from co_tui.session.compact_mode import COMPACT_MODES, MODE_TEXT
    from co_tui.session.context_breakdown import CATEGORY_TITLES, ContextBreakdown, apportion
    from co_tui.session.conversation_counts import field_of
    from co_tui.session.cost import RequestCost, cached_share, format_usd, session_cost_of
    from co_tui.session.cut_message import cut_message
    from co_tui.session.events import (
        INTERRUPTED_MESSAGE,
        Done,
        DoneReason,
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
    from co_tui.session.export import FORMATS, render_saved
    from co_tui.session.file_rewind import FilesBack
    from co_tui.session.history_rows import HistoryRows, read_history_rows
    from co_tui.session.lifecycle import SessionLifecycle, instruction_events
    from co_tui.session.lifecycle_types import Closing
    from co_tui.session.memory import Memory, MemoryEntry, entry_where
    from co_tui.session.note_prompt import hash_note, parse_remember
    from co_tui.session.opening import (
        OpenSessionError,
        exit_code_for,
        fork_saved,
        open_session,
        open_store,
        open_store_at,
        open_store_read_only,
        quit_lines,
        resolve_session_id,
    )
    from co_tui.session.oversize import tight_budget_warning, tool_schemas_warning
    from co_tui.session.pin_change import PinChange
    from co_tui.session.port import (
        HistoryView,
        Lifecycle,
        Refused,
        SessionCatalog,
        SessionInfo,
        SessionPort,
        Steering,
        Turns,
    )
    from co_tui.session.replay import (
        FIRST_WINDOW,
        Item,
        newest_entries,
        newest_window,
        replay,
        tail_shows,
        transcript_items,
        truncated_tool_call_ids,
        window_items,
        window_shows,
    )
    from co_tui.session.saved_session import SessionHit, SessionMeta
    from co_tui.session.session_lock import SessionBusy, busy_elsewhere
    from co_tui.session.shell_preview import ShellPreview, shell_preview
    from co_tui.session.subagent_replay import SavedChild, SubagentsUsage, saved_subagent, saved_subagent_events
    from co_tui.session.subagent_view import (
        DELEGATE_TOOL,
        SubagentView,
        advance_subagent,
        elapsed_text,
        subagent_cost_text,
        subagent_fraction,
        subagent_meter_line,
        subagent_pending,
        subagent_result_line,
        subagent_started,
        subagent_state_text,
    )
    from co_tui.session.times import fork_origin, format_updated
    from co_tui.store.errors import StoreError
    from co_tui.store.search import hit_segments
    from co_tui.store.tail import SessionTail

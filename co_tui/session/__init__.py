"""The session: its public face for the front ends (the TUI, print mode, the CLI).

A front end imports session things from here only (`from co_tui.session import SessionPort, …`):
the port and its roles, the closed event union, the banner's wording, opening sessions, the saved
sessions' records and the figures the screens show — and the few value types of `co_tui.agent` and
`co_tui.governance` a front end shows, re-exported: front ends import neither package, and the
facts a screen needs are fields the session fills (`ToolResult.outcome`, `HistoryRows.turn_bars`).

Exports are resolved lazily (PEP 562), as `co_tui.governance` does: importing this package loads
nothing — no pydantic, no sqlite — until a name is used, so the TUI paints first.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

_EXPORTS: dict[str, str] = {
    # the port (port.py) and what its operations raise and return
    "SessionPort": "port",
    "Turns": "port",
    "HistoryView": "port",
    "ContextSteering": "port",
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
    "Item": "replay_items",
    "HistoryTrimmed": "events",
    "cut_message": "cut_messages",
    "with_client_servers": "client_mcp",
    "COMPACT_MODES": "compact_mode",
    # the lines the user reads about the context, worded from governance's facts (wording.py)
    "MODE_TEXT": "wording",
    "kept_line": "wording",
    "print_mode_ask_line": "wording",
    "replay": "replay_items",
    # the one command table (commands.py)
    "COMMANDS": "commands",
    "Command": "commands",
    "find_command": "commands",
    "headless_commands": "commands",
    "parse_slash": "commands",
    "run_command": "commands",
    "closest_command": "commands",
    "complete": "commands",
    # replay (replay_items.py): the items of a saved conversation
    "newest_entries": "replay_items",
    "newest_window": "replay_items",
    "tail_shows": "replay_items",
    "transcript_items": "replay_items",
    "truncated_tool_call_ids": "replay_items",
    "window_items": "replay_items",
    "window_shows": "replay_items",
    "FIRST_WINDOW": "replay_items",
    # compact_mode ask (ask_flow.py)
    "CutAnswer": "ask_flow",
    "CutChoice": "ask_flow",
    "next_step": "ask_flow",
    "plan_before_send": "ask_flow",
    "planned_cut_rows": "ask_flow",
    "ApprovalRequest": "approvals",
    "Approvals": "approvals",
    "MAIN_AGENT": "agent_ids",
    "CannotAsk": "approvals",
    # what the TUI's app and controller show (tui/): an `@path` mention, a grant's line, a summary's
    # kept items, a mode typed, an eviction's line, the prices loaded before a first answer
    "mentions": "co_tui.agent.mentions",
    "parse_mode": "co_tui.governance.compact_mode",
    "evict_line": "eviction",
    "preload_pricing": "cost",
    "busy_line": "wording",
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
    "TurnBar": "history_rows",
    "TurnState": "history_rows",
    "status_label": "history_rows",
    # `!command` typed in the prompt (user_shell.py)
    "user_shell_command": "user_shell_prompt",
    "USER_SHELL_TOOL": "user_shell_prompt",
    # memory (memory.py, note_prompt.py)
    "hash_note": "note_prompt",
    "parse_remember": "note_prompt",
    "Memory": "memory",
    "MemoryEntry": "memory",
    "entry_where": "memory",
    "ShellPreview": "shell_previews",
    "shell_preview": "shell_previews",
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
    # Value types and words of the agent's and the policy's that the front ends show, named here so
    # that a front end imports the session only (the import-graph test forbids `co_tui.agent` and
    # `co_tui.governance` in them). Each resolves to its own light module: the first frame's imports
    # stay what they were (tests/test_start_up_imports.py).
    "Decision": "co_tui.agent.permissions",  # an approval's answer (`Approvals`' too)
    "Grant": "co_tui.agent.permissions",
    "Permissions": "co_tui.agent.permissions",
    "EDIT_TOOLS": "co_tui.agent.approval_text",  # what an approval dialog shows (escaped, diffs folded)
    "ShownCall": "co_tui.agent.approval_text",
    "ShownLine": "co_tui.agent.approval_text",
    "escaped": "co_tui.agent.approval_text",
    "show_call": "co_tui.agent.approval_text",
    "complete_paths": "co_tui.agent.mentions",  # `@path` completion, confined as read_file is
    "mention_being_typed": "co_tui.agent.mentions",
    "walk_index": "co_tui.agent.mentions",
    "mcp_overview": "co_tui.agent.mcp_servers",  # the rows of `/mcp`
    "TRIGGERS": "co_tui.agent.offline_intents",  # the offline model's example prompts (the keys reference)
    "MAX_EXCERPT_CHARS": "co_tui.governance.recover",  # a recovered item's excerpt, at most
}

__all__ = list(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'co_tui.session' has no attribute {name!r}")
    # A session module, or another package's (the store's, the agent's, the policy's), named in full.
    value = getattr(
        importlib.import_module(module if module.startswith("co_tui.") else f"co_tui.session.{module}"), name
    )
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)


if TYPE_CHECKING:  # pragma: no cover - static names for type checkers and IDEs
    from co_tui.agent.approval_text import EDIT_TOOLS, ShownCall, ShownLine, escaped, show_call
    from co_tui.agent.mcp_servers import mcp_overview
    from co_tui.agent.mentions import complete_paths, mention_being_typed, mentions, walk_index
    from co_tui.agent.offline_intents import TRIGGERS
    from co_tui.agent.permissions import Decision, Grant, Permissions
    from co_tui.governance.compact_mode import parse_mode
    from co_tui.governance.recover import MAX_EXCERPT_CHARS
    from co_tui.session.agent_ids import MAIN_AGENT
    from co_tui.session.approvals import ApprovalRequest, Approvals, CannotAsk
    from co_tui.session.ask_cut import PlannedCut
    from co_tui.session.ask_flow import CutAnswer, CutChoice, next_step, plan_before_send, planned_cut_rows
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
    from co_tui.session.compact_mode import COMPACT_MODES
    from co_tui.session.context_breakdown import CATEGORY_TITLES, ContextBreakdown, apportion
    from co_tui.session.conversation_counts import field_of
    from co_tui.session.cost import RequestCost, cached_share, format_usd, preload_pricing, session_cost_of
    from co_tui.session.cut_messages import cut_message
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
    from co_tui.session.eviction import evict_line
    from co_tui.session.export import FORMATS, render_saved
    from co_tui.session.file_rewind import FilesBack
    from co_tui.session.history_rows import HistoryRows, TurnBar, TurnState, read_history_rows, status_label
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
        ContextSteering,
        HistoryView,
        Lifecycle,
        Refused,
        SessionCatalog,
        SessionInfo,
        SessionPort,
        Turns,
    )
    from co_tui.session.replay_items import (
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
    from co_tui.session.shell_previews import ShellPreview, shell_preview
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
    from co_tui.session.user_shell_prompt import USER_SHELL_TOOL, user_shell_command
    from co_tui.session.wording import MODE_TEXT, busy_line, kept_line, print_mode_ask_line
    from co_tui.store.errors import StoreError
    from co_tui.store.search import hit_segments
    from co_tui.store.tail import SessionTail

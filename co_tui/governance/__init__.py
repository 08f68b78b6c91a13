"""Context governance: the policy that keeps what the model sees within budget, honestly.

Pure functions on `list[ModelMessage]` plus one pydantic-ai capability. No Textual, no sqlite.

Exports are resolved lazily (PEP 562): importing `co_tui.governance.events` — which the TUI does at
start-up — must not pull in pydantic-ai.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from co_tui.governance.events import HistoryTrimmed

_EXPORTS: dict[str, str] = {
    # turns and markers
    "Turn": "turns",
    "Layout": "turns",
    "split_turns": "turns",
    "segment": "turns",
    "steps_of": "turns",
    "pair_calls": "turns",
    "check_pairing": "turns",
    "is_marker": "markers",
    "marker_info": "markers",
    "MarkerInfo": "markers",
    "breadcrumb_text": "markers",
    # tokens and the meter
    "estimate_tokens": "tokens",
    "estimate_text_tokens": "tokens",
    "message_tokens": "tokens",
    "TokenMeter": "meter",
    "MeterReading": "meter",
    "TurnGrowth": "lookahead",
    "turn_growth": "lookahead",
    "turns_until_cut": "lookahead",
    # zero-LLM rules
    "trim_tool_returns": "trim",
    "ToolTrimResult": "trim",
    "trim_to_recent_turns": "trim",
    "trim_to_message_count": "trim",
    "TrimResult": "trim",
    "shrink_steps": "step_shrink",
    "ShrinkResult": "step_shrink",
    "fit_to_budget": "trim",
    "FitResult": "trim",
    "min_cut_tokens": "trim",
    # summaries, /compact, /clear
    "SUMMARIZER_INSTRUCTIONS": "summarize",
    "COMPACT_INSTRUCTIONS": "summarize",
    "is_summarization_request": "summarize",
    "summarize_messages": "summarize",
    "compact": "summarize",
    "CompactResult": "summarize",
    "clear_event": "summarize",
    # the policy and its capability
    "GovernancePolicy": "policy_settings",
    "Governor": "policy",
    "PolicyOutcome": "policy",
    "resolve_budget": "policy_settings",
    "ContextGovernance": "capability",
    "HistoryTrimmedEvent": "capability",
    # the /history inspector
    "annotate_history": "inspect",
    "MessageInfo": "inspect",
}

__all__ = ["HistoryTrimmed", *_EXPORTS]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'co_tui.governance' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"co_tui.governance.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)


if TYPE_CHECKING:  # pragma: no cover - static names for type checkers and IDEs
    from co_tui.governance.capability import ContextGovernance, HistoryTrimmedEvent
    from co_tui.governance.inspect import MessageInfo, annotate_history
    from co_tui.governance.lookahead import TurnGrowth, turn_growth, turns_until_cut
    from co_tui.governance.markers import MarkerInfo, breadcrumb_text, is_marker, marker_info
    from co_tui.governance.meter import MeterReading, TokenMeter
    from co_tui.governance.policy import Governor, PolicyOutcome
    from co_tui.governance.policy_settings import GovernancePolicy, resolve_budget
    from co_tui.governance.step_shrink import ShrinkResult, shrink_steps
    from co_tui.governance.summarize import (
        COMPACT_INSTRUCTIONS,
        SUMMARIZER_INSTRUCTIONS,
        CompactResult,
        clear_event,
        compact,
        is_summarization_request,
        summarize_messages,
    )
    from co_tui.governance.tokens import estimate_text_tokens, estimate_tokens, message_tokens
    from co_tui.governance.trim import (
        FitResult,
        ToolTrimResult,
        TrimResult,
        fit_to_budget,
        min_cut_tokens,
        trim_to_message_count,
        trim_to_recent_turns,
        trim_tool_returns,
    )
    from co_tui.governance.turns import Layout, Turn, check_pairing, pair_calls, segment, split_turns, steps_of

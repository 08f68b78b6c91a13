"""Evict: the user removes one tool output, or one older whole turn, from the context.

Never from the transcript: only the model's view changes. What leaves is replaced by a short marker
naming it (tool, arguments, size), so the model knows something was there, and the change is one
`history_trimmed` event (reason `manual_evict`). Tool calls stay paired: an evicted output keeps its
part (and tool-call id) with the marker as its content; an evicted turn leaves with all its calls
and results. The newest turn cannot be evicted — it is what the model answers next.

Pure: the input is never mutated; changed messages are new objects. docs/context-governance.md,
"Evict".
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any, cast

from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelRequestPart,
    SystemPromptPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)

from co_tui.governance.cut_notes import turn_numbers
from co_tui.governance.events import HistoryTrimmed
from co_tui.governance.handles import handle_of, recall_call, recall_turns_call
from co_tui.governance.markers import (
    EVICTED_PREFIX,
    METADATA_KEY,
    is_evicted_output,
    make_evicted_marker,
    marker_info,
    separate_markers,
)
from co_tui.governance.refused import Refused
from co_tui.governance.tokens import content_text, estimate_tokens
from co_tui.governance.turns import segment
from co_tui.text import one_line

__all__ = ["EvictRefused", "EvictResult", "CACHE_WARNING", "evict", "describe_call"]

CACHE_WARNING = (
    "removing something from the middle breaks the provider's prompt cache from that point: "
    "the next request re-sends everything after it at full price"
)
_ARGS_CHARS = 60


class EvictRefused(Refused):
    """An eviction that cannot be done (`Refused`, with `why` and facts: the session words it)."""


@dataclass(frozen=True)
class EvictResult:
    """The new context and the event describing the eviction (`note`: what was removed)."""

    messages: list[ModelMessage]
    event: HistoryTrimmed


def _size(chars: int) -> str:
    return f"{chars:,} chars"


def describe_call(tool_name: str, args: Any) -> str:
    """`read_file(path=src/a.py)`: a tool call in one short line (arguments abbreviated; JSON text
    arguments are read as the object they encode)."""
    if isinstance(args, str):
        try:
            decoded = json.loads(args)
        except ValueError:
            decoded = None
        args = decoded if isinstance(decoded, dict) else args
    if isinstance(args, dict):
        shown = ", ".join(f"{k}={one_line(str(v), _ARGS_CHARS)}" for k, v in args.items())
    elif isinstance(args, str):
        shown = one_line(args, _ARGS_CHARS)
    else:
        shown = ""
    return f"{tool_name}({one_line(shown, _ARGS_CHARS * 2)})"


def _calls_by_id(messages: Sequence[ModelMessage]) -> dict[str, ToolCallPart]:
    calls: dict[str, ToolCallPart] = {}
    for message in messages:
        for part in message.parts:
            if isinstance(part, ToolCallPart):
                calls[part.tool_call_id] = part
    return calls


def _evict_outputs(
    messages: list[ModelMessage], index: int, tokens_before: int, budget_tokens: int, overhead_tokens: int
) -> EvictResult:
    message = messages[index]
    assert isinstance(message, ModelRequest)  # `evict` sends only requests holding tool returns here
    calls = _calls_by_id(messages[:index])
    parts: list[ModelRequestPart] = list(message.parts)
    named: list[str] = []
    for k, original in enumerate(parts):
        # Legacy `RetryPromptPart` results carry no metadata to mark them by: only returns are evicted.
        # Typed returns (tool search, capability loads) hold structured content: left alone.
        if type(original) is not ToolReturnPart or is_evicted_output(original):
            continue
        part: ToolReturnPart[Any] = cast(ToolReturnPart[Any], original)
        call = calls.get(part.tool_call_id)
        what = describe_call(part.tool_name, call.args if call is not None else None)
        chars = len(content_text(part.content))
        handle = handle_of(part)
        back = f"; {recall_call(handle)} returns it" if handle is not None else ""
        text = f"{EVICTED_PREFIX}: the output of {what}, {_size(chars)}; the transcript keeps it{back}]"
        meta = {**(getattr(part, "metadata", None) or {}), METADATA_KEY: {"kind": "evicted", "chars": chars}}
        parts[k] = replace(part, content=text, metadata=meta)
        named.append(f"output of {what}, {_size(chars)}")
    if not named:
        raise EvictRefused(why="evict.already_removed")
    new = [*messages[:index], replace(message, parts=parts), *messages[index + 1 :]]
    layout = segment(new)
    return EvictResult(
        new,
        HistoryTrimmed(
            reason="manual_evict",
            strategy="tool_output_trim",
            kept_turns=len(layout.turns),
            tokens_before=tokens_before + overhead_tokens,
            tokens_after=estimate_tokens(new) + overhead_tokens,
            budget_tokens=budget_tokens,
            note="removed the " + "; the ".join(named),
        ),
    )


def _turn_summary(turn_messages: Sequence[ModelMessage]) -> tuple[str, str | None]:
    """(`"read foo" (4 messages, 2 tool calls: read_file(path=foo))`, the prompt's ISO timestamp)."""
    prompt = ""
    prompt_at: str | None = None
    tools: list[str] = []
    for message in turn_messages:
        for part in message.parts:
            if isinstance(part, UserPromptPart) and not prompt:
                prompt = content_text(part.content)
                stamp = getattr(part, "timestamp", None)
                prompt_at = stamp.isoformat() if stamp is not None else None
            elif isinstance(part, ToolCallPart):
                tools.append(describe_call(part.tool_name, part.args))
    text = f'"{one_line(prompt, 60)}" ({len(turn_messages)} messages'
    if tools:
        text += f", tool calls: {one_line(', '.join(tools), 120)}"
    return text + ")", prompt_at


def evict(
    messages: Sequence[ModelMessage], index: int, *, budget_tokens: int = 0, overhead_tokens: int = 0
) -> EvictResult:
    """Remove what context message `index` holds (an index into `separate_markers(messages)`, as
    the inspector numbers the context): a message with tool outputs loses those outputs (strategy
    `tool_output_trim`: each output's content becomes a marker naming the call and its size); any
    other message of an older turn takes its whole turn with it (strategy `turn_trim`: one eviction
    marker stands where the turn was, naming its prompt and tool calls).

    Raises `EvictRefused` (`why`, facts) for the newest turn, a marker, the system prompt, an output
    already evicted, or an index out of range. Like every event, `tokens_before/after` count the
    request (`overhead_tokens` included) against `budget_tokens`. Pure.
    """
    current = separate_markers(messages)
    if not 0 <= index < len(current):
        raise EvictRefused(why="evict.no_message", index=index)
    tokens_before = estimate_tokens(current)
    message = current[index]
    if marker_info(message) is not None:
        raise EvictRefused(why="evict.marker")
    if isinstance(message, ModelRequest) and any(type(p) is ToolReturnPart for p in message.parts):
        return _evict_outputs(current, index, tokens_before, budget_tokens, overhead_tokens)
    layout = segment(current)
    number = next((n for n, turn in enumerate(layout.turns) if index in turn.indices), None)
    if number is None:
        raise EvictRefused(why="evict.system_prompt")
    if number == len(layout.turns) - 1:
        raise EvictRefused(why="evict.newest_turn")
    turn = layout.turns[number]
    described, prompt_at = _turn_summary(turn.messages)
    turn_number = turn_numbers(layout)[number]
    text = f"{EVICTED_PREFIX}: the turn {described}; the transcript keeps it; {recall_turns_call(turn_number, turn_number)} returns it]"
    marker = make_evicted_marker(len(turn), text, prompt_at)
    first, last = turn.indices[0], turn.indices[-1]
    # The system prompt may ride in the turn's opening request: it stays (as `_system_head` does).
    opening = current[first]
    system_parts = [p for p in opening.parts if isinstance(p, SystemPromptPart)]
    head: list[ModelMessage] = (
        [replace(opening, parts=system_parts)] if system_parts and isinstance(opening, ModelRequest) else []
    )
    new = [*current[:first], *head, marker, *current[last + 1 :]]
    return EvictResult(
        new,
        HistoryTrimmed(
            reason="manual_evict",
            strategy="turn_trim",
            dropped_messages=len(turn),
            dropped_turns=1,
            kept_turns=len(layout.turns) - 1,
            tokens_before=tokens_before + overhead_tokens,
            tokens_after=estimate_tokens(new) + overhead_tokens,
            budget_tokens=budget_tokens,
            note=f"removed the turn {described}",
        ),
    )

"""Handles: the name a tool output keeps in the transcript, so a note can say how to get it back.

Every tool output (`ToolReturnPart`) that enters the transcript is stamped with a handle derived
from its position there: `r{i}` for the first output of transcript message `i`, `r{i}.{k}` for its
k-th further one (parallel calls answered in one request). The transcript is append-only, so a
handle never changes and never repeats — unlike tool-call ids, which real transcripts reuse.

The handle lives in the part's `metadata` (which pydantic-ai keeps, saves and never sends to the
model), together with a short rendering of the call that produced it (`read_file(path="a.py")`),
so every note governance leaves on a cut output can name both without looking elsewhere
(docs/context-governance.md, "Nothing cut is out of reach"). Pure functions: inputs are never
mutated; stamped messages are new objects built with `dataclasses.replace`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse, ToolCallPart, ToolReturnPart

__all__ = [
    "HANDLE_KEY",
    "CALL_KEY",
    "RECALLED_KEY",
    "RECALL_TOOL",
    "handle_of",
    "call_of",
    "recalled_of",
    "parse_handle",
    "recall_call",
    "recall_turns_call",
    "turn_range",
    "stamp_handles",
    "render_call",
]

HANDLE_KEY = "co_tui_handle"
CALL_KEY = "co_tui_call"
# On a recall's own output: the handle of the original it returned (so recalling a recall returns
# that original again, under one header, never a header inside a header).
RECALLED_KEY = "co_tui_recalled"
RECALL_TOOL = "recall"
CALL_CHARS = 80  # a rendered call is at most this long (arguments shortened)
# At most 18 digits a number: a longer one names nothing (and `int` refuses past 4,300 digits).
_HANDLE_RE = re.compile(r"\Ar(\d{1,18})(?:\.(\d{1,18}))?\Z")


def _meta(part: Any) -> dict[str, Any] | None:
    meta = getattr(part, "metadata", None)
    return meta if isinstance(meta, dict) else None


def handle_of(part: Any) -> str | None:
    """The handle stamped on a tool output (`r12`, `r12.1`), or None (not stamped, or not an output)."""
    meta = _meta(part)
    value = meta.get(HANDLE_KEY) if meta is not None else None
    return value if isinstance(value, str) else None


def call_of(part: Any) -> str | None:
    """The call that produced a stamped tool output, as `stamp_handles` rendered it, or None."""
    meta = _meta(part)
    value = meta.get(CALL_KEY) if meta is not None else None
    return value if isinstance(value, str) else None


def recalled_of(part: Any) -> str | None:
    """For the output of a `recall` of a tool output: the handle of the original it returned."""
    meta = _meta(part)
    value = meta.get(RECALLED_KEY) if meta is not None else None
    return value if isinstance(value, str) else None


def parse_handle(handle: str) -> tuple[int, int] | None:
    """(transcript message index, output number within it) of a well-formed handle, else None."""
    m = _HANDLE_RE.match(handle.strip())
    if m is None:
        return None
    return int(m.group(1)), int(m.group(2) or 0)


def _handle(index: int, k: int) -> str:
    return f"r{index}" if k == 0 else f"r{index}.{k}"


def recall_call(handle: str) -> str:
    """The exact call that brings a tool output back: `recall("r12")`."""
    return f'{RECALL_TOOL}("{handle}")'


def turn_range(first: int, last: int) -> str:
    """`"3-5"`, or `"3"` for one turn: how `recall(turns=…)` names a stretch of turns."""
    return str(first) if first == last else f"{first}-{last}"


def recall_turns_call(first: int, last: int) -> str:
    """The exact call that brings turns `first`…`last` (1-based, inclusive) back: `recall(turns="3-5")`."""
    return f'{RECALL_TOOL}(turns="{turn_range(first, last)}")'


def render_call(tool_name: str, args: Any, limit: int = CALL_CHARS) -> str:
    """`tool(key="value", …)` with the arguments shortened to fit `limit` characters.

    Raw (possibly invalid JSON) string arguments are kept as the string. One line."""
    if isinstance(args, str):
        try:
            parsed = json.loads(args) if args.strip() else {}
        except ValueError:
            parsed = args
    else:
        parsed = args
    if isinstance(parsed, dict):
        inner = ", ".join(f"{k}={json.dumps(v, ensure_ascii=False, default=str)}" for k, v in parsed.items())
    elif parsed is None:
        inner = ""
    else:
        inner = json.dumps(parsed, ensure_ascii=False, default=str) if not isinstance(parsed, str) else parsed
    inner = " ".join(inner.split())
    room = max(0, limit - len(tool_name) - 2)
    if len(inner) > room:
        inner = inner[: max(0, room - 1)] + "…"
    return f"{tool_name}({inner})"


def _calls_by_id(response: ModelResponse | None) -> tuple[dict[str, Any], list[Any]]:
    if response is None:
        return {}, []
    calls: list[Any] = [p for p in response.parts if isinstance(p, ToolCallPart)]
    ids = [c.tool_call_id for c in calls]
    return {c.tool_call_id: c for c in calls if ids.count(c.tool_call_id) == 1}, calls


def stamp_handles(messages: Sequence[ModelMessage], start: int) -> list[ModelMessage]:
    """`messages` (about to be appended to the transcript at position `start`) with every tool
    output stamped: its handle and the call that produced it (see the module docstring).

    The call is found in the response just before the output's request, by id when the id is unique
    there, else by position (real transcripts reuse ids, even within a response). Outputs already stamped,
    or whose metadata is not a dict (a tool's own), are left as they are. Messages without a new
    stamp are returned by identity; the input is never mutated.
    """
    out = list(messages)
    previous: ModelResponse | None = None
    for i, message in enumerate(out):
        if isinstance(message, ModelResponse):
            previous = message
            continue
        if not isinstance(message, ModelRequest):
            continue
        by_id, calls = _calls_by_id(previous)
        new_parts: list[Any] | None = None
        k = 0
        for j, part in enumerate(message.parts):
            if not isinstance(part, ToolReturnPart):
                continue
            position, k = k, k + 1
            meta = part.metadata
            if handle_of(part) is not None or (meta is not None and not isinstance(meta, dict)):
                continue
            call = by_id.get(part.tool_call_id)
            if call is None and position < len(calls) and calls[position].tool_name == part.tool_name:
                call = calls[position]
            rendered = render_call(part.tool_name, call.args if call is not None else None)
            stamp = {**(meta or {}), HANDLE_KEY: _handle(start + i, position), CALL_KEY: rendered}
            if new_parts is None:
                new_parts = list(message.parts)
            new_parts[j] = replace(part, metadata=stamp)
        if new_parts is not None:
            out[i] = replace(message, parts=new_parts)
    return out

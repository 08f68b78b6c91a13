"""The messages governance inserts into the context: breadcrumbs, summaries, compactions.

A marker is a `ModelRequest` holding one `UserPromptPart` (so every provider shows it to the model)
whose text says what was removed. It is recognised by our metadata key or, for histories that lost
metadata or were written by hand, by its exact text pattern. Markers are not user turns: the next
cut replaces them and adds up their counts, so they never pile up.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal

from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse, TextPart, UserPromptPart

MarkerKind = Literal["breadcrumb", "summary", "static", "compact", "compact_ack"]

METADATA_KEY = "co_tui_marker"

COMPACT_HEADER = "[Compacted conversation summary]"
COMPACT_ACK = "Understood. I have the conversation context."

_BREADCRUMB_RE = re.compile(
    r"^\[Earlier conversation trimmed — (\d+) messages \((\d+) turns\) removed to stay within the context budget\]$"
)
_SUMMARY_RE = re.compile(r"^\[Summary of (\d+) earlier messages\]\n", re.S)


def breadcrumb_text(messages: int, turns: int) -> str:
    """The breadcrumb's exact text (DESIGN §2); plural forms are fixed so the text is parseable."""
    return f"[Earlier conversation trimmed — {messages} messages ({turns} turns) removed to stay within the context budget]"


def summary_text(messages: int, summary: str) -> str:
    """`[Summary of N earlier messages]` + newline + the summary."""
    return f"[Summary of {messages} earlier messages]\n{summary}"


def compact_text(summary: str) -> str:
    """`[Compacted conversation summary]` + newline + the summary."""
    return f"{COMPACT_HEADER}\n{summary}"


@dataclass(frozen=True)
class MarkerInfo:
    """What a marker stands for: `messages`/`turns` removed before it (cumulative), and its kind."""

    kind: MarkerKind
    messages: int = 0
    turns: int = 0
    summary: str | None = None


def _make(kind: MarkerKind, text: str, messages: int, turns: int, summary: str | None = None) -> ModelRequest:
    meta: dict[str, Any] = {"kind": kind, "messages": messages, "turns": turns}
    return ModelRequest(parts=[UserPromptPart(text)], metadata={METADATA_KEY: meta})


def make_breadcrumb(messages: int, turns: int) -> ModelRequest:
    """A breadcrumb marker for `messages` messages in `turns` turns removed (cumulative)."""
    return _make("breadcrumb", breadcrumb_text(messages, turns), messages, turns)


def make_static_marker(messages: int, turns: int) -> ModelRequest:
    """The marker used when a summary could not be produced: the breadcrumb text, kind `static`."""
    return _make("static", breadcrumb_text(messages, turns), messages, turns)


def make_summary_marker(messages: int, turns: int, summary: str) -> ModelRequest:
    """The summary marker: a `ModelRequest` `[Summary of N earlier messages]\\n…`."""
    return _make("summary", summary_text(messages, summary), messages, turns, summary)


def make_compact_pair(messages: int, turns: int, summary: str, system_parts: list[Any] | None = None) -> list[ModelMessage]:
    """The two-message result of `/compact`: the summary request and the model's acknowledgement.

    `system_parts` (the conversation's leading system prompt, if any) ride in the same request so the
    result stays two messages.
    """
    request = ModelRequest(
        parts=[*(system_parts or []), UserPromptPart(compact_text(summary))],
        metadata={METADATA_KEY: {"kind": "compact", "messages": messages, "turns": turns}},
    )
    ack = ModelResponse(parts=[TextPart(COMPACT_ACK)], metadata={METADATA_KEY: {"kind": "compact_ack"}})
    return [request, ack]


def _only_text(message: ModelMessage) -> str | None:
    """The text of a request made of exactly one str `UserPromptPart` (plus system parts), else None."""
    texts = [p for p in message.parts if getattr(p, "part_kind", "") != "system-prompt"]
    if len(texts) != 1:
        return None
    part = texts[0]
    if not isinstance(part, UserPromptPart) or not isinstance(part.content, str):
        return None
    return part.content


def marker_info(message: ModelMessage) -> MarkerInfo | None:
    """The marker `message` is, or None for an ordinary message.

    Recognised by metadata first, then by exact text (breadcrumb line, summary header, compact
    header); a compact acknowledgement is recognised only by metadata (see `is_compact_ack`).
    """
    meta = (getattr(message, "metadata", None) or {}).get(METADATA_KEY)
    if isinstance(meta, dict) and meta.get("kind") in ("breadcrumb", "summary", "static", "compact", "compact_ack"):
        kind = meta["kind"]
        summary = None
        if kind in ("summary", "compact"):
            text = _only_text(message) or ""
            summary = text.split("\n", 1)[1] if "\n" in text else ""
        return MarkerInfo(kind, int(meta.get("messages", 0) or 0), int(meta.get("turns", 0) or 0), summary)
    if not isinstance(message, ModelRequest):
        return None
    prompt = _only_text(message)
    return None if prompt is None else _text_marker_info(prompt)


def _text_marker_info(text: str) -> MarkerInfo | None:
    """The marker a user-prompt text is by its exact wording (breadcrumb, summary, compact), or None."""
    if not text.startswith("["):
        return None
    if m := _BREADCRUMB_RE.match(text):
        return MarkerInfo("breadcrumb", int(m.group(1)), int(m.group(2)))
    if m := _SUMMARY_RE.match(text):
        return MarkerInfo("summary", int(m.group(1)), 0, text[m.end() :])
    if text.startswith(COMPACT_HEADER + "\n"):
        return MarkerInfo("compact", 0, 0, text[len(COMPACT_HEADER) + 1 :])
    return None


def _split_fused(message: ModelMessage) -> list[ModelMessage] | None:
    """[marker, rest] when `message` is a marker request fused with the request after it, else None."""
    if not isinstance(message, ModelRequest) or len(message.parts) < 2:
        return None
    first = next((i for i, p in enumerate(message.parts) if getattr(p, "part_kind", "") != "system-prompt"), None)
    if first is None or first == len(message.parts) - 1:
        return None
    part = message.parts[first]
    if not isinstance(part, UserPromptPart) or not isinstance(part.content, str):
        return None
    info = _text_marker_info(part.content)
    if info is None or info.kind == "compact":  # a compact request legitimately holds system parts only
        return None
    meta = {"kind": info.kind, "messages": info.messages, "turns": info.turns}
    marker = ModelRequest(parts=[*message.parts[: first + 1]], metadata={METADATA_KEY: meta})
    rest = replace(message, parts=list(message.parts[first + 1 :]))
    return [marker, rest]


def separate_markers(messages: Sequence[ModelMessage]) -> list[ModelMessage]:
    """A new list in which every marker stands alone again. Never mutates its input.

    pydantic-ai merges adjacent requests when a run starts (and `repair_messages` does too), so a
    breadcrumb or summary arrives fused with the user prompt after it and would lose its identity:
    its counts would no longer add up and the prompt would ride along with it. Splitting the fused
    request back into [marker, prompt] restores both. Unfused messages are returned as they are.
    """
    out: list[ModelMessage] | None = None
    for i, message in enumerate(messages):
        split = _split_fused(message)
        if split is not None and out is None:
            out = list(messages[:i])
        if out is not None:
            out.extend(split or [message])
    return list(messages) if out is None else out


def is_compact_ack(message: ModelMessage, previous: ModelMessage | None) -> bool:
    """Whether `message` is the acknowledgement that follows a compact marker."""
    if not isinstance(message, ModelResponse):
        return False
    meta = (message.metadata or {}).get(METADATA_KEY)
    if isinstance(meta, dict) and meta.get("kind") == "compact_ack":
        return True
    if previous is None or (info := marker_info(previous)) is None or info.kind != "compact":
        return False
    return len(message.parts) == 1 and isinstance(message.parts[0], TextPart) and message.parts[0].content == COMPACT_ACK


def is_marker(message: ModelMessage) -> bool:
    """Whether `message` is a breadcrumb, summary, static or compact marker governance inserted.

    (A compact acknowledgement response is part of its marker; `split_turns` treats both as markers.)
    """
    return marker_info(message) is not None

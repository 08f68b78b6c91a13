"""The messages governance inserts into the context: breadcrumbs, summaries, compactions.

A marker is a `ModelRequest` holding one `UserPromptPart` (so every provider shows it to the model)
whose text says what was removed. It is recognised by our metadata key or, for histories that lost
metadata or were written by hand, by its exact text pattern. Markers are not user turns: the next
cut replaces them and adds up their counts, so they never pile up.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
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
    if getattr(part, "part_kind", "") != "user-prompt" or not isinstance(part.content, str):
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
    text = _only_text(message)
    if text is None:
        return None
    if m := _BREADCRUMB_RE.match(text):
        return MarkerInfo("breadcrumb", int(m.group(1)), int(m.group(2)))
    if m := _SUMMARY_RE.match(text):
        return MarkerInfo("summary", int(m.group(1)), 0, text[m.end() :])
    if text.startswith(COMPACT_HEADER + "\n"):
        return MarkerInfo("compact", 0, 0, text[len(COMPACT_HEADER) + 1 :])
    return None


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

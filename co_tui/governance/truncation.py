"""Cutting one tool output: the truncation note, and which outputs are worth cutting at a cap.

A cut output keeps its head and ends with `[…truncated, N chars total — the call; recall("r12")
returns it whole]` (`truncate_text`, `output_note`), so the model knows how much it lost and how to get
it back. Pure: changed parts and messages are new objects (`dataclasses.replace`), memoised per
original object and cap so repeated passes reuse them (and their token counts). `trim` applies these
to a history.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from pydantic_ai.messages import ModelMessage, ModelRequest

from co_tui.governance.handles import call_of, handle_of, recall_call
from co_tui.governance.tokens import _IdentityCache, content_text, part_tokens

__all__ = ["TRUNCATION_MARK", "truncate_text", "output_note", "is_truncated_output", "truncate_in"]

TRUNCATION_MARK = "[…truncated"  # how a shortened tool output's last line starts (the TUI badges it)
# The note's line: `[…truncated, N chars total]`, plus (for an output with a handle) what it was and
# how to get it back before the `]` (alone after the newline when the whole output was cleared to it).
_TRUNC_RE = re.compile(r"\n\[…truncated, (\d+) chars total(?:[^\n]*)\]\Z")


def truncate_text(text: str, max_chars: int, note: str = "") -> str | None:
    """`text[:max_chars] + "\\n[…truncated, N chars total]"`, or None when no cut is needed.

    `note` (what the output was and the `recall` call that brings it back, see `output_note`) goes
    inside the brackets after the total; at `max_chars` 0 only the note line is left (a stub).
    Already-truncated text is recognised: it is cut again only if its visible part is longer than
    `max_chars`, and it keeps the original total N. This is what makes trimming idempotent.
    """
    total = len(text)
    visible = text
    if m := _TRUNC_RE.search(text):
        total = int(m.group(1))
        visible = text[: m.start()]
    elif total <= max_chars:
        return None
    if len(visible) <= max_chars and visible is not text:
        return None
    head = visible[:max_chars]
    line = f"{TRUNCATION_MARK}, {total} chars total{note}]"
    cut = f"{head}\n{line}"
    return cut if len(cut) < len(text) else None  # a "cut" that adds text is no cut


def output_note(part: Any) -> str:
    """What a cut note adds for a stamped tool output (governance/handles.py): ` — the call; recall("r12")
    returns it whole`; "" for an output without a handle (its note stays the plain total)."""
    handle = handle_of(part)
    if handle is None:
        return ""
    call = call_of(part) or f"{getattr(part, 'tool_name', 'tool')}(…)"
    return f" — {call}; {recall_call(handle)} returns it whole"


def is_truncated_output(text: str) -> bool:
    """Whether a tool output's text ends with the note `truncate_text` leaves: the model sees the
    output shortened (the TUI badges its tool call): its last line starts with `TRUNCATION_MARK`."""
    return text.rpartition("\n")[2].startswith(TRUNCATION_MARK)


def _has_media(content: Any) -> bool:
    items = content if isinstance(content, (list, tuple)) else [content]
    return any(
        getattr(item, "kind", None)
        in ("binary", "image-url", "audio-url", "document-url", "video-url", "uploaded-file")
        for item in items
    )


# id(original part) -> truncated part, per cap: repeated passes over the same history reuse the
# same new part objects, so their token counts stay cached.
_TRUNCATED: _IdentityCache[Any] = _IdentityCache()
_NO_CUT = (None,)  # cached "this part is not worth cutting at this cap"


def _truncated_part(part: Any, max_chars: int) -> tuple[Any, int, int] | None:
    """(new part, chars before, chars after) if `part` is a tool return worth cutting to `max_chars`.

    Worth it only when the cut costs fewer tokens: a short output replaced by the truncation note
    (`"Error: not enough"` → `"\\n[…truncated, 17 chars total]"`) has fewer characters but more tokens.
    """
    if getattr(part, "part_kind", "") != "tool-return" or _has_media(part.content):
        return None
    cached = _TRUNCATED.get(part, max_chars)
    if cached is not None:
        return None if cached is _NO_CUT else cached
    text = content_text(part.content)
    cut = truncate_text(text, max_chars, output_note(part))
    result: Any = _NO_CUT
    if cut is not None:
        new = replace(part, content=cut)
        if part_tokens(new) < part_tokens(part):
            result = (new, len(text), len(cut))
    _TRUNCATED.put(part, max_chars, result)
    return None if result is _NO_CUT else result


_TRUNCATED_MESSAGES: _IdentityCache[tuple[ModelMessage, int, int, int]] = _IdentityCache()


def truncate_in(message: ModelMessage, max_chars: int, stub: bool = False) -> tuple[ModelMessage, int, int, int]:
    """(message with long tool returns cut, parts cut, chars before, chars after of those parts).

    `stub`: an output with a handle (which `recall` brings back whole) is cleared to its one-line
    note instead of cut to `max_chars`. Memoised per message object, cap and mode, so passes over
    the same history return the same new message objects (their token counts and classification
    stay cached).
    """
    if not isinstance(message, ModelRequest):
        return message, 0, 0, 0
    key = (id(message.parts), len(message.parts), max_chars, stub)
    cached = _TRUNCATED_MESSAGES.get(message, key)
    if cached is None:
        cached = _truncate_parts(message, max_chars, stub)
        _TRUNCATED_MESSAGES.put(message, key, cached)
    return cached


def _truncate_parts(message: ModelRequest, max_chars: int, stub: bool = False) -> tuple[ModelMessage, int, int, int]:
    new_parts: list[Any] | None = None
    cut = before = after = 0
    for k, part in enumerate(message.parts):
        res = _truncated_part(part, 0 if stub and handle_of(part) is not None else max_chars)
        if res is None:
            continue
        if new_parts is None:
            new_parts = list(message.parts)
        new_parts[k] = res[0]
        cut += 1
        before += res[1]
        after += res[2]
    if new_parts is None:
        return message, 0, 0, 0
    return replace(message, parts=new_parts), cut, before, after

"""Big tool outputs: kept whole in the transcript, previewed in the context.

An output over `tool_output_preview_chars` (default 50,000, near Claude Code's cap) would take a
large share of the budget in the very turn it arrives. The transcript keeps it whole; the model
gets, in the same turn, its head and tail, its size and the `recall` call that reads the rest page
by page (docs/context-governance.md, "Big outputs"). This is how the output enters the context, not
a cut of something the model saw: no `history_trimmed` is emitted for it. Pure.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from pydantic_ai.messages import ModelMessage, ModelRequest, ToolReturnPart

from co_tui.governance.handles import call_of, handle_of, recall_call
from co_tui.governance.tokens import content_text

__all__ = [
    "PREVIEW_MARK",
    "PREVIEW_KEY",
    "HEAD_CHARS",
    "TAIL_CHARS",
    "preview_big_outputs",
    "previewed_chars",
    "preview_text",
    "shown_preview",
]

PREVIEW_MARK = "[…output too big to show whole"  # starts the line between head and tail (the TUI badges it)
PREVIEW_KEY = "co_tui_previewed"  # in a previewed part's metadata: the whole output's length
HEAD_CHARS = 2000
TAIL_CHARS = 1000


def previewed_chars(part: Any) -> int | None:
    """The whole output's length when `part` is a preview (`preview_big_outputs`), else None."""
    meta = getattr(part, "metadata", None)
    value = meta.get(PREVIEW_KEY) if isinstance(meta, dict) else None
    return value if isinstance(value, int) else None


def _around(text: str, says: str) -> str:
    lines = text.count("\n") + 1
    note = f"{PREVIEW_MARK}: {len(text):,} chars, {lines:,} lines; {says}…]"
    return f"{text[:HEAD_CHARS]}\n{note}\n{text[-TAIL_CHARS:]}"


def preview_text(text: str, handle: str, call: str) -> str:
    """The head, a line saying what is left out and how to read it, and the tail of `text`."""
    return _around(
        text,
        f"the middle is left out here — {call}; {recall_call(handle)} returns it whole, page by page (offset/limit)",
    )


def shown_preview(text: str, cap: int) -> str:
    """What a front end shows of a tool output as it arrives (the TUI's row, print mode's jsonl
    `tool_result`): `text` itself up to `cap` characters (`cap <= 0`: always), else the same head
    and tail the model gets, around a line saying so. Its handle is not known yet (it is given when
    the output enters the transcript), so the line names none: the transcript keeps the output whole."""
    if cap <= 0 or len(text) <= cap:
        return text
    return _around(text, "the model gets this head and tail and a recall handle; the transcript keeps it whole")


def preview_big_outputs(messages: Sequence[ModelMessage], cap: int) -> list[ModelMessage]:
    """`messages` with every stamped tool output longer than `cap` characters replaced by its
    preview (`preview_text`); the part keeps its handle and records the whole length. `cap <= 0`
    disables. Outputs without a handle (nothing could bring them back) stay whole. Untouched
    messages are returned by identity; the input is never mutated."""
    out = list(messages)
    if cap <= 0:
        return out
    for i, message in enumerate(out):
        if not isinstance(message, ModelRequest):
            continue
        new_parts: list[Any] | None = None
        for j, found in enumerate(message.parts):
            # Typed returns (tool search, capability loads) hold structured content: left whole.
            if type(found) is not ToolReturnPart or previewed_chars(found) is not None:
                continue
            part: Any = found
            handle = handle_of(part)
            if handle is None:
                continue
            text = content_text(part.content)
            if len(text) <= cap:
                continue
            meta = {**(part.metadata or {}), PREVIEW_KEY: len(text)}
            if new_parts is None:
                new_parts = list(message.parts)
            new_parts[j] = replace(
                part, content=preview_text(text, handle, call_of(part) or part.tool_name), metadata=meta
            )
        if new_parts is not None:
            out[i] = replace(message, parts=new_parts)
    return out

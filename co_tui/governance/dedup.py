"""Repeated reads: an older tool output identical to a newer one becomes a one-line note.

Agents read the same file and run the same command again and again; each copy costs the context as
much as the first. When a pass cuts anyway (`trim.fit_to_budget`, over its trigger: the prompt cache
is lost from the cut on), every older output whose text is identical to a newer output still in the
context becomes the cut-output note, naming the newer copy and the `recall` that returns the older
one whole (docs/context-governance.md, "Repeated reads"):

    […truncated, 4120 chars total — read_file(path="a.py"), the same as r57 later in the context; recall("r12") returns it whole]

Nothing is lost: the transcript keeps the original, and the newer copy says the same. Never the
newest turn's outputs (the model is working with them), never an output without a handle (no
`recall` could bring it back) or holding media, never an output already cut; the newer copy must have
a handle too, so the note can name it. Pinned turns never reach here (the policy takes them out
first). Pure: changed parts and messages are new objects (`dataclasses.replace`), memoised per
original part and newer handle, so repeated passes reuse them and their token counts.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from pydantic_ai.messages import ModelMessage, ModelRequest, ToolReturnPart

from co_tui.governance.handles import call_of, handle_of, recall_call
from co_tui.governance.tokens import _IdentityCache, content_text, message_tokens, part_tokens
from co_tui.governance.truncation import is_truncated_output, remap, truncate_text
from co_tui.governance.turns import Layout, Turn

__all__ = ["DedupResult", "dedupe_outputs", "dedup_note", "SAME_AS"]

SAME_AS = "the same as"  # how a note names the newer copy: `…, the same as r57 later in the context; …`
# Outputs shorter than this are left alone: the note (~40 tokens) would not save enough to matter.
MIN_CHARS = 400


@dataclass(frozen=True)
class DedupResult:
    """What `dedupe_outputs` did: the messages, how many outputs became notes, and the estimate of
    the messages before and after."""

    messages: list[ModelMessage]
    deduplicated: int
    tokens_before: int
    tokens_after: int
    layout: Layout

    @property
    def changed(self) -> bool:
        """Whether any output became a note."""
        return self.deduplicated > 0


def dedup_note(part: Any, newer: str) -> str:
    """What the note of `part` (a stamped tool output) adds after its total: its call, the handle of
    the newer identical output, and the `recall` call that returns `part` whole."""
    call = call_of(part) or f"{getattr(part, 'tool_name', 'tool')}(…)"
    return f" — {call}, {SAME_AS} {newer} later in the context; {recall_call(handle_of(part) or '')} returns it whole"


def _text_of(part: Any) -> str | None:
    """The text to compare of a tool output that may become a note, else None."""
    if not isinstance(part, ToolReturnPart) or handle_of(part) is None:
        return None
    content = part.content
    if not isinstance(content, str):
        if isinstance(content, (list, tuple)) and any(getattr(i, "kind", "") for i in content):
            return None  # media: never cut
        content = content_text(content)
    if len(content) < MIN_CHARS or is_truncated_output(content):
        return None
    return content


# id(original part) -> (newer handle, noted part or None when the note would cost more).
_NOTED: _IdentityCache[Any] = _IdentityCache()


def _noted(part: Any, text: str, newer: str) -> Any | None:
    found = _NOTED.get(part, newer)
    if found is None:
        cut = truncate_text(text, 0, dedup_note(part, newer))
        new = replace(part, content=cut) if cut is not None else None
        found = (new if new is not None and part_tokens(new) < part_tokens(part) else None,)
        _NOTED.put(part, newer, found)
    return found[0]


# A turn's outputs that could become notes, newest first: (position in the turn, part index, part,
# text, handle). Memoised on the turn's first message like a cut note's line (cut_notes.py): the key
# is the turn's messages, which are never mutated, so a repeat pass reads a few tuples a turn.
_CANDIDATES: _IdentityCache[tuple[tuple[int, int, Any, str, str], ...]] = _IdentityCache()


def _candidates(turn: Turn) -> tuple[tuple[int, int, Any, str, str], ...]:
    first = turn.messages[0]
    key = (id(first.parts), len(first.parts), tuple(turn.messages[1:]))
    found = _CANDIDATES.get(first, key)
    if found is None:
        out: list[tuple[int, int, Any, str, str]] = []
        for pos in range(len(turn.messages) - 1, -1, -1):
            message = turn.messages[pos]
            if not isinstance(message, ModelRequest):
                continue
            for k in range(len(message.parts) - 1, -1, -1):
                part = message.parts[k]
                text = _text_of(part)
                if text is not None:
                    out.append((pos, k, part, text, handle_of(part) or ""))
        found = tuple(out)
        _CANDIDATES.put(first, key, found)
    return found


def dedupe_outputs(messages: list[ModelMessage], layout: Layout, tokens: int) -> DedupResult:
    """`messages` (markers already separated; `layout` = `segment(messages)`, `tokens` their
    estimate) with every older tool output identical to a newer one turned into its note (module
    docstring). Never mutates its input; unchanged messages are passed through by identity."""
    newest: dict[str, str] = {}  # text -> handle of its newest copy seen so far (walking back)
    changes: dict[int, list[tuple[int, Any]]] = {}  # message index -> (part index, noted part)
    turns: list[Turn] = layout.turns
    last = len(turns) - 1
    for t in range(last, -1, -1):
        turn = turns[t]
        for pos, k, part, text, handle in _candidates(turn):
            newer = newest.get(text)
            if newer is None or t == last:  # the newest turn's outputs stay as they are
                newest.setdefault(text, handle)
                continue
            noted = _noted(part, text, newer)
            if noted is not None:
                changes.setdefault(turn.indices[pos], []).append((k, noted))
    if not changes:
        return DedupResult(messages, 0, tokens, tokens, layout)
    out = list(messages)
    after = tokens
    for index, parts in changes.items():
        message = out[index]
        assert isinstance(message, ModelRequest)  # only a request's outputs are noted
        new = _with_notes(message, parts)
        after += message_tokens(new) - message_tokens(message)
        out[index] = new
    return DedupResult(out, sum(len(p) for p in changes.values()), tokens, after, remap(layout, out))


# id(message) -> the message with those parts noted: a repeat pass gets the same new message (and
# its cached count). The key names the noted parts by identity; each is kept alive by `_NOTED` as
# long as the original part, which the message holds.
_MESSAGES: _IdentityCache[ModelMessage] = _IdentityCache()


def _with_notes(message: ModelRequest, parts: list[tuple[int, Any]]) -> ModelMessage:
    key = (id(message.parts), len(message.parts), tuple((k, id(noted)) for k, noted in parts))
    found = _MESSAGES.get(message, key)
    if found is None:
        new_parts: list[Any] = list(message.parts)
        for k, noted in parts:
            new_parts[k] = noted
        found = replace(message, parts=new_parts)
        _MESSAGES.put(message, key, found)
    return found

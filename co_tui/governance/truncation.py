"""Cutting old tool outputs: the truncation note, which outputs are worth cutting at a cap, and the
rule that cuts a history's (`trim_tool_returns`, the first of `trim.fit_to_budget`'s rules).

A cut output keeps its head and ends with `[…truncated, N chars total — the call; recall("r12")
returns it whole]` (`truncate_text`, `output_note`), so the model knows how much it lost and how to get
it back. Pure: changed parts and messages are new objects (`dataclasses.replace`), memoised per
original object (or turn) and cap so repeated passes reuse them (and their token counts).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from pydantic_ai.messages import ModelMessage, ModelRequest

from co_tui.governance.handles import call_of, handle_of, recall_call
from co_tui.governance.markers import TRUNCATION_MARK, is_truncated_output, separate_markers
from co_tui.governance.tokens import _IdentityCache, content_text, estimate_tokens, message_tokens, part_tokens
from co_tui.governance.turns import Layout, Turn, segment

__all__ = [
    "TRUNCATION_MARK",
    "truncate_text",
    "output_note",
    "is_truncated_output",
    "truncate_in",
    "ToolTrimResult",
    "trim_tool_returns",
    "remap",
]

# `TRUNCATION_MARK` and `is_truncated_output` live in markers.py (recall and the recall offer read
# them at every request; this module's cuts load at the first cut): re-exported here.

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


@dataclass(frozen=True)
class ToolTrimResult:
    """Result of `trim_tool_returns`. `chars_before`/`chars_after`: text of the truncated parts only."""

    messages: list[ModelMessage]
    trimmed_parts: int
    chars_before: int
    chars_after: int
    layout: Layout | None = field(default=None, repr=False, compare=False)  # of `messages`, for reuse
    # The estimate of `messages` when the trim kept count of it (a `target_tokens` trim), else None.
    tokens: int | None = field(default=None, repr=False, compare=False)
    # index in `messages` of each truncated message → how many of its outputs were cut.
    cut_outputs: dict[int, int] = field(default_factory=dict, repr=False, compare=False)

    @property
    def trimmed(self) -> bool:
        """Whether any tool output was truncated."""
        return self.trimmed_parts > 0


def remap(layout: Layout, messages: list[ModelMessage]) -> Layout:
    """The layout of `messages`, a same-shape copy of `layout.messages` with some messages replaced."""
    return Layout(
        messages,
        list(layout.system),
        list(layout.markers),
        [Turn([messages[i] for i in t.indices], list(t.indices), t.has_prompt) for t in layout.turns],
    )


def trim_tool_returns(
    messages: Sequence[ModelMessage],
    max_chars: int,
    *,
    layout: Layout | None = None,
    target_tokens: int | None = None,
    stub: bool = False,
) -> ToolTrimResult:
    """Truncate `ToolReturnPart` content longer than `max_chars` in every turn but the newest.

    Content becomes `content[:max_chars] + "\n[…truncated, {N} chars total]"`; dict/list content is
    JSON-serialised to measure and to cut. `tool_name`, `tool_call_id` and every other field are
    kept. `max_chars <= 0` disables. Content holding media (images, files) is left alone.
    With `target_tokens`, outputs are cut oldest first, message by message, only until the history's
    estimate is at or under it — one batch, so later passes find nothing left to re-truncate while
    the history is under the budget (docs/context-governance.md, "Economy").
    With `stub`, an output that has a handle (governance/handles.py: `recall` returns it whole) is
    cleared to its one-line note instead — nothing is lost, so nothing of it needs to stay
    (docs/context-governance.md, "The stub policy"); outputs without a handle are cut to `max_chars`.
    (`layout`: an already computed `segment(messages)`, to save a pass.)
    """
    source = separate_markers(messages)
    return trim_outputs(source, max_chars, layout or segment(source), target_tokens, stub)


@dataclass(frozen=True)
class _TurnTrim:
    """One turn's old outputs cut: (position in the turn, new message, outputs cut) per changed
    message, the totals, and the change in the turn's estimate (≤ 0)."""

    changed: tuple[tuple[int, ModelMessage, int], ...] = ()
    cut: int = 0
    before: int = 0
    after: int = 0
    delta: int = 0


# A turn's outputs cut to a cap, memoised on its first message like a cut note's line (cut_notes.py):
# the key is the turn's messages (the first by identity, the others in a tuple compared by identity
# first), the cap and the mode, and every value is a function of those — messages are never mutated.
# A repeat pass takes whole turns from here instead of asking each message's memo.
_TURN_TRIMS: _IdentityCache[_TurnTrim] = _IdentityCache()


def _truncated_turn(turn: Turn, max_chars: int, stub: bool) -> _TurnTrim:
    first = turn.messages[0]
    key = (max_chars, stub, id(first.parts), len(first.parts), tuple(turn.messages[1:]))
    found = _TURN_TRIMS.get(first, key)
    if found is None:
        found = _truncated_turn_until(turn, max_chars, stub, None)
        _TURN_TRIMS.put(first, key, found)
    return found


def _truncated_turn_until(turn: Turn, max_chars: int, stub: bool, excess: int | None) -> _TurnTrim:
    """`turn`'s requests with their outputs cut, oldest first, while the history is over its goal by
    `excess` tokens (None: all of them)."""
    changed: list[tuple[int, ModelMessage, int]] = []
    cut = before = after = delta = 0
    for pos, message in enumerate(turn.messages):
        if excess is not None and excess + delta <= 0:
            break
        if not isinstance(message, ModelRequest):  # only a request holds tool outputs
            continue
        new, n, b, a = truncate_in(message, max_chars, stub)
        if n:
            changed.append((pos, new, n))
            cut += n
            before += b
            after += a
            delta += message_tokens(new) - message_tokens(message)
    return _TurnTrim(tuple(changed), cut, before, after, delta)


def trim_outputs(
    source: list[ModelMessage],
    max_chars: int,
    layout: Layout,
    target_tokens: int | None,
    stub: bool,
    tokens: int | None = None,
) -> ToolTrimResult:
    """`trim_tool_returns` over markers already separated (`tokens`: their estimate, when known)."""
    if max_chars <= 0:
        return ToolTrimResult(source, 0, 0, 0, layout)
    out = list(source)
    cut = before = after = 0
    if target_tokens is not None and tokens is None:
        tokens = estimate_tokens(source)
    cut_outputs: dict[int, int] = {}
    for turn in layout.turns[:-1]:
        if target_tokens is not None and tokens is not None and tokens <= target_tokens:
            break
        whole = _truncated_turn(turn, max_chars, stub)
        if tokens is not None and target_tokens is not None and tokens + whole.delta <= target_tokens:
            whole = _truncated_turn_until(turn, max_chars, stub, tokens - target_tokens)
        for pos, new, n in whole.changed:
            out[turn.indices[pos]] = new
            cut_outputs[turn.indices[pos]] = n
        cut += whole.cut
        before += whole.before
        after += whole.after
        if tokens is not None:
            tokens += whole.delta
    if not cut:
        return ToolTrimResult(source, 0, 0, 0, layout, tokens)
    return ToolTrimResult(out, cut, before, after, remap(layout, out), tokens, cut_outputs)

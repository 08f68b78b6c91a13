"""The zero-LLM rules: truncate old tool outputs, drop oldest whole turns, shrink old steps.

All functions are pure: the input list and its messages/parts are never mutated; changed messages
and parts are new objects built with `dataclasses.replace`. Unchanged messages are passed through by
identity, so token counts stay cached. Each rule is idempotent: running it on its own output
changes nothing.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from pydantic_ai.messages import ModelMessage, ModelRequest, ModelRequestPart, ModelResponse, SystemPromptPart

from co_tui.governance.cut_notes import listing_room, removed_listing
from co_tui.governance.events import HistoryTrimmed, Reason, Strategy
from co_tui.governance.handles import call_of, handle_of, recall_call
from co_tui.governance.markers import make_breadcrumb, marker_text, separate_markers
from co_tui.governance.tokens import _IdentityCache, content_text, estimate_tokens, message_tokens, part_tokens
from co_tui.governance.turns import Layout, Turn, segment, steps_of
from co_tui.text import plural

__all__ = [
    "ToolTrimResult",
    "TrimResult",
    "ShrinkResult",
    "FitResult",
    "trim_tool_returns",
    "trim_to_recent_turns",
    "trim_to_message_count",
    "shrink_steps",
    "fit_to_budget",
    "truncate_text",
    "output_note",
    "is_truncated_output",
    "min_cut_tokens",
]

TRUNCATION_MARK = "[…truncated"  # how a shortened tool output's last line starts (the TUI badges it)
# The note's line: `[…truncated, N chars total]`, plus (for an output with a handle) what it was and
# how to get it back before the `]` (alone after the newline when the whole output was cleared to it).
_TRUNC_RE = re.compile(r"\n\[…truncated, (\d+) chars total(?:[^\n]*)\]\Z")
# Progressive caps for the in-turn step shrink; the last one keeps only the truncation note.
SHRINK_LEVELS = (1000, 200, 0)
KEEP_STEPS = 3


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


def _truncate_in(message: ModelMessage, max_chars: int, stub: bool = False) -> tuple[ModelMessage, int, int, int]:
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

    @property
    def trimmed(self) -> bool:
        """Whether any tool output was truncated."""
        return self.trimmed_parts > 0


def _remap(layout: Layout, messages: list[ModelMessage]) -> Layout:
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
    layout = layout or segment(source)
    if max_chars <= 0:
        return ToolTrimResult(source, 0, 0, 0, layout)
    out = list(source)
    cut = before = after = 0
    tokens = estimate_tokens(source) if target_tokens is not None else 0
    for turn in layout.turns[:-1]:
        for idx, message in zip(turn.indices, turn.messages, strict=False):
            if target_tokens is not None and tokens <= target_tokens:
                break
            new, n, b, a = _truncate_in(message, max_chars, stub)
            if n:
                out[idx] = new
                cut += n
                before += b
                after += a
                if target_tokens is not None:
                    tokens += message_tokens(new) - message_tokens(message)
    if not cut:
        return ToolTrimResult(source, 0, 0, 0, layout)
    return ToolTrimResult(out, cut, before, after, _remap(layout, out))


def min_cut_tokens(budget_tokens: int) -> int:
    """The smallest cut worth making (unless needed to fit): min(10% of the budget, 20,000 tokens).

    Every cut rewrites the context's prefix and so invalidates the provider's prompt cache; a small
    one buys little room for that price (docs/context-governance.md, "Economy").
    """
    return max(0, min(budget_tokens // 10, 20_000))


@dataclass(frozen=True)
class TrimResult:
    """Result of dropping oldest whole turns (docs/context-governance.md).

    `dropped_messages`/`dropped_turns` count what this cut removed (earlier markers' counts are added
    into the new breadcrumb's text, not here); `kept_turns >= 1` whenever the input had a turn.
    """

    messages: list[ModelMessage]
    trimmed: bool
    dropped_messages: int
    dropped_turns: int
    kept_turns: int
    tokens_before: int
    tokens_after: int

    def to_event(
        self, reason: Reason, budget_tokens: int, *, strategy: Strategy = "turn_trim", note: str | None = None
    ) -> HistoryTrimmed:
        """The `history_trimmed` event describing this cut."""
        return HistoryTrimmed(
            reason=reason,
            strategy=strategy,
            dropped_messages=self.dropped_messages,
            dropped_turns=self.dropped_turns,
            kept_turns=self.kept_turns,
            tokens_before=self.tokens_before,
            tokens_after=self.tokens_after,
            budget_tokens=budget_tokens,
            note=note,
        )


def _system_head(layout: Layout, first_kept: int) -> list[ModelMessage]:
    """The leading system prompt, salvaged from the first turn's request when that turn is dropped."""
    head = [layout.messages[i] for i in layout.system]
    if first_kept > 0 and layout.turns and layout.turns[0].has_prompt:
        opening = layout.turns[0].messages[0]
        sys_parts: list[ModelRequestPart] = [p for p in opening.parts if isinstance(p, SystemPromptPart)]
        if sys_parts and isinstance(opening, ModelRequest):  # a turn with a prompt opens with a request
            head.append(replace(opening, parts=sys_parts))
    return head


def _cut(layout: Layout, first_kept: int, tokens_before: int, budget_tokens: int | None = None) -> TrimResult:
    """Keep turns[first_kept:], the system prefix and one breadcrumb carrying all counts.

    `first_kept >= 1`: a cut always removes at least one whole turn. Earlier markers leave with it
    (their counts go into the breadcrumb); they are never rewritten on their own — that would change
    what the model sees (a summary's text, say) while reporting nothing removed.
    """
    assert first_kept >= 1, "a cut removes at least one turn"
    dropped = layout.turns[:first_kept]
    dropped_messages = sum(len(t) for t in dropped)
    listing = removed_listing(layout, first_kept, marker_text, listing_room(budget_tokens))
    breadcrumb = make_breadcrumb(layout.prior_messages + dropped_messages, layout.prior_turns + len(dropped), listing)
    out = _system_head(layout, first_kept) + [breadcrumb]
    for turn in layout.turns[first_kept:]:
        out.extend(turn.messages)
    return TrimResult(
        out, True, dropped_messages, len(dropped), len(layout.turns) - first_kept, tokens_before, estimate_tokens(out)
    )


def _unchanged(messages: list[ModelMessage], layout: Layout, tokens: int) -> TrimResult:
    return TrimResult(messages, False, 0, 0, len(layout.turns), tokens, tokens)


def _keep_from(layout: Layout, fits: Callable[[int, int], bool]) -> int:
    """Index of the oldest turn to keep: walk back from the newest while `fits(tokens, messages)`."""
    turns = layout.turns
    tokens = messages = 0
    first = len(turns)
    for i in range(len(turns) - 1, -1, -1):
        t_tokens = sum(message_tokens(m) for m in turns[i].messages)
        if first < len(turns) and not fits(tokens + t_tokens, messages + len(turns[i])):
            break
        tokens += t_tokens
        messages += len(turns[i])
        first = i
    return first


def trim_to_recent_turns(
    messages: Sequence[ModelMessage], budget_tokens: int, *, layout: Layout | None = None, tokens: int | None = None
) -> TrimResult:
    """Keep the system prompt and the most recent whole turns that fit `budget_tokens`.

    Never splits a turn; always keeps the newest (`kept_turns >= 1`); inserts one breadcrumb right
    after the system prompt, `[Earlier conversation trimmed — N messages (K turns) removed to stay
    within the context budget]`, replacing any earlier marker and adding up its counts. A cut removes
    at least one turn (`dropped_turns >= 1`) and lowers the token count (`tokens_after <
    tokens_before`). Unchanged (same list contents, `trimmed=False`) when the history already fits,
    when there is only one turn, or when the only possible cut would not lower the count (the older
    turns weigh less than the breadcrumb replacing them).
    (`layout`/`tokens`: already computed `segment(messages)` / `estimate_tokens(messages)`.)
    """
    source = separate_markers(messages)
    tokens_before = estimate_tokens(source) if tokens is None else tokens
    layout = layout or segment(source)
    if tokens_before <= budget_tokens or len(layout.turns) <= 1:
        return _unchanged(source, layout, tokens_before)
    # Price the fixed part (system prefix + a breadcrumb with generous digits) before choosing turns.
    fixed = estimate_tokens(_system_head(layout, 1)) + message_tokens(make_breadcrumb(10**6, 10**4))
    first = _keep_from(layout, lambda tokens, _n: fixed + tokens <= budget_tokens)
    # first == 0: every turn fits next to a breadcrumb, so the history is over budget only because of
    # its earlier markers (a summary, a compact pair, several markers). Markers are replaced only by a
    # cut, so the cheapest real cut is the oldest turn — it fits, since the whole of it did.
    first = max(first, 1)
    cut = _cut(layout, first, tokens_before, budget_tokens)
    # The breadcrumb's listing of the removed turns was not priced above (it depends on the cut): one
    # more turn goes while it tips the result over (the listing is capped, so this ends).
    while cut.tokens_after > budget_tokens and first < len(layout.turns) - 1:
        first += 1
        cut = _cut(layout, first, tokens_before, budget_tokens)
    if cut.tokens_after >= tokens_before:
        # Only the newest turn would be left (still over budget) and the older turns weigh less than
        # the breadcrumb: the cut would lose turns and gain nothing. Leave it to the step shrink.
        return _unchanged(source, layout, tokens_before)
    return cut


def trim_to_message_count(messages: Sequence[ModelMessage], max_messages: int) -> TrimResult:
    """Drop oldest whole turns until at most `max_messages` turn messages remain (newest turn kept).

    The message-count trigger of the policy (`max_history_messages`), same breadcrumb rules as
    `trim_to_recent_turns`. Markers and the system prefix are not counted. A cut removes at least one
    turn; it serves the message limit, so when the dropped turns weigh less than the breadcrumb that
    replaces them the token count may rise by up to the breadcrumb's size (reported as such).
    """
    source = separate_markers(messages)
    layout = segment(source)
    tokens = estimate_tokens(source)
    if sum(len(t) for t in layout.turns) <= max_messages or len(layout.turns) <= 1:
        return _unchanged(source, layout, tokens)
    first = _keep_from(layout, lambda _t, n: n <= max_messages)
    if first == 0:
        return _unchanged(source, layout, tokens)
    cut = _cut(layout, first, tokens)
    # The listing is worth its tokens only while the cut still lowers the count.
    return cut if cut.tokens_after <= tokens else _cut(layout, first, tokens, 0)


@dataclass(frozen=True)
class ShrinkResult:
    """Result of the in-turn step shrink of the newest turn."""

    messages: list[ModelMessage]
    shrunk_parts: int
    tokens_before: int
    tokens_after: int
    kept_turns: int

    @property
    def trimmed(self) -> bool:
        """Whether any part of the newest turn was shrunk."""
        return self.shrunk_parts > 0


def _shrink_args(part: Any, cap: int) -> Any | None:
    """A tool call whose huge arguments are replaced by a truncated note (still valid JSON)."""
    if getattr(part, "part_kind", "") != "tool-call":
        return None
    args = part.args
    text = args if isinstance(args, str) else content_text(args) if args is not None else ""
    limit = max(cap, 500)
    if len(text) <= limit or (isinstance(args, dict) and "_truncated_arguments" in args):
        return None
    new = replace(part, args={"_truncated_arguments": text[:limit], "_total_chars": len(text)})
    # JSON-escaping the kept text can cost more than the cut saves (arguments just over the limit).
    return new if part_tokens(new) < part_tokens(part) else None


# id(message) -> {cap: (shrunk message, parts shrunk)}: every level of the step shrink, kept per
# message object. The per-part and per-message truncation caches above hold one cap per object, so
# the shrink's levels (1000, 200, 0) and the tool-output trim's cap evicted each other and every
# pass over a turn that needs the shrink redid it; with this memo a repeat pass (the next request
# of the same turn, the next-cut preview) reuses the same new objects and their token counts.
_SHRUNK: _IdentityCache[dict[int, tuple[ModelMessage, int]]] = _IdentityCache()


def _shrink_message(message: ModelMessage, cap: int) -> tuple[ModelMessage, int]:
    """(message with its tool outputs / huge call arguments cut to `cap`, parts cut). Memoised per
    message object and cap (`_SHRUNK`); never mutates `message`."""
    key = (id(message.parts), len(message.parts))
    levels = _SHRUNK.get(message, key)
    if levels is None:
        levels = {}
        _SHRUNK.put(message, key, levels)
    found = levels.get(cap)
    if found is None:
        found = levels[cap] = _shrink_message_uncached(message, cap)
    return found


def _shrink_message_uncached(message: ModelMessage, cap: int) -> tuple[ModelMessage, int]:
    if isinstance(message, ModelRequest):
        new, n, _, _ = _truncate_in(message, cap)
        return new, n
    if isinstance(message, ModelResponse):
        parts = list(message.parts)
        n = 0
        for k, part in enumerate(parts):
            if (new_part := _shrink_args(part, cap)) is not None:
                parts[k] = new_part
                n += 1
        return (replace(message, parts=parts), n) if n else (message, 0)
    return message, 0


def shrink_steps(messages: Sequence[ModelMessage], budget_tokens: int, *, keep_steps: int = KEEP_STEPS) -> ShrinkResult:
    """Shrink tool outputs (and huge call arguments) in the newest turn's older steps.

    The newest `keep_steps` steps stay verbatim; older steps' results are cut progressively to
    1000, 200, then 0 chars (plus the truncation note) until the history fits or the levels run out.
    Every call keeps its result, so pairing is untouched. Unchanged if it already fits.
    """
    source = separate_markers(messages)
    tokens_before = estimate_tokens(source)
    layout = segment(source)
    if tokens_before <= budget_tokens or not layout.turns:
        return ShrinkResult(source, 0, tokens_before, tokens_before, len(layout.turns))
    turn: Turn = layout.turns[-1]
    steps = steps_of(turn)
    old_positions = [pos for step in steps[: max(0, len(steps) - keep_steps)] for pos in step]
    best: tuple[list[ModelMessage], int, int] | None = None
    for cap in SHRINK_LEVELS:
        out = list(source)
        shrunk = 0
        for pos in old_positions:
            new, n = _shrink_message(turn.messages[pos], cap)
            if n:
                out[turn.indices[pos]] = new
                shrunk += n
        if not shrunk:
            continue
        tokens = estimate_tokens(out)
        best = (out, shrunk, tokens)
        if tokens <= budget_tokens:
            break
    if best is None:
        return ShrinkResult(source, 0, tokens_before, tokens_before, len(layout.turns))
    return ShrinkResult(best[0], best[1], tokens_before, best[2], len(layout.turns))


@dataclass(frozen=True)
class FitResult:
    """Result of `fit_to_budget`: the messages, whether they fit, and one event per rule applied."""

    messages: list[ModelMessage]
    fits: bool
    events: list[HistoryTrimmed] = field(default_factory=list)
    tokens_before: int = 0
    tokens_after: int = 0

    @property
    def trimmed(self) -> bool:
        """Whether any rule applied (one event each)."""
        return bool(self.events)


def _outputs_note(count: int, max_chars: int, stub: bool, *, of_kept_turns: bool = False) -> str:
    """The note of a tool-output trim: how many outputs, cut to what."""
    which = plural(count, "old tool output") + (" of the kept turns" if of_kept_turns else "")
    if stub:
        return f"{which} cleared to a note naming {'its' if count == 1 else 'their'} recall"
    return f"{which} cut to {max_chars} chars"


def fit_to_budget(
    messages: Sequence[ModelMessage],
    budget_tokens: int,
    *,
    tool_output_trim_chars: int = 2000,
    reason: Reason = "token_budget",
    keep_steps: int = KEEP_STEPS,
    layout: Layout | None = None,
    tokens: int | None = None,
    target_tokens: int | None = None,
    min_cut_tokens: int = 0,
    stub: bool = False,
) -> FitResult:
    """The whole zero-LLM pipeline, run only when over `budget_tokens` (the trigger).

    It then cuts down to the goal: `target_tokens` (the low-water mark, `compact_target` × the
    budget; default: the budget itself), and lower still if needed so the pass frees at least
    `min_cut_tokens` — no small cuts (docs/context-governance.md, "Economy"). In order, each rule
    only while the history is over the goal:

    1. truncate old tool outputs, oldest first, as many as needed (`trim_tool_returns`; never the
       newest turn; with `stub`, those `recall` can bring back are cleared to their note);
    2. drop oldest whole turns (`trim_to_recent_turns`);
    3. if the newest turn alone is still over, shrink its older steps (`shrink_steps`).

    Each rule that changed something adds one `HistoryTrimmed` (strategies `tool_output_trim`,
    `turn_trim`, `step_shrink`; `reason` as given) — except that an output trim followed by a turn
    drop is one `turn_trim` event: the drop removed the outputs the trim had cut first, so one
    banner says what the pass did (its `tokens_before` the pass's, its note the outputs of the kept
    turns that stay cut). A pass that frees less than the minimum or stops
    above the goal does so only because the rules ran out (the newest turn is all that is left).
    `.fits` is whether the result is within `budget_tokens`; when even all of that is not enough it
    is false and the caller surfaces an error — never a loop, never a history cut down to the breadcrumb.
    (`layout`/`tokens`: already computed `segment(messages)` / `estimate_tokens(messages)`.)
    """
    current = separate_markers(messages)
    tokens_before = estimate_tokens(current) if tokens is None else tokens
    if tokens_before <= budget_tokens:
        return FitResult(current, True, [], tokens_before, tokens_before)
    goal = budget_tokens if target_tokens is None else min(target_tokens, budget_tokens)
    goal = max(0, min(goal, tokens_before - min_cut_tokens))
    events: list[HistoryTrimmed] = []
    tokens = tokens_before

    layout = layout or segment(current)
    tool = trim_tool_returns(current, tool_output_trim_chars, layout=layout, target_tokens=goal, stub=stub)
    cut_outputs: dict[int, int] = {}  # id(truncated message) → how many of its outputs were cut
    if tool.trimmed:
        after = estimate_tokens(tool.messages)
        cut_outputs = {
            id(new): sum(1 for a, b in zip(new.parts, old.parts, strict=False) if a is not b)
            for new, old in zip(tool.messages, current, strict=False)
            if new is not old
        }
        events.append(
            HistoryTrimmed(
                reason=reason,
                strategy="tool_output_trim",
                kept_turns=len(layout.turns),
                tokens_before=tokens,
                tokens_after=after,
                budget_tokens=budget_tokens,
                note=_outputs_note(tool.trimmed_parts, tool_output_trim_chars, stub),
            )
        )
        current, tokens, layout = tool.messages, after, tool.layout

    if tokens > goal:
        cut = trim_to_recent_turns(current, goal, layout=layout, tokens=tokens)
        if cut.trimmed:
            event = cut.to_event(reason, budget_tokens)
            if events:
                # One cut, one event (one banner): the oldest outputs were cut first and then their
                # turns dropped, so the drop stands for both; the outputs of the turns it keeps that
                # stay cut are named in its note (docs/context-governance.md, "One pass, one banner").
                kept = sum(cut_outputs.get(id(m), 0) for m in cut.messages)
                note = _outputs_note(kept, tool_output_trim_chars, stub, of_kept_turns=True) if kept else None
                event = replace(event, tokens_before=events.pop().tokens_before, note=note)
            events.append(event)
            current, tokens = cut.messages, cut.tokens_after

    if tokens > goal:
        shrink = shrink_steps(current, goal, keep_steps=keep_steps)
        if shrink.trimmed:
            events.append(
                HistoryTrimmed(
                    reason=reason,
                    strategy="step_shrink",
                    kept_turns=shrink.kept_turns,
                    tokens_before=shrink.tokens_before,
                    tokens_after=shrink.tokens_after,
                    budget_tokens=budget_tokens,
                    note=f"{plural(shrink.shrunk_parts, 'tool output')} in older steps of the current turn shrunk",
                )
            )
            current, tokens = shrink.messages, shrink.tokens_after

    return FitResult(current, tokens <= budget_tokens, events, tokens_before, tokens)

"""The zero-LLM rules: truncate old tool outputs, drop oldest whole turns, shrink old steps.

All functions are pure: the input list and its messages/parts are never mutated; changed messages
and parts are new objects built with `dataclasses.replace`. Unchanged messages are passed through by
identity, so token counts stay cached. Each rule is idempotent: running it on its own output
changes nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from operator import is_
from typing import Any, TypeVar

from pydantic_ai.messages import ModelMessage, ModelRequest, ModelRequestPart, SystemPromptPart

from co_tui.governance.cut_notes import listing_room, removed_listing
from co_tui.governance.dedup import dedupe_outputs
from co_tui.governance.events import HistoryTrimmed, Reason, Strategy
from co_tui.governance.markers import make_breadcrumb, marker_text, separate_markers
from co_tui.governance.step_shrink import KEEP_STEPS, shrink_steps
from co_tui.governance.tokens import (
    _IdentityCache,
    estimate_tokens,
    message_tokens,
    prime_message_tokens,
    sum_message_tokens,
)
from co_tui.governance.truncation import (
    TRUNCATION_MARK,
    ToolTrimResult,
    is_truncated_output,
    output_note,
    trim_outputs,
    trim_tool_returns,
    truncate_text,
)
from co_tui.governance.turns import Layout, segment
from co_tui.text import plural

__all__ = [
    "ToolTrimResult",
    "TrimResult",
    "FitResult",
    "trim_tool_returns",
    "trim_to_recent_turns",
    "trim_to_message_count",
    "fit_to_budget",
    "truncate_text",
    "output_note",
    "is_truncated_output",
    "min_cut_tokens",
    "TRUNCATION_MARK",
]


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


def _cut(
    layout: Layout,
    first_kept: int,
    tokens_before: int,
    budget_tokens: int | None = None,
    turn_tokens: _TurnTokens | None = None,
) -> TrimResult:
    """Keep turns[first_kept:], the system prefix and one breadcrumb carrying all counts.

    `first_kept >= 1`: a cut always removes at least one whole turn. Earlier markers leave with it
    (their counts go into the breadcrumb); they are never rewritten on their own — that would change
    what the model sees (a summary's text, say) while reporting nothing removed.
    """
    assert first_kept >= 1, "a cut removes at least one turn"
    dropped = layout.turns[:first_kept]
    dropped_messages = sum(len(t) for t in dropped)
    listing = removed_listing(layout, first_kept, marker_text, listing_room(budget_tokens))
    breadcrumb = _priced_breadcrumb(
        layout.prior_messages + dropped_messages, layout.prior_turns + len(dropped), listing
    )
    out = _system_head(layout, first_kept) + [breadcrumb]
    for turn in layout.turns[first_kept:]:
        out.extend(turn.messages)
    # `turn_tokens` (each turn's estimate, `_turn_tokens`): the kept turns are not counted again.
    after = (
        estimate_tokens(out)
        if turn_tokens is None
        else estimate_tokens(out[: len(out) - sum(len(t) for t in layout.turns[first_kept:])])
        + turn_tokens.kept_from(first_kept)
    )
    return TrimResult(out, True, dropped_messages, len(dropped), len(layout.turns) - first_kept, tokens_before, after)


# A breadcrumb's estimate by its text: each pass that makes the same cut builds a new breadcrumb (its
# own object, as every marker), and counting its listing again was a tenth of a repeat pass. The
# estimate is a function of the text alone; bounded, as the texts of a session's cuts are few.
_BREADCRUMB_TOKENS: dict[str, int] = {}


def _priced_breadcrumb(messages: int, turns: int, listing: str = "") -> ModelRequest:
    breadcrumb = make_breadcrumb(messages, turns, listing)
    text = marker_text(breadcrumb) or ""
    known = _BREADCRUMB_TOKENS.get(text)
    if known is None:
        if len(_BREADCRUMB_TOKENS) >= 64:
            _BREADCRUMB_TOKENS.clear()
        _BREADCRUMB_TOKENS[text] = message_tokens(breadcrumb)
    else:
        prime_message_tokens([breadcrumb], [known])
    return breadcrumb


def _unchanged(messages: list[ModelMessage], layout: Layout, tokens: int) -> TrimResult:
    return TrimResult(messages, False, 0, 0, len(layout.turns), tokens, tokens)


# Each layout's turn estimates (`_TurnTokens`), kept with the layout object: a repeat pass over a
# memoised layout (`_step`) sums no turn again. A layout is never mutated, nor are its messages.
_TURN_TOKENS: _IdentityCache[_TurnTokens] = _IdentityCache()


class _TurnTokens:
    """Each turn's estimate, counted when first asked for: a cut walks back from the newest turn and
    sums only the turns it keeps, so the dropped ones are never counted."""

    __slots__ = ("_turns", "_known")

    def __init__(self, layout: Layout) -> None:
        self._turns = layout.turns
        self._known: dict[int, int] = {}

    def __getitem__(self, i: int) -> int:
        known = self._known.get(i)
        if known is None:
            known = self._known[i] = sum_message_tokens(self._turns[i].messages)
        return known

    def kept_from(self, first: int) -> int:
        """The estimate of turns[first:]."""
        return sum(self[i] for i in range(first, len(self._turns)))


def _keep_from(layout: Layout, fits: Callable[[int, int], bool], turn_tokens: _TurnTokens | None = None) -> int:
    """Index of the oldest turn to keep: walk back from the newest while `fits(tokens, messages)`."""
    turns = layout.turns
    tokens = messages = 0
    first = len(turns)
    for i in range(len(turns) - 1, -1, -1):
        t_tokens = turn_tokens[i] if turn_tokens is not None else sum(message_tokens(m) for m in turns[i].messages)
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
    return _drop_turns(source, budget_tokens, layout or segment(source), tokens)


def _drop_turns(source: list[ModelMessage], budget_tokens: int, layout: Layout, tokens: int | None) -> TrimResult:
    """`trim_to_recent_turns` over markers already separated."""
    tokens_before = estimate_tokens(source) if tokens is None else tokens
    if tokens_before <= budget_tokens or len(layout.turns) <= 1:
        return _unchanged(source, layout, tokens_before)
    # Price the fixed part (system prefix + a breadcrumb with generous digits) before choosing turns.
    fixed = estimate_tokens(_system_head(layout, 1)) + message_tokens(_priced_breadcrumb(10**6, 10**4))
    turn_tokens = _TURN_TOKENS.get(layout, None)
    if turn_tokens is None:
        turn_tokens = _TurnTokens(layout)
        _TURN_TOKENS.put(layout, None, turn_tokens)
    first = _keep_from(layout, lambda tokens, _n: fixed + tokens <= budget_tokens, turn_tokens)
    # first == 0: every turn fits next to a breadcrumb, so the history is over budget only because of
    # its earlier markers (a summary, a compact pair, several markers). Markers are replaced only by a
    # cut, so the cheapest real cut is the oldest turn — it fits, since the whole of it did.
    first = max(first, 1)
    cut = _cut(layout, first, tokens_before, budget_tokens, turn_tokens)
    # The breadcrumb's listing of the removed turns was not priced above (it depends on the cut): one
    # more turn goes while it tips the result over (the listing is capped, so this ends).
    while cut.tokens_after > budget_tokens and first < len(layout.turns) - 1:
        first += 1
        cut = _cut(layout, first, tokens_before, budget_tokens, turn_tokens)
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
    dedupe: bool = True,
) -> FitResult:
    """The whole zero-LLM pipeline, run only when over `budget_tokens` (the trigger).

    It then cuts down to the goal: `target_tokens` (the low-water mark, `compact_target` × the
    budget; default: the budget itself), and lower still if needed so the pass frees at least
    `min_cut_tokens` — no small cuts (docs/context-governance.md, "Economy"). First, as the pass cuts
    anyway, with `dedupe` every older tool output identical to a newer one becomes a note naming it
    (`dedup.dedupe_outputs`, never in the newest turn). Then, in order, each rule only while the
    history is over the goal:

    1. truncate old tool outputs, oldest first, as many as needed (`trim_tool_returns`; never the
       newest turn; with `stub`, those `recall` can bring back are cleared to their note);
    2. drop oldest whole turns (`trim_to_recent_turns`);
    3. if the newest turn alone is still over, shrink its older steps (`shrink_steps`).

    Each rule that changed something adds one `HistoryTrimmed` (strategies `tool_output_trim`,
    `turn_trim`, `step_shrink`; `reason` as given) — except that an output trim followed by a turn
    drop is one `turn_trim` event: the drop removed the outputs the trim had cut first, so one
    banner says what the pass did (its `tokens_before` the pass's, its note the outputs of the kept
    turns that stay cut). Outputs the dedup noted are counted in the pass's first event
    (`deduplicated_outputs`, its `tokens_before` the pass's); alone, it is a `tool_output_trim`. A pass that frees less than the minimum or stops
    above the goal does so only because the rules ran out (the newest turn is all that is left).
    `.fits` is whether the result is within `budget_tokens`; when even all of that is not enough it
    is false and the caller surfaces an error — never a loop, never a history cut down to the breadcrumb.
    (`layout`/`tokens`: already computed `segment(messages)` / `estimate_tokens(messages)`.)
    """
    prepared = layout is None and tokens is None  # then each step's result is memoised on its input layout
    if prepared:
        current, layout, tokens = _prepared(messages)
    else:
        current = separate_markers(messages)
    tokens_before = estimate_tokens(current) if tokens is None else tokens
    if tokens_before <= budget_tokens:
        return FitResult(current, True, [], tokens_before, tokens_before)
    goal = budget_tokens if target_tokens is None else min(target_tokens, budget_tokens)
    goal = max(0, min(goal, tokens_before - min_cut_tokens))
    events: list[HistoryTrimmed] = []
    tokens = tokens_before

    laid: Layout = layout or segment(current)
    deduplicated = 0
    if dedupe:
        source, counted = current, tokens
        dedup = _step(prepared, laid, ("dedup", counted), lambda: dedupe_outputs(source, laid, counted))
        if dedup.changed:
            deduplicated = dedup.deduplicated
            current, tokens, laid = dedup.messages, dedup.tokens_after, dedup.layout
    layout = laid
    source, counted = current, tokens
    tool = _step(
        prepared,
        laid,
        ("outputs", tool_output_trim_chars, goal, stub, counted),
        lambda: trim_outputs(source, tool_output_trim_chars, laid, goal, stub, counted),
    )
    cut_outputs: dict[int, int] = {}  # index of a truncated message → how many of its outputs were cut
    if tool.trimmed:
        after = estimate_tokens(tool.messages) if tool.tokens is None else tool.tokens
        cut_outputs = tool.cut_outputs
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
        cut = _drop_turns(current, goal, layout or segment(current), tokens)
        if cut.trimmed:
            event = cut.to_event(reason, budget_tokens)
            if events:
                # One cut, one event (one banner): the oldest outputs were cut first and then their
                # turns dropped, so the drop stands for both; the outputs of the turns it keeps that
                # stay cut are named in its note (docs/context-governance.md, "One pass, one banner").
                first_kept = layout.turns[cut.dropped_turns].indices[0] if layout else 0
                kept = sum(n for index, n in cut_outputs.items() if index >= first_kept)
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

    if deduplicated:
        kept = len(layout.turns) if layout else 0  # read only when the dedup alone cut: its layout
        events = _with_dedup(events, deduplicated, reason, kept, tokens_before, tokens, budget_tokens)
    return FitResult(list(current), tokens <= budget_tokens, events, tokens_before, tokens)


# A step's result on a layout `_prepared` made (or a step made from one), memoised on that layout
# object: the same input objects give the same layout object, so a repeat pass gets the same
# results, their layouts, and so on down the pass. The key holds every other argument; a layout is
# never mutated, and the lists in a result are copied before they are handed out.
_STEPS: _IdentityCache[dict[tuple[Any, ...], Any]] = _IdentityCache()
_R = TypeVar("_R")


def _step(memoised: bool, layout: Layout, key: tuple[Any, ...], make: Callable[[], _R]) -> _R:
    if not memoised:
        return make()
    steps = _STEPS.get(layout, None)
    if steps is None:
        steps = {}
        _STEPS.put(layout, None, steps)
    if key not in steps:
        steps[key] = make()
    result: _R = steps[key]
    return result


# The last few inputs of `fit_to_budget` taken apart (markers separated, layout, estimate), kept
# with the very message objects (and parts lists) they were made from: a pass over the same objects
# again — the meter's and the preview's look before the request's own pass, a repeat request —
# takes them from here instead of walking the whole context three times. A match is by identity
# only, each message's and its parts list's (so a message given new parts is taken apart afresh),
# and governance never mutates a message; the lists handed out are copies, the layout is read only.
_Key = tuple[tuple[ModelMessage, ...], tuple[Sequence[Any], ...], list[int]]
_PREPARED: list[tuple[_Key, list[ModelMessage], Layout, int]] = []
PREPARED_KEPT = 4


def _prepared(messages: Sequence[ModelMessage]) -> tuple[list[ModelMessage], Layout, int]:
    """(`messages` with markers separated, their layout, their estimate)."""
    parts = [m.parts for m in messages]
    for (kept, kept_parts, kept_lengths), separated, layout, tokens in _PREPARED:
        # Element by element by identity, in C (`operator.is_`): no message is compared by value.
        if (
            len(kept) == len(messages)
            and all(map(is_, messages, kept))
            and all(map(is_, parts, kept_parts))
            and list(map(len, parts)) == kept_lengths
        ):
            return list(separated), layout, tokens
    separated = separate_markers(messages)
    layout = segment(separated)
    tokens = sum_message_tokens(separated)
    _PREPARED.insert(0, ((tuple(messages), tuple(parts), list(map(len, parts))), separated, layout, tokens))
    del _PREPARED[PREPARED_KEPT:]
    return list(separated), layout, tokens


def _with_dedup(
    events: list[HistoryTrimmed],
    count: int,
    reason: Reason,
    kept_turns: int,
    tokens_before: int,
    tokens_after: int,
    budget_tokens: int,
) -> list[HistoryTrimmed]:
    """The pass's events with its dedup counted in the first (one pass, one banner), or the one
    event of a pass whose dedup alone reached the goal."""
    words = f"{count} repeated tool output{'s' if count != 1 else ''} replaced by a note naming the newer copy"
    if not events:
        return [
            HistoryTrimmed(
                reason=reason,
                strategy="tool_output_trim",
                kept_turns=kept_turns,
                tokens_before=tokens_before,
                tokens_after=tokens_after,
                budget_tokens=budget_tokens,
                note=words,
                deduplicated_outputs=count,
            )
        ]
    first = events[0]
    note = f"{words}; {first.note}" if first.note else words
    return [replace(first, tokens_before=tokens_before, note=note, deduplicated_outputs=count), *events[1:]]

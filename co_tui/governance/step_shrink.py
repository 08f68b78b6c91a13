"""The in-turn step shrink: the newest turn's older steps, their tool outputs and huge call
arguments cut progressively, when that turn alone is over the budget (`fit_to_budget`'s last rule,
and overflow recovery's).

Pure, as every rule of trim.py: the input list and its messages and parts are never mutated; the
shrunk ones are new objects (memoised per message object, so a repeat pass reuses them and their
token counts). Every call keeps its result, so pairing is untouched; idempotent.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse

from co_tui.governance.markers import separate_markers
from co_tui.governance.tokens import _IdentityCache, content_text, estimate_tokens, part_tokens
from co_tui.governance.truncation import truncate_in
from co_tui.governance.turns import Turn, segment, steps_of

__all__ = ["KEEP_STEPS", "SHRINK_LEVELS", "ShrinkResult", "shrink_steps"]

# Progressive caps for the in-turn step shrink; the last one keeps only the truncation note.
SHRINK_LEVELS = (1000, 200, 0)
KEEP_STEPS = 3


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
        new, n, _, _ = truncate_in(message, cap)
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

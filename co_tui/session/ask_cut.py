"""`compact_mode = "ask"`: the cut a send would make, planned before anything is sent, so the user
decides (docs/context-governance.md, "Compact mode").

`plan_send` is pure over a `HistoryReader` (a read-only `History`) and a `Gauge`, like the other planners: it runs the next-cut
preview (`governance.next_cut.preview_next_cut`, the policy's own rules, no model call) with the
prompt the user is sending, and states it as a `PlannedCut` — what goes, what stays, the figures
in the meter's readings, and what the cut costs the provider's prompt cache. The front end shows it
and hands the choice back to `run_turn` (`SendChoice`: cut, or over the budget once).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from pydantic_ai.messages import ModelMessage, ModelRequest, UserPromptPart

from co_tui.governance.markers import separate_markers
from co_tui.governance.next_cut import preview_next_cut
from co_tui.governance.pins import split_pinned
from co_tui.governance.tokens import estimate_tokens
from co_tui.governance.turns import segment
from co_tui.session.context_diff import shared_prefix
from co_tui.session.eviction import plan_compact_preview
from co_tui.text import format_tokens, one_line

if TYPE_CHECKING:
    from co_tui.session.gauge import Gauge
    from co_tui.session.history_reader import HistoryReader

__all__ = ["PROMPT_CHARS", "PlannedCut", "plan_send"]

PROMPT_CHARS = 60  # a going or staying turn is named by its prompt, on one line this long at most


@dataclass(frozen=True)
class PlannedCut:
    """The cut a send would make (`compact_mode` ask), in the meter's figures.

    `going_*`: the messages and turns the cut removes or summarises (`summarised` of them into a
    summary), `going_prompts` their prompts, oldest first; `shortened` tool outputs it truncates;
    `kept_turns` the turns the model still sees (`pinned_turns` of them pinned, the new prompt not
    counted), `kept_prompts` theirs. `tokens_before`: the request with the prompt and no cut;
    `tokens_after`: the request after the cut (its summary at the longest it may be). Of that,
    `cached_tokens` start as the last request did (the instructions and the leading messages the cut
    leaves in place: the provider's cache reads them back) and `fresh_tokens` are read afresh once;
    without the cut only `uncut_fresh_tokens` (the new prompt) would be. `summarised_tokens`: what a
    summariser call would read (0: no summary). `compact_tokens_after`: the request after `/compact`
    instead (its preview's upper estimate, plus the prompt; None: nothing to compact)."""

    reason: str
    kind: str
    going_messages: int
    going_turns: int
    summarised: int
    shortened: int
    kept_turns: int
    pinned_turns: int
    going_prompts: tuple[str, ...]
    kept_prompts: tuple[str, ...]
    tokens_before: int
    tokens_after: int
    budget_tokens: int
    window_tokens: int
    window_is_guess: bool
    cached_tokens: int
    fresh_tokens: int
    uncut_fresh_tokens: int
    summarised_tokens: int
    compact_tokens_after: int | None = None

    @property
    def over_budget_refusal(self) -> str | None:
        """The one line refusing "send over the budget once" (the request would pass the model's
        window), or None when it is allowed."""
        if self.tokens_before <= self.window_tokens:
            return None
        guess = " (assumed)" if self.window_is_guess else ""
        return (
            f"~{format_tokens(self.tokens_before)} tokens would pass the {format_tokens(self.window_tokens)} "
            f"window{guess}: not sent over the budget"
        )

    @property
    def over_budget_line(self) -> str:
        """The chat's trace of "send over the budget once" chosen: one line with the figures."""
        return (
            f"sent over the budget once, as you chose: ~{format_tokens(self.tokens_before)} tokens against "
            f"the {format_tokens(self.budget_tokens)} budget; nothing was cut (the next send asks again)"
        )


def _prompt_of(messages: Sequence[ModelMessage]) -> str:
    for message in messages:
        if isinstance(message, ModelRequest):
            for part in message.parts:
                if isinstance(part, UserPromptPart) and isinstance(part.content, str):
                    return one_line(part.content, PROMPT_CHARS)
    return "(no prompt)"


def plan_send(
    history: HistoryReader, gauge: Gauge, prompt: str, *, window_tokens: int, window_is_guess: bool = False
) -> PlannedCut | None:
    """The cut sending `prompt` now would make (the policy's own rules on the context plus the
    prompt; no model call), or None when it goes out uncut. `window_tokens`: the model's context
    window (the fallback's when `window_is_guess`). Pure; never mutates the history."""
    context = list(history.context)
    cut = preview_next_cut(gauge.governor, context, overhead_tokens=gauge.overhead_tokens, prompt=prompt)
    if cut is None:
        return None
    meter = gauge.meter
    current = separate_markers(context)
    request = ModelRequest(parts=[UserPromptPart(prompt)])
    layout = segment(current)
    going_turns = [t for t in layout.turns if all(cut.fates.get(i) in ("summarised", "dropped") for i in t.indices)]
    going_ids = {id(t) for t in going_turns}
    kept = [t for t in layout.turns if id(t) not in going_ids]
    pinned = len(split_pinned(current, gauge.governor.pins).pinned) if gauge.governor.pins else 0
    after = list(cut.after)
    ratio = getattr(meter, "ratio", 1.0)
    overhead = getattr(meter, "overhead", 0)
    tokens_before = meter.reading([*context, request]).tokens
    # The meter's own reading of the request the cut leaves (as a cut's banner gives it), its summary
    # stand-in counted at the longest summary it may be.
    tokens_after = min(tokens_before, meter.reading(after).tokens + round(ratio * cut.summary_tokens))
    shared = shared_prefix(current, after)
    cached = min(tokens_after, overhead + round(ratio * estimate_tokens(current[:shared]))) if shared else overhead
    summarised = [current[i] for i, fate in sorted(cut.fates.items()) if fate == "summarised"]
    uncut_fresh = max(0, tokens_before - meter.reading(context).tokens)
    compact = plan_compact_preview(history, gauge)  # the `/compact` answer's own figures, as its dialog gives them
    return PlannedCut(
        reason=cut.reason,
        kind=cut.kind,
        going_messages=len(cut.going),
        going_turns=len(going_turns),
        summarised=len(summarised),
        shortened=sum(1 for fate in cut.fates.values() if fate == "truncated"),
        kept_turns=len(kept),
        pinned_turns=pinned,
        going_prompts=tuple(_prompt_of(t.messages) for t in going_turns),
        kept_prompts=tuple(_prompt_of(t.messages) for t in kept),
        tokens_before=tokens_before,
        tokens_after=tokens_after,
        budget_tokens=gauge.budget_tokens,
        window_tokens=window_tokens,
        window_is_guess=window_is_guess,
        cached_tokens=min(cached, tokens_after),
        fresh_tokens=max(0, tokens_after - cached),
        uncut_fresh_tokens=uncut_fresh,
        summarised_tokens=round(ratio * estimate_tokens(summarised)) if summarised else 0,
        compact_tokens_after=None if compact is None else compact.tokens_after + uncut_fresh,
    )

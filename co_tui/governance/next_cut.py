"""See the next cut coming: what the next automatic cut would remove or summarise, and `/compact`'s
estimate — computed with the policy's own rules, without calling any model.

`preview_next_cut` runs `Governor.apply`'s own steps (`Governor.plan_pass` and `finish_pass`,
policy.py: pinned turns out, `plan_cut`, `finish_cut`, pinned turns back) on the context plus a stand-in for the next prompt (its text is unknown until typed),
with the summary step done by its zero-LLM stand-in (the static marker, what a failed summary leaves): which messages the summary
would cover, which a trim would drop and which outputs would be shortened are then read off by
identity (governance passes untouched messages through as they are). Pure.
docs/context-governance.md, "See the next cut coming".
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Literal

from pydantic_ai.messages import ModelMessage, ModelRequest, UserPromptPart

from co_tui.governance.events import HistoryTrimmed, Reason, Strategy
from co_tui.governance.markers import separate_markers
from co_tui.governance.pins import split_pinned
from co_tui.governance.policy import Governor
from co_tui.governance.tokens import estimate_tokens
from co_tui.governance.turns import segment

__all__ = ["NextCut", "preview_next_cut", "compact_estimate"]

Fate = Literal["summarised", "dropped", "truncated"]


@dataclass(frozen=True)
class NextCut:
    """What the next send would cut: its reason, its strategies in order, and per context message
    (index into `separate_markers(context)`, as the inspector numbers it) the fate of those it
    touches."""

    reason: Reason
    strategies: tuple[Strategy, ...]
    fates: dict[int, Fate]
    # The request the cut would leave (its summary by the static marker's stand-in; the next prompt
    # last), and the longest summary it would hold (0: no summary): what the ask dialog's figures read.
    after: tuple[ModelMessage, ...] = field(default=(), compare=False, repr=False)
    summary_tokens: int = field(default=0, compare=False)

    @property
    def kind(self) -> Strategy:
        """The main cut: a summary (or its failure's marker) or a turn trim over output shortening."""
        for strategy in ("summary", "turn_trim", "step_shrink"):
            if strategy in self.strategies:
                return strategy
        return self.strategies[0] if self.strategies else "turn_trim"

    @property
    def going(self) -> list[int]:
        """Context indices the cut would remove or summarise (the inspector's `next to go`)."""
        return sorted(i for i, fate in self.fates.items() if fate in ("summarised", "dropped"))


def preview_next_cut(
    governor: Governor,
    context: Sequence[ModelMessage],
    *,
    overhead_tokens: int = 0,
    summarizer_available: bool = True,
    prompt: str = "",
) -> NextCut | None:
    """The cut the next request (the context plus the next prompt, `prompt` when it is known) would
        trigger, or None when it would go out unchanged. `Governor.apply`'s own planning and cuts, pinned turns kept out of them
    as `apply` keeps them (never `going`); the summary is assumed to come
        back (a failed one leaves the same messages out, behind the static marker). Never mutates
        `context`; never calls a model."""
    current = separate_markers(context)
    probe = ModelRequest(parts=[UserPromptPart(prompt)])  # the next prompt ("" when not typed yet)
    split, plan = governor.plan_pass([*current, probe], overhead_tokens=overhead_tokens, summarize=summarizer_available)
    if plan.reason is None:
        return None
    # A cut is coming: the inspector and the summary's stand-in are loaded by the first one (a new
    # session's meter previews none).
    from co_tui.governance.inspect import annotate_history
    from co_tui.governance.summarize import apply_summary, summary_size_limit, summary_token_budget

    strategies: list[Strategy] = []
    summarised: set[int] = set()
    pending: list[ModelMessage] | None = None
    summary_tokens = 0
    if plan.window is not None:
        summarised = {id(m) for m in plan.window.middle_messages}
        pending = apply_summary(plan.window, None)[0]
        strategies.append("summary")
        summary_tokens = summary_size_limit(summary_token_budget(plan.window.middle_messages))
    pending, _tokens, events = governor.finish_pass(split, plan, pending)
    strategies += [event.strategy for event in events]
    if not strategies:
        return None
    fates: dict[int, Fate] = {}
    # Where each message went is read off the cut's output, never off the markers around it: a
    # pinned turn put back after the cut's marker made the messages cut after it look like the
    # request being sent (newest, with no marker after them).
    for info in annotate_history(current, [m for m in pending if m is not probe]):
        if id(current[info.index]) in summarised:
            fates[info.index] = "summarised"
        elif info.context_index is None:
            fates[info.index] = "dropped"
        elif info.status == "truncated":
            fates[info.index] = "truncated"
    return NextCut(plan.reason, tuple(strategies), fates, tuple(pending), summary_tokens)


def compact_estimate(
    context: Sequence[ModelMessage],
    budget_tokens: int,
    *,
    overhead_tokens: int = 0,
    pins: frozenset[str] = frozenset(),
) -> HistoryTrimmed | None:
    """What `/compact` would do now, for its confirmation: every turn summarised, and the request
    after it at most the system prompt, the compact pair and the longest summary asked for
    (`summary_token_budget`) — an upper estimate, as the summary's real length is not known before.
    Pinned turns (`pins`) are left out of the counts and kept in the size after, as
    `pins.compact_around_pins` does, so the dialog counts what the banner then says. None when there
    is nothing to compact (also when every turn is pinned). Pure; no model call."""
    from co_tui.governance.summarize import clear_event, summary_size_limit, summary_token_budget

    split = split_pinned(context, pins)
    source = split.rest
    layout = segment(source)
    if not layout.turns:
        return None
    system = sum(estimate_tokens([source[i]]) for i in layout.system)
    after = system + summary_size_limit(summary_token_budget(source)) + 40  # the header and the acknowledgement
    # Every unpinned turn leaves the context, as for /clear; the summary pair takes their place.
    overhead_tokens += split.tokens  # the pinned turns stay, counted like the instructions
    return replace(
        clear_event(source, budget_tokens, overhead_tokens=overhead_tokens),
        reason="manual_compact",
        strategy="compact",
        dropped_messages=sum(len(turn) for turn in layout.turns),  # the turns' own: the system prompt stays
        tokens_after=min(after, estimate_tokens(source)) + overhead_tokens,
        note="estimated: the summary's length is known only once it is written",
    )

"""See the next cut coming: what the next automatic cut would remove or summarise, and `/compact`'s
estimate — computed with the policy's own rules, without calling any model.

`preview_next_cut` runs the same steps as `Governor.apply` (policy.py) on the context plus a
stand-in for the next prompt (its text is unknown until typed), with the summary step done by its
zero-LLM stand-in (the static marker, what a failed summary leaves): which messages the summary
would cover, which a trim would drop and which outputs would be shortened are then read off by
identity (governance passes untouched messages through as they are). Pure.
docs/context-governance.md, "See the next cut coming".
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from pydantic_ai.messages import ModelMessage, ModelRequest, UserPromptPart

from co_tui.governance.events import HistoryTrimmed, Reason, Strategy
from co_tui.governance.inspect import annotate_history
from co_tui.governance.markers import separate_markers
from co_tui.governance.policy import Governor, _window_that_keeps_its_summary, _worth_summarising
from co_tui.governance.summarize import apply_summary, plan_summary_window, summary_token_budget
from co_tui.governance.tokens import estimate_tokens
from co_tui.governance.trim import fit_to_budget, min_cut_tokens, trim_to_message_count
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
) -> NextCut | None:
    """The cut the next request (the context plus the next prompt) would trigger, or None when it
    would go out unchanged. Mirrors `Governor.apply` step by step; the summary is assumed to come
    back (a failed one leaves the same messages out, behind the static marker). Never mutates
    `context`; never calls a model."""
    policy = governor.policy
    current = separate_markers(context)
    probe = ModelRequest(parts=[UserPromptPart("")])  # the next prompt; its text is not known yet
    pending: list[ModelMessage] = [*current, probe]
    budget = governor._budget(overhead_tokens)
    tokens = estimate_tokens(pending)
    layout = segment(pending)
    limit = policy.max_history_messages
    over_count = limit > 0 and sum(len(t) for t in layout.turns) > limit
    over_tokens = tokens > budget
    if not (over_count or over_tokens):
        return None
    reason: Reason = "token_budget" if over_tokens else "message_count"
    strategies: list[Strategy] = []
    target = min(governor.target_tokens(overhead_tokens), budget)
    goal = min(target, tokens - min_cut_tokens(policy.budget_tokens)) if over_tokens else target
    summarised: set[int] = set()
    if policy.strategy == "summarize" and summarizer_available and not governor.cooling_down():
        window = plan_summary_window(
            pending, limit, budget, target_tokens=goal, target_messages=policy.target_messages if over_count else None
        )
        if window is not None:
            window = _window_that_keeps_its_summary(window, budget, policy.tool_output_trim_chars)
        if window is not None and _worth_summarising(window):
            summarised = {id(m) for m in window.middle_messages}
            pending = apply_summary(window, None)[0]
            strategies.append("summary")
    if not strategies and over_count:
        cut = trim_to_message_count(pending, policy.target_messages)
        if cut.trimmed:
            strategies.append("turn_trim")
            pending = cut.messages
    synced = bool(strategies)
    fitted = fit_to_budget(
        pending,
        goal if synced else budget,
        tool_output_trim_chars=policy.tool_output_trim_chars,
        target_tokens=goal,
        min_cut_tokens=0 if synced else min_cut_tokens(policy.budget_tokens),
    )
    strategies += [event.strategy for event in fitted.events]
    pending = fitted.messages
    if strategies and limit > 0:
        cut = trim_to_message_count(pending, policy.target_messages)
        if cut.trimmed:
            strategies.append("turn_trim")
            pending = cut.messages
    if not strategies:
        return None
    fates: dict[int, Fate] = {}
    for info in annotate_history(current, [m for m in pending if m is not probe]):
        if id(current[info.index]) in summarised:
            fates[info.index] = "summarised"
        elif info.status in ("dropped", "summarised"):
            fates[info.index] = "dropped"
        elif info.status == "truncated":
            fates[info.index] = "truncated"
    return NextCut(reason, tuple(strategies), fates)


def compact_estimate(
    context: Sequence[ModelMessage], budget_tokens: int, *, overhead_tokens: int = 0
) -> HistoryTrimmed | None:
    """What `/compact` would do now, for its confirmation: every turn summarised, and the request
    after it at most the system prompt, the compact pair and the longest summary asked for
    (`summary_token_budget`) — an upper estimate, as the summary's real length is not known before.
    None when there is nothing to compact. Pure; no model call."""
    source = separate_markers(context)
    layout = segment(source)
    if not layout.turns:
        return None
    system = sum(estimate_tokens([source[i]]) for i in layout.system)
    after = system + summary_token_budget(source) + 40  # the header and the acknowledgement
    return HistoryTrimmed(
        reason="manual_compact",
        strategy="compact",
        dropped_messages=sum(len(t) for t in layout.turns),
        dropped_turns=len(layout.turns),
        kept_turns=0,
        tokens_before=estimate_tokens(source) + overhead_tokens,
        tokens_after=min(after, estimate_tokens(source)) + overhead_tokens,
        budget_tokens=budget_tokens,
        note="estimated: the summary's length is known only once it is written",
    )

"""The summary step of a policy pass: which window to summarise, and asking for the summary.

`summary_window` chooses the window a pass would replace (None when no summary is worth a model
call); `summarise_window` asks the summariser and applies its summary, or the static marker when it
fails or its summary is rejected (the inflation guard). Both are pure but for the model call: the
cooldown a failure starts is the `Governor`'s (policy.py), told through `SummaryStep.error`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from co_tui.governance.events import HistoryTrimmed, Reason
from co_tui.governance.summarize import (
    SUMMARIZER_INSTRUCTIONS,
    SummaryError,
    SummaryRejected,
    SummaryWindow,
    apply_summary,
    plan_summary_window,
    run_summarizer,
    summary_size_limit,
    summary_token_budget,
    unsummarised_count,
)
from co_tui.governance.summarizer_usage import SummarizerUsage
from co_tui.governance.summary_check import check_summary
from co_tui.governance.summary_guard import summary_rejection
from co_tui.governance.tokens import estimate_tokens
from co_tui.governance.truncation import trim_tool_returns
from co_tui.text import one_line

if TYPE_CHECKING:
    from pydantic_ai.messages import ModelMessage
    from pydantic_ai.models import Model

    from co_tui.governance.policy_settings import GovernancePolicy

__all__ = ["SummaryStep", "summarise_window", "summary_window", "with_hook_instructions"]


@dataclass(frozen=True)
class SummaryStep:
    """What the summary step left: the context, its event (`summary` or `static_marker`) and, when
    no summary was made, `error`: why (its text; the `Governor` starts the cooldown)."""

    messages: list[ModelMessage]
    event: HistoryTrimmed
    error: str | None = None


def summary_window(
    policy: GovernancePolicy, current: list[ModelMessage], budget: int, goal: int, target_messages: int | None
) -> SummaryWindow | None:
    """The window a summary would replace in this pass, or None when none is worth a model call."""
    window = plan_summary_window(
        current, policy.max_history_messages, budget, target_tokens=goal, target_messages=target_messages
    )
    if window is not None:
        window = _window_that_keeps_its_summary(window, budget, policy.tool_output_trim_chars)
    return window if window is not None and _worth_summarising(window) else None


async def summarise_window(
    policy: GovernancePolicy,
    window: SummaryWindow,
    summarizer: Model | str,
    reason: Reason,
    budget: int,
    tokens_before: int,
    extra_instructions: str = "",
) -> SummaryStep:
    """Summarise `window`'s middle with `summarizer` under `policy`'s instructions (plus a
    `pre_compact` hook's `extra_instructions`) and apply it. Never raises: any failure, or a summary
    the inflation guard rejects, leaves the static marker, and the event's note says so and for how
    long only trimming runs (`policy.summarizer_cooldown_s`)."""
    middle = window.middle_messages
    usage = SummarizerUsage()
    failure, error = "", None
    instructions, instructions_from = policy.instructions_for(SUMMARIZER_INSTRUCTIONS)
    instructions, instructions_from = with_hook_instructions(instructions, instructions_from, extra_instructions)
    try:
        budget = summary_token_budget(middle)
        summary, usage = await run_summarizer(middle, summarizer, instructions=instructions, max_tokens=budget)
        # The inflation guard: a model may ignore the budget (or a provider not cap it).
        if (why := summary_rejection(summary, middle, summary_size_limit(budget))) is not None:
            raise SummaryRejected(why, usage)
        new, dropped_messages, dropped_turns = apply_summary(window, summary)
    except Exception as exc:  # any failure: static marker + cooldown, never a crash mid-turn
        if isinstance(exc, SummaryError):
            usage = exc.usage  # an answer we could not use was billed all the same
        error = str(exc) if isinstance(exc, SummaryRejected) else f"{type(exc).__name__}: {exc}"
        failure = "summary rejected: " if isinstance(exc, SummaryRejected) else "summary failed: "
        summary = None
        new, dropped_messages, dropped_turns = apply_summary(window, summary)
    kept = len(window.layout.turns) - dropped_turns
    check = check_summary(middle, summary) if summary is not None else None
    event = HistoryTrimmed(
        reason=reason,
        strategy="summary" if summary is not None else "static_marker",
        dropped_messages=dropped_messages,
        dropped_turns=dropped_turns,
        kept_turns=kept,
        tokens_before=tokens_before,
        tokens_after=estimate_tokens(new),
        budget_tokens=budget,
        summary=summary,
        unsummarised_messages=unsummarised_count(middle) if summary is not None else 0,
        summarizer_input_tokens=usage.input_tokens,
        summarizer_output_tokens=usage.output_tokens,
        summarizer_cost_usd=usage.cost_usd,
        note=None
        if summary is not None
        else f"{failure}{one_line(error or '', 160)}; trimming only for {policy.summarizer_cooldown_s:g}s",
        summary_kept=check.kept if check is not None else None,
        summary_lost=check.lost if check is not None else None,
        summary_instructions=instructions_from,
        prompts_kept=check.prompts_kept if check is not None else 0,
        prompts_total=check.prompts_total if check is not None else 0,
    )
    return SummaryStep(new, event, error)


def _window_that_keeps_its_summary(
    window: SummaryWindow, budget: int, tool_output_trim_chars: int
) -> SummaryWindow | None:
    """The window whose summary will still be in the context after this pass, or None.

    A summary goes in after the head; if head + summary + tail were still over the budget, the
    whole-turn trim that follows in the same pass would fold the fresh summary into a breadcrumb:
    a wasted model call, and a summary that would have fit gone. So the tail gives up its oldest
    turns to the middle (they are summarised instead) until what stays fits, with the summary at
    its largest allowed size; when not even the newest turn fits beside it, no summary is asked for.
    """
    last = len(window.layout.turns) - 1
    for tail_start in range(window.tail_start, last + 1):
        candidate = replace(window, tail_start=tail_start)
        rest, _dropped, _turns = apply_summary(candidate, "")  # an empty summary's marker stands in for it
        kept = trim_tool_returns(rest, tool_output_trim_chars).messages if tool_output_trim_chars else rest
        if estimate_tokens(kept) + summary_size_limit(summary_token_budget(candidate.middle_messages)) <= budget:
            return candidate
    return None


def _worth_summarising(window: SummaryWindow) -> bool:
    """Whether the middle outweighs the longest summary we would insert (`summary_size_limit`).

    A smaller middle could come back as a summary no shorter than itself: not worth a model call.
    It also guarantees that the static marker, on failure, is smaller than what it replaces. Such
    a history is left to the zero-LLM rules.
    """
    middle = window.middle_messages
    return estimate_tokens(middle) > summary_size_limit(summary_token_budget(middle))


def with_hook_instructions(instructions: str, names: Sequence[str], extra: str) -> tuple[str, list[str]]:
    """`instructions` with a `pre_compact` hook's output added after them (and `pre_compact hook`
    after `names`); unchanged when `extra` is blank."""
    if not extra.strip():
        return instructions, list(names)
    return f"{instructions}\n\nFrom the user's pre_compact hook:\n{extra.strip()}", [*names, "pre_compact hook"]

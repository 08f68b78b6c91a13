"""The policy pass run before every model request, and overflow recovery.

`Governor` owns the only state governance has: the summariser cooldown. Everything it does to the
history goes through the pure functions of `trim`, `step_shrink` and `summary_step` (the summary
step: its window and the model call), and every change comes back as a `HistoryTrimmed` in
`PolicyOutcome.events`. The settings it runs with are a `GovernancePolicy` (policy_settings.py).

Order of one pass (nothing happens while the history is under both triggers):

1. Trigger: turn messages > `max_history_messages` (reason `message_count`; 0 disables it), or
   estimated tokens (plus the request's fixed overhead: instructions and tool schemas) > budget
   (reason `token_budget`).
2. Strategy `summarize`, not cooling down, a middle to summarise that outweighs the summary budget:
   summary, its window chosen so the result lands near the low-water mark (or the static marker and
   a cooldown if the summariser fails or its summary would not shrink the context).
3. Strategy `trim`, during cooldown, or nothing worth summarising: drop oldest whole turns down to
   `compact_target` × the message limit.
4. Always last, if still over the token budget: `fit_to_budget` down to `compact_target` × the
   budget (old tool outputs → whole turns → in-turn step shrink).

Pinned turns that, with the request's overhead and the newest turn (never cut), weigh more than the
budget make it unreachable: no cut could get the request under it, and cutting anyway cost a
summary, a banner and the prompt cache on every turn. Then the token trigger does not fire
(`PolicyOutcome.pins_over_budget` says so, once a front end tells the user); the message limit and
the provider's window (overflow recovery) still bound the context.

Economy (docs/context-governance.md): a trigger fires at the limit, a cut goes down to the low-water
mark in one batch and frees at least `min_cut_tokens(budget)` when it can, so the next cut is many
turns away and, in between, the context only grows at its end (the provider's prompt cache holds).
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, TypeVar

from pydantic_ai.messages import ModelMessage, ModelRequest, UserPromptPart

from co_tui.governance.events import HistoryTrimmed, Reason
from co_tui.governance.pins import PinSplit, reinsert, split_pinned, with_pinned_kept
from co_tui.governance.policy_settings import GovernancePolicy
from co_tui.governance.tokens import estimate_tokens
from co_tui.governance.turns import Layout, segment
from co_tui.text import plural

if TYPE_CHECKING:
    from pydantic_ai.models import Model

    from co_tui.governance.summarize import SummaryWindow

# The steps that cut (`trim`, `step_shrink`, `summary_step`, and through them `dedup` and
# `truncation`) are imported by the branches that cut, not here: a session opens (its meter's first
# reading) with a Governor and no cut, and these modules were ~4% of opening one (issue 44;
# docs/performance.md, "Start-up: what stays between the first frame and ready").

__all__ = ["OFFLOAD_MIN_MESSAGES", "CutPlan", "Governor", "PolicyOutcome"]

# A pass over at least this many messages hands its zero-LLM work to `Governor.offload` (a thread):
# a first pass over a freshly resumed history of a few hundred messages already takes more than a
# frame (docs/context-governance.md, "Cost").
OFFLOAD_MIN_MESSAGES = 256

_T = TypeVar("_T")
Offload = Callable[[Callable[[], Any]], Awaitable[Any]]
"""`await offload(call)` → `call()`, run somewhere that does not block the event loop (a thread)."""


@dataclass
class PolicyOutcome:
    """What one pass produced: the (possibly new) messages, its events, and whether it fits.

    `tokens` is the messages' estimate; the events describe the whole request (see `Governor.apply`).
    """

    messages: list[ModelMessage]
    events: list[HistoryTrimmed] = field(default_factory=list)
    fits: bool = True
    tokens: int = 0
    # The pinned turns' tokens when they make the budget unreachable (module docstring), else 0.
    pins_over_budget: int = 0

    @property
    def changed(self) -> bool:
        """Whether the pass changed the messages (then it emitted at least one event)."""
        return bool(self.events)


@dataclass(frozen=True)
class CutPlan:
    """What a pass decided before cutting (`Governor.plan_cut`): the context with its markers
    separated, its tokens and layout, the budget for the messages, the trigger (`reason`, None when
    under both: nothing to cut), whether the message limit fired, the token goal of the cut, and
    the summary window to ask for (None: no summary)."""

    messages: list[ModelMessage]
    tokens: int
    layout: Layout
    budget: int
    reason: Reason | None
    over_count: bool
    goal: int
    window: SummaryWindow | None
    # Pinned turns make the budget unreachable: no token cut is planned or made (module docstring).
    pins_over_budget: bool = False


@dataclass
class Governor:
    """Runs the policy; remembers the summariser's cooldown between passes (and between runs)."""

    policy: GovernancePolicy
    summarizer_model: Model | str | None = None
    clock: Callable[[], float] = time.monotonic
    cooldown_until: float | None = None
    last_summary_error: str | None = None
    # Keys of the pinned turns (`pins.turn_key`): every rule runs around them (docs/context-governance.md).
    pins: frozenset[str] = frozenset()
    # Where `apply` runs its pure, synchronous steps for a history of `OFFLOAD_MIN_MESSAGES` or more
    # (None: inline). The steps still run one after another and the summariser stays on the loop, so
    # results and the events' order are the same either way.
    offload: Offload | None = None

    def cooling_down(self) -> bool:
        """Whether a failed summary is recent enough that only zero-LLM trimming may run."""
        return self.cooldown_until is not None and self.clock() < self.cooldown_until

    def _budget(self, overhead_tokens: int) -> int:
        # The fixed part of every request (instructions, tool schemas) is not in the history but is
        # sent with it; never let it eat more than half the budget.
        return max(1, self.policy.budget_tokens - min(overhead_tokens, self.policy.budget_tokens // 2))

    def overhead_excess(self, overhead_tokens: int) -> int:
        """How far the request's fixed part (instructions, tool schemas) is over the half of the
        budget it may take (`_budget`): the conversation keeps the other half, so a request can
        reach the budget plus this before any cut (0: the budget holds). Pure."""
        budget = self.policy.budget_tokens
        return max(0, overhead_tokens - budget // 2) if budget > 0 else 0

    def target_tokens(self, overhead_tokens: int = 0) -> int:
        """The low-water mark for the messages: `token_mark` (`compact_target`) × the configured budget,
        less the request's overhead — so the request a cut leaves (overhead included, as events and the
        meter count it) is at or under that share of the budget. When the overhead alone takes most of
        that, at least half the low-water share of the message budget (a cut never aims at nothing)."""
        policy = self.policy
        overhead = min(overhead_tokens, policy.budget_tokens // 2)
        by_request = int(policy.token_mark * policy.budget_tokens) - overhead
        return max(1, by_request, int(policy.token_mark * self._budget(overhead_tokens) * 0.5))

    def _triggers(
        self, messages: Sequence[ModelMessage], budget: int
    ) -> tuple[list[ModelMessage], int, Layout, bool, bool]:
        # Both callers pass `split_pinned(...).rest`: its markers are already separated.
        current = list(messages)
        tokens = estimate_tokens(current)
        layout = segment(current)
        limit = self.policy.max_history_messages
        over_count = limit > 0 and sum(len(t) for t in layout.turns) > limit
        return current, tokens, layout, over_count, tokens > budget

    def over_limits(
        self, messages: Sequence[ModelMessage], *, overhead_tokens: int = 0, next_prompt: bool = False
    ) -> bool:
        """Whether the next pass over `messages` will change them: past the message limit or the
        token budget, as `apply` decides it (the meter says so; it counts differently).

        `next_prompt`: judge the request the next user prompt makes — one more turn message, so a
        context exactly at the message limit is cut when it is sent (the prompt's own tokens are
        unknown until it is typed and are not counted). Judged with a stand-in for that prompt as the
        newest turn, as the next send (and `next_cut.preview_next_cut`) judges it: the turn newest now
        is an older one then, which a cut may take, pinned turns or not (issue 43: pinned, the meter
        said nothing would be cut and the next send cut 6.7k → 1.9k).
        """
        if next_prompt:
            messages = [*messages, ModelRequest(parts=[UserPromptPart("")])]
        layout, over_count, over_tokens = self._crossed(messages, overhead_tokens)
        limit = self.policy.max_history_messages
        if next_prompt and layout.turns and limit > 0:  # 0: no message limit, nothing to cross
            over_count = sum(len(t) for t in layout.turns) > limit  # the stand-in prompt counted
        return over_count or over_tokens

    def limits_crossed(self, messages: Sequence[ModelMessage], *, overhead_tokens: int = 0) -> tuple[bool, bool]:
        """(past the message limit, past the token budget): which of the two triggers the next pass
        over `messages` would fire, as `apply` decides them — so a refusal names the one that holds."""
        _layout, over_count, over_tokens = self._crossed(messages, overhead_tokens)
        return over_count, over_tokens

    def _crossed(self, messages: Sequence[ModelMessage], overhead_tokens: int) -> tuple[Layout, bool, bool]:
        split = split_pinned(messages, self.pins)
        messages, overhead_tokens = split.rest, overhead_tokens + split.tokens
        _current, _, layout, over_count, over_tokens = self._triggers(messages, self._budget(overhead_tokens))
        over_tokens = over_tokens and not self.pins_unreachable(split, overhead_tokens - split.tokens)
        return layout, over_count, over_tokens

    async def apply(
        self,
        messages: Sequence[ModelMessage],
        *,
        model: Model | str | None = None,
        overhead_tokens: int = 0,
        extra_instructions: str = "",
    ) -> PolicyOutcome:
        """One full policy pass over the context view. Never mutates `messages`.

        `extra_instructions` (a `pre_compact` hook's output) is added to the summariser's
        instructions for this pass's summary, named `pre_compact hook` in its event.

        `model` is the summariser to use when `summarizer_model` is unset (the run's model).
        `overhead_tokens`: what every request carries besides the messages (instructions, tool
        schemas). The messages are fitted into the budget minus that overhead (at most half of it),
        but the events describe the request the model is sent, as the context meter does: their
        `tokens_before`/`tokens_after` include the overhead and `budget_tokens` is the configured
        `policy.budget_tokens`.

        Pinned turns (`pins`) are taken out first, count as overhead, and come back verbatim in
        place (`pins.reinsert`): `plan_pass`, then the summary, then `finish_pass`.
        """
        # The pure steps go through `run` (a thread for a large history); the summariser stays here.
        run = self._runner(len(messages))
        summarize = (self.summarizer_model or model) is not None
        split, plan = await run(lambda: self.plan_pass(messages, overhead_tokens=overhead_tokens, summarize=summarize))
        overhead = overhead_tokens + split.tokens
        over_pins = split.tokens if plan.pins_over_budget else 0
        if plan.reason is None:
            kept = await run(lambda: reinsert(plan.messages, split)) if split.pinned else plan.messages
            return PolicyOutcome(kept, [], True, plan.tokens + split.tokens, over_pins)
        events: list[HistoryTrimmed] = []
        summarised: list[ModelMessage] | None = None
        if plan.window is not None:
            summarizer = self.summarizer_model or model
            assert summarizer is not None  # `plan_cut` plans a summary only with a summariser
            from co_tui.governance.summary_step import summarise_window

            step = await summarise_window(
                self.policy, plan.window, summarizer, plan.reason, plan.budget, plan.tokens, extra_instructions
            )
            if step.error is not None:  # the static marker went in: only zero-LLM trimming for a while
                self.cooldown_until = self.clock() + self.policy.summarizer_cooldown_s
                self.last_summary_error = step.error
            summarised = step.messages
            events.append(step.event)
        current, tokens, cuts = await run(lambda: self.finish_pass(split, plan, summarised))
        events = with_pinned_kept(events + cuts, split)
        fits = tokens - split.tokens <= plan.budget
        return PolicyOutcome(current, self._as_sent(events, overhead), fits, tokens, over_pins)

    def _runner(self, size: int) -> Callable[[Callable[[], _T]], Awaitable[_T]]:
        """How this pass runs a synchronous step: through `offload` for a large history, else inline."""
        offload = self.offload if size >= OFFLOAD_MIN_MESSAGES else None

        async def run(call: Callable[[], _T]) -> _T:
            if offload is None:
                return call()
            result: _T = await offload(call)
            return result

        return run

    def plan_pass(
        self, messages: Sequence[ModelMessage], *, overhead_tokens: int = 0, summarize: bool
    ) -> tuple[PinSplit, CutPlan]:
        """The planning half of `apply`: the pinned turns taken out (`split_pinned`), then `plan_cut`
        over the rest with their tokens counted as overhead. Pure; `apply` and the inspector's preview
        (next_cut.py) both start here, so neither can cut a pinned turn the other keeps."""
        split = split_pinned(messages, self.pins)
        reachable = not self.pins_unreachable(split, overhead_tokens)
        plan = self.plan_cut(
            split.rest, overhead_tokens=overhead_tokens + split.tokens, summarize=summarize, tokens_reachable=reachable
        )
        return split, plan

    def pins_unreachable(self, split: PinSplit, overhead_tokens: int = 0) -> bool:
        """Whether `split`'s pinned turns, the request's overhead and the newest turn (never cut)
        together weigh more than the budget: then no cut can get the request under it. Pure."""
        if not split.pinned:
            return False
        turns = segment(split.rest).turns
        newest = estimate_tokens(turns[-1].messages) if turns else 0
        return overhead_tokens + split.tokens + newest > self.policy.budget_tokens

    def finish_pass(
        self, split: PinSplit, plan: CutPlan, summarised: list[ModelMessage] | None
    ) -> tuple[list[ModelMessage], int, list[HistoryTrimmed]]:
        """The cutting half of `apply` after the summary step: `finish_cut`, then the pinned turns
        back in place (`pins.reinsert`). Returns the messages, their tokens (pinned turns included)
        and the events (messages-only figures, pinned turns excluded: `apply` adds the overhead). Pure."""
        current, tokens, events = self.finish_cut(plan, summarised)
        if not split.pinned:
            return current, tokens, events
        kept = reinsert(current, split)  # a marker split around a pinned turn adds a few tokens: count again
        return kept, estimate_tokens(kept), events

    def plan_cut(
        self,
        messages: Sequence[ModelMessage],
        *,
        overhead_tokens: int = 0,
        summarize: bool,
        tokens_reachable: bool = True,
    ) -> CutPlan:
        """Steps 1–2 of a pass (module docstring) over a context with no pinned turn: the triggers,
        the low-water goal and the summary window to ask for (`summarize`: a summariser is there).
        `tokens_reachable=False` (pinned turns make the budget unreachable): the token trigger does
        not fire. Pure; `plan_pass` runs it for `apply` and the inspector's preview (next_cut.py), so
        the two cannot drift."""
        policy = self.policy
        budget = self._budget(overhead_tokens)
        current, tokens, layout, over_count, over_tokens = self._triggers(messages, budget)
        unreachable = not tokens_reachable
        over_tokens = over_tokens and tokens_reachable
        if not (over_count or over_tokens):
            return CutPlan(current, tokens, layout, budget, None, over_count, budget, None, unreachable)
        from co_tui.governance.summary_step import summary_window
        from co_tui.governance.trim import min_cut_tokens

        reason: Reason = "token_budget" if over_tokens else "message_count"
        # Cut down to the low-water mark, and at least the minimum when over the token budget.
        target = min(self.target_tokens(overhead_tokens), budget)
        goal = min(target, tokens - min_cut_tokens(policy.budget_tokens)) if over_tokens else target
        window = None
        if summarize and policy.strategy == "summarize" and not self.cooling_down():
            target_messages = policy.target_messages if over_count else None
            if over_count or not self._stubs_suffice(current, layout, goal):
                window = summary_window(policy, current, budget, goal, target_messages)
        return CutPlan(current, tokens, layout, budget, reason, over_count, goal, window, unreachable)

    def _stubs_suffice(self, messages: list[ModelMessage], layout: Layout, goal: int) -> bool:
        """Whether clearing old outputs to their notes (the stub policy: `recall` brings them back,
        so nothing is lost) already reaches `goal`: then no summary is asked for, a model call saved
        and no turn summarised away (docs/context-governance.md, "The stub policy")."""
        policy = self.policy
        if policy.tool_output_clear != "stub" or policy.tool_output_trim_chars <= 0:
            return False
        from co_tui.governance.trim import trim_tool_returns

        cleared = trim_tool_returns(
            messages, policy.tool_output_trim_chars, layout=layout, target_tokens=goal, stub=True
        )
        return cleared.trimmed and estimate_tokens(cleared.messages) <= goal

    def finish_cut(
        self, plan: CutPlan, summarised: list[ModelMessage] | None
    ) -> tuple[list[ModelMessage], int, list[HistoryTrimmed]]:
        """Steps 3–4 of a pass, zero-LLM, after the summary step: `summarised` is the context the
        summary (or its failure's marker) left, None when none was made. Returns the messages, their
        tokens and the events of these cuts (messages-only figures: `apply` adds the overhead). Pure."""
        from co_tui.governance.trim import fit_to_budget, min_cut_tokens, trim_to_message_count

        policy = self.policy
        current = plan.messages if summarised is None else summarised
        events: list[HistoryTrimmed] = []
        if summarised is None and plan.over_count:
            cut = trim_to_message_count(current, policy.target_messages)
            if cut.trimmed:
                events.append(cut.to_event("message_count", plan.budget))
                current = cut.messages
        # One batch for both limits: a pass that already cut (the prompt cache is lost either way)
        # takes the tokens to their low-water mark too — after a message cut, or a summary that came
        # back longer than planned — and a token cut takes the messages to theirs; otherwise the two
        # triggers take turns and the banners come twice as often.
        synced = summarised is not None or bool(events)
        if plan.pins_over_budget:  # the message limit's cut alone: no token cut can get under the budget
            return current, estimate_tokens(current), events
        fitted = fit_to_budget(
            current,
            plan.goal if synced else plan.budget,
            tool_output_trim_chars=policy.tool_output_trim_chars,
            stub=policy.tool_output_clear == "stub",
            target_tokens=plan.goal,
            min_cut_tokens=0 if synced else min_cut_tokens(policy.budget_tokens),
            layout=None if synced else plan.layout,  # reuse this pass's work if unchanged
            tokens=None if synced else plan.tokens,
        )
        events.extend(fitted.events)
        current, tokens = fitted.messages, fitted.tokens_after
        if not synced and tokens > plan.budget and plan.tokens - tokens < min_cut_tokens(policy.budget_tokens):
            # A cut that neither reaches the budget nor frees a meaningful share (the newest turn alone
            # is over it: issue 43 dropped a turn for 9,014 → 9,004) is not made, as with pinned turns.
            return plan.messages, plan.tokens, []
        if (synced or events) and policy.max_history_messages > 0:
            cut = trim_to_message_count(current, policy.target_messages)
            if cut.trimmed:
                events.append(cut.to_event("message_count", plan.budget))
                current, tokens = cut.messages, cut.tokens_after
        return current, tokens, events

    def _as_sent(
        self, events: list[HistoryTrimmed], overhead_tokens: int, note: str | None = None
    ) -> list[HistoryTrimmed]:
        """The events in the terms the user sees everywhere else (banner next to the meter): the
        request's tokens, overhead included, against the configured budget.

        The rules above work on messages against the budget left after the overhead; reporting that
        reduced budget and message-only figures made a banner read "41.2k → 12.9k" beside a meter
        showing more than 12.9k, under a budget smaller than the one configured.
        """
        return [
            replace(
                event,
                tokens_before=event.tokens_before + overhead_tokens,
                tokens_after=event.tokens_after + overhead_tokens,
                budget_tokens=self.policy.budget_tokens,
                note=note or event.note,
            )
            for event in events
        ]

    def recover_overflow(
        self, messages: Sequence[ModelMessage], *, shrink_done: bool, overhead_tokens: int = 0
    ) -> tuple[PolicyOutcome, bool]:
        """After the provider said the context window was exceeded: cut harder, zero-LLM.

        Drops oldest whole turns down to the low-water mark, as every other cut
        (docs/context-governance.md, "Economy"): `target_tokens(overhead_tokens)`, or `compact_target`
        × the current estimate when that is lower — the provider refused what we estimated as
        fitting, so each retry aims that much lower again (reason `context_overflow`). When only the newest turn is left, runs the in-turn step shrink
        once (`shrink_done` says whether it already ran this request). Returns (outcome, shrink_ran);
        `outcome.changed` is False when there is nothing left to cut — surface the error then. As in
        `apply`, the events count the request (`overhead_tokens` included) against the configured
        budget; the reduced target goes in their `note`.
        """
        from co_tui.governance.step_shrink import shrink_steps
        from co_tui.governance.trim import trim_to_recent_turns

        split = split_pinned(messages, self.pins)
        if split.pinned:  # pinned turns stay; the rest is cut as if they were instructions
            outcome, ran = self.recover_overflow(
                split.rest, shrink_done=shrink_done, overhead_tokens=overhead_tokens + split.tokens
            )
            kept = reinsert(outcome.messages, split)
            return replace(outcome, messages=kept, tokens=estimate_tokens(kept)), ran
        current = split.rest
        tokens = estimate_tokens(current)
        target = max(1, min(self.target_tokens(overhead_tokens), int(tokens * self.policy.compact_target)))
        note = f"the provider's context window was exceeded; cut aiming at {target + overhead_tokens:,} tokens"
        layout = segment(current)
        if len(layout.turns) > 1:
            cut = trim_to_recent_turns(current, target)
            if cut.trimmed:
                events = self._as_sent([cut.to_event("context_overflow", target)], overhead_tokens, note)
                return PolicyOutcome(cut.messages, events, True, cut.tokens_after), False
        if shrink_done:
            return PolicyOutcome(current, [], False, tokens), False
        shrink = shrink_steps(current, target)
        if not shrink.trimmed:
            return PolicyOutcome(current, [], False, tokens), True
        event = HistoryTrimmed(
            reason="context_overflow",
            strategy="step_shrink",
            kept_turns=shrink.kept_turns,
            tokens_before=shrink.tokens_before,
            tokens_after=shrink.tokens_after,
            budget_tokens=target,
        )
        note += f"; {plural(shrink.shrunk_parts, 'tool output')} in older steps of the current turn shrunk"
        events = self._as_sent([event], overhead_tokens, note)
        return PolicyOutcome(shrink.messages, events, shrink.tokens_after <= target, shrink.tokens_after), True

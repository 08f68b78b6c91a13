"""`ContextGovernance`: the policy wired into pydantic-ai as a capability.

pydantic-ai 2.68 has no `history_processors=`; a capability's `before_model_request` runs once per
request step and may rewrite the run's persistent history (`ctx.messages`) — which for a co-tui run
*is* the context view: the session keeps the append-only transcript itself, fed by
`transcript_sink` with the original message objects before any rewrite.

Overflow: `on_model_request_error` catches `ModelContextWindowExceededError`, cuts harder through
the same whole-turn path (reason `context_overflow`), and raises `RetryModelRequest`. pydantic-ai
restores each further attempt from what `before_model_request` produced, so the cut is re-applied
in `prepare_model_request`. Every retry removes at least one turn; when one turn is left the step
shrink runs once; after that the error surfaces. No loop.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pydantic_ai import RetryModelRequest
from pydantic_ai.capabilities import AbstractCapability
from pydantic_ai.exceptions import ModelContextWindowExceededError
from pydantic_ai.messages import CapabilityEvent, ModelMessage, ModelResponse

from co_tui.governance.compact_mode import CutPermission
from co_tui.governance.events import HistoryTrimmed
from co_tui.governance.policy import OFFLOAD_MIN_MESSAGES, Governor, PolicyOutcome
from co_tui.governance.policy_settings import GovernancePolicy
from co_tui.governance.recall_offer import offer_recall
from co_tui.governance.tokens import estimate_text_tokens, estimate_tokens

if TYPE_CHECKING:
    from pydantic_ai.models import Model, ModelRequestContext
    from pydantic_ai.tools import RunContext

    from co_tui.governance.hook_port import CompactHooks, PreCompactResult, Trigger
    from co_tui.governance.meter import TokenMeter

__all__ = ["ContextGovernance", "HistoryTrimmedEvent", "OversizedTurnEvent"]


@dataclass(kw_only=True)
class HistoryTrimmedEvent(CapabilityEvent, namespace="co_tui"):
    """The stream carrier of a `HistoryTrimmed` (capabilities may only emit `CapabilityEvent`s).

    It carries the domain event whole, so a field added to `HistoryTrimmed` needs nothing here.
    """

    trimmed: HistoryTrimmed
    # The context the pass started from (shared by the events of one pass): what undoing it restores
    # (governance/undo.py). In-process only; never part of the domain event.
    before: tuple[ModelMessage, ...] | None = field(default=None, repr=False, compare=False)
    # Whether this is the pass's last event: the context after it is the one the request sends.
    ends_pass: bool = field(default=True, repr=False, compare=False)

    @classmethod
    def from_domain(
        cls, event: HistoryTrimmed, before: tuple[ModelMessage, ...] | None = None, *, ends_pass: bool = True
    ) -> HistoryTrimmedEvent:
        """Wrap `event` for the stream: `before` is the context its pass started from, `ends_pass` whether
        it is the pass's last event."""
        return cls(trimmed=event, before=before, ends_pass=ends_pass)

    def to_domain(self, session_id: str = "") -> HistoryTrimmed:
        """The domain event the session forwards (TUI banner, jsonl line, ledger row)."""
        return dataclasses.replace(self.trimmed, session_id=session_id)


@dataclass(kw_only=True)
class OversizedTurnEvent(CapabilityEvent, namespace="co_tui"):
    """The newest turn alone is over the budget and goes out whole (governance/oversize.py); the
    session turns it into its `oversized_turn` event. Emitted at most once per run."""

    turn_tokens: int = 0
    budget_tokens: int = 0


@dataclass(kw_only=True)
class PinsOverBudgetEvent(CapabilityEvent, namespace="co_tui"):
    """The pinned turns make the budget unreachable (policy.py): no token cut is made while they do.
    Emitted once each time that starts; the session says it in one line (`session/wording.pins_over_budget_line`)."""

    pinned_tokens: int = 0
    budget_tokens: int = 0


@dataclass(kw_only=True)
class GovernanceNoticeEvent(CapabilityEvent, namespace="co_tui"):
    """A compaction hook's own line during a run (its output, or why it failed); the session turns it
    into a `Notice`. Governance's own news is a fact event below, which the session words."""

    message: str = ""


@dataclass(kw_only=True)
class CutPastWindowEvent(CapabilityEvent, namespace="co_tui"):
    """`compact_mode` ask: a request inside a turn would pass the model's known window (`tokens` of
    `window_tokens`), so it is cut without asking (`session/wording.past_window_line`)."""

    tokens: int = 0
    window_tokens: int = 0


@dataclass(kw_only=True)
class HookVetoEvent(CapabilityEvent, namespace="co_tui"):
    """A `pre_compact` hook vetoed the automatic cut: `honoured` (the request goes over the budget),
    or not, as it would pass the model's window (`session/wording.veto_line`)."""

    honoured: bool = True


def hook_payload(
    trigger: Trigger, session_id: str, strategy: str, tokens_before: int, budget_tokens: int, messages: int
) -> dict[str, Any]:
    """The fields every compaction hook reads on stdin (docs/configuration.md, "Hooks")."""
    return {
        "session_id": session_id,
        "trigger": trigger,
        "strategy": strategy,
        "tokens_before": tokens_before,
        "budget_tokens": budget_tokens,
        "messages": messages,
    }


def post_payload(events: list[HistoryTrimmed]) -> dict[str, Any]:
    """`post_compact`'s own fields: the summary (None: no summary was written) and the events."""
    summary = next((e.summary for e in events if e.summary), None)
    return {"summary": summary, "events": [dataclasses.asdict(e) for e in events]}


def request_overhead_tokens(request_context: ModelRequestContext) -> int:
    """Estimated tokens every request carries besides the history: instructions and tool schemas."""
    params = request_context.model_request_parameters
    total = 0
    for part in getattr(params, "instruction_parts", None) or ():
        total += estimate_text_tokens(getattr(part, "content", "") or "")
    for tool in [*(params.function_tools or ()), *(getattr(params, "output_tools", None) or ())]:
        total += 8 + estimate_text_tokens(tool.name + " " + (tool.description or ""))
        total += estimate_text_tokens(json.dumps(tool.parameters_json_schema, separators=(",", ":")))
    return total


@dataclass
class ContextGovernance(AbstractCapability[Any]):
    """Runs the context policy before each model request and recovers from context overflow.

    Before any rewrite it hands every message the run added since its last pass (the original
    objects) to `transcript_sink`. `seen_len` is `len(ctx.messages)` after its last pass: after a
    run the session takes `all_messages()[seen_len:]` as the rest. Call `begin_run(len(history))`
    before each run. Emits one `HistoryTrimmedEvent` per change; with `meter_of`, in that meter's
    figures.
    """

    policy: GovernancePolicy
    summarizer_model: Model | str | None = None
    transcript_sink: Callable[[list[ModelMessage]], list[ModelMessage] | None] | None = None
    clock: Callable[[], float] = time.monotonic
    # The session's meter (it replaces it on /clear): the events then carry its figures, so a
    # banner's "after" is what the meter shows for the request (governance/metered_cuts.py).
    meter_of: Callable[[], TokenMeter] | None = None
    # What the policy may do before a request (`compact_mode.cut_permission`, told whether it is the
    # run's first request; None: cut at its triggers). Overflow recovery runs whatever it says: no
    # mode sends past the model's window without it.
    permission: Callable[[bool], CutPermission] | None = None
    # The user's compaction hooks (None: none configured, nothing runs) and the session id they are told.
    hooks: CompactHooks | None = None
    session_id: Callable[[], str] = lambda: ""
    # The model's context window when known (None: a guess): a veto never sends past it.
    window_tokens: int | None = None
    seen_len: int = field(default=0, init=False)
    governor: Governor = field(init=False, repr=False)
    _override: list[ModelMessage] | None = field(default=None, init=False, repr=False)
    _all_tools: Any = field(default=None, init=False, repr=False)
    _shrink_done: bool = field(default=False, init=False, repr=False)
    _oversize_said: bool = field(default=False, init=False, repr=False)
    _pins_over_said: bool = field(default=False, init=False, repr=False)
    _first_request: bool = field(default=True, init=False, repr=False)

    def __post_init__(self) -> None:
        # The pass's zero-LLM work on a large history runs in a thread: the run shares the UI's
        # event loop, which must keep painting and echoing keys meanwhile.
        self.governor = Governor(
            self.policy, summarizer_model=self.summarizer_model, clock=self.clock, offload=_in_thread
        )

    def set_pins(self, pins: frozenset[str]) -> None:
        """The keys of the turns no rule may cut from now on (`pins.turn_key`)."""
        self.governor.pins = frozenset(pins)
        self._pins_over_said = False  # other pins: say again if these are over the budget too

    @classmethod
    def get_serialization_name(cls) -> str | None:
        """None: not part of a serialisable agent spec."""
        return None  # holds callables and live state; not spec-serialisable

    def begin_run(self, history_len: int) -> None:
        """Called by the session before each run: the first `history_len` messages are already known."""
        self.seen_len = history_len
        self._override = None
        self._shrink_done = False
        self._oversize_said = False
        self._first_request = True

    def _hand_over(self, messages: list[ModelMessage]) -> bool:
        """Hand the new messages to `transcript_sink`; what it returns (the same messages, their tool
        outputs stamped with handles in metadata the model is never sent) replaces them in the run.
        Returns whether anything was replaced."""
        new = messages[self.seen_len :] if self.seen_len <= len(messages) else []
        replaced = False
        if new and self.transcript_sink is not None:
            kept = self.transcript_sink(list(new))
            if kept is not None and len(kept) == len(new) and any(a is not b for a, b in zip(kept, new, strict=True)):
                messages[self.seen_len :] = kept
                replaced = True
        self.seen_len = len(messages)
        return replaced

    async def _commit(self, ctx: RunContext[Any], outcome: PolicyOutcome) -> None:
        before = tuple(ctx.messages)
        ctx.messages[:] = outcome.messages
        self.seen_len = len(ctx.messages)
        events = outcome.events
        if self.meter_of is not None:
            from co_tui.governance.metered_cuts import in_meter_figures

            events = in_meter_figures(events, self.meter_of(), before, ctx.messages)
        for i, event in enumerate(events):
            await ctx.emit(HistoryTrimmedEvent.from_domain(event, before, ends_pass=i == len(events) - 1))

    async def before_model_request(
        self, ctx: RunContext[Any], request_context: ModelRequestContext
    ) -> ModelRequestContext:
        """pydantic-ai hook, once per request step: hand the run's new messages to `transcript_sink`, run
        the policy (`Governor.apply`, unless `permission` says no; a summary calls the summariser or the
        run's model) and, when it
        changed anything, rewrite `ctx.messages` and the request's messages and emit one
        `HistoryTrimmedEvent` per change. Says once per run when the newest turn alone is over the budget
        (`OversizedTurnEvent`), and once when the pinned turns make the budget unreachable
        (`PinsOverBudgetEvent`). `permission` `never` sends the context as it is; `to_window` cuts
        only a request past the known window (said in one line). Last, the `recall` tool is left out
        of the request unless its messages carry a cut note (`recall_offer.offer_recall`). Returns
        `request_context`."""
        request_context = await self._govern(ctx, request_context)
        self._all_tools = request_context.model_request_parameters  # recall included: an overflow cut may offer it
        request_context.model_request_parameters = offer_recall(
            request_context.model_request_parameters, request_context.messages
        )
        return request_context

    async def _govern(self, ctx: RunContext[Any], request_context: ModelRequestContext) -> ModelRequestContext:
        self._override = None
        self._shrink_done = False
        if self._hand_over(ctx.messages):
            request_context.messages = list(ctx.messages)  # the same bytes; the stamped objects
        first, self._first_request = self._first_request, False
        allowed = "cut" if self.permission is None else self.permission(first)
        if allowed == "never":  # compact_mode off: the context goes as it is
            return request_context
        from pydantic_ai.models import Model  # loaded by now: a request is being made

        # The run's model summarises when no summariser is set; a realtime model cannot.
        model = ctx.model if isinstance(ctx.model, Model) else None
        overhead = request_overhead_tokens(request_context)
        if allowed == "to_window":  # compact_mode ask, no cut chosen: over the budget, never past the window
            tokens = estimate_tokens(ctx.messages) + overhead
            if self.window_tokens is None or tokens <= self.window_tokens:
                return request_context
            await ctx.emit(CutPastWindowEvent(tokens=tokens, window_tokens=self.window_tokens))
        extra = ""
        if self.hooks is not None and self.governor.over_limits(ctx.messages, overhead_tokens=overhead):
            said = await self._pre_compact(ctx, "auto", ctx.messages, overhead, summarize=model is not None)
            if said.veto:
                past_window = self.window_tokens is not None and (
                    estimate_tokens(ctx.messages) + overhead > self.window_tokens
                )
                await ctx.emit(HookVetoEvent(honoured=not past_window))
                if not past_window:  # over the budget; a provider's overflow error is still recovered
                    return request_context
            extra = said.instructions
        outcome = await self.governor.apply(
            ctx.messages, model=model, overhead_tokens=overhead, extra_instructions=extra
        )
        if outcome.changed:
            await self._commit(ctx, outcome)
            request_context.messages = list(outcome.messages)
            await self._post_compact(ctx, "auto", outcome.events)
        if not outcome.fits and not self._oversize_said:
            await self._say_oversized(ctx, outcome.messages, request_overhead_tokens(request_context))
        if outcome.pins_over_budget and not self._pins_over_said:
            await ctx.emit(
                PinsOverBudgetEvent(pinned_tokens=outcome.pins_over_budget, budget_tokens=self.policy.budget_tokens)
            )
        self._pins_over_said = bool(outcome.pins_over_budget)
        return request_context

    async def _pre_compact(
        self, ctx: RunContext[Any], trigger: Trigger, messages: list[ModelMessage], overhead: int, *, summarize: bool
    ) -> PreCompactResult:
        """Run `pre_compact` (hooks are set) with the planned cut as its preview; say its line, if any."""
        assert self.hooks is not None
        _, plan = self.governor.plan_pass(
            messages, overhead_tokens=overhead, summarize=summarize and self.policy.strategy == "summarize"
        )
        payload = hook_payload(
            trigger,
            self.session_id(),
            self.policy.strategy,
            estimate_tokens(messages) + overhead,
            self.policy.budget_tokens,
            len(messages),
        )
        payload["preview"] = {
            "reason": "context_overflow" if trigger == "overflow" else plan.reason,
            "summarised_messages": len(plan.window.middle_messages) if plan.window is not None else 0,
        }
        said = await self.hooks.pre(payload)
        if said.notice:
            await ctx.emit(GovernanceNoticeEvent(message=said.notice))
        return said

    async def _post_compact(self, ctx: RunContext[Any], trigger: Trigger, events: list[HistoryTrimmed]) -> None:
        if self.hooks is None or not events:
            return
        first = events[0]
        payload = hook_payload(
            trigger, self.session_id(), self.policy.strategy, first.tokens_before, self.policy.budget_tokens, 0
        )
        payload.pop("messages")
        line = await self.hooks.post({**payload, **post_payload(events)})
        if line:
            await ctx.emit(GovernanceNoticeEvent(message=line))

    async def _say_oversized(self, ctx: RunContext[Any], messages: list[ModelMessage], overhead: int) -> None:
        """The rules ran out with the request still over budget: if that is the newest turn's own
        weight (it is never cut), say so once this run."""
        from co_tui.governance.oversize import oversized_turn_tokens

        tokens = oversized_turn_tokens(messages, self.policy.budget_tokens, overhead)
        if tokens is not None:
            self._oversize_said = True
            await ctx.emit(OversizedTurnEvent(turn_tokens=tokens, budget_tokens=self.policy.budget_tokens))

    async def prepare_model_request(
        self, ctx: RunContext[Any], request_context: ModelRequestContext
    ) -> ModelRequestContext:
        """pydantic-ai hook before each attempt: a retry after an overflow cut gets the cut context back
        (pydantic-ai restores the pre-cut request); otherwise `request_context` is returned unchanged."""
        # A retry after an overflow cut starts from the pre-cut request: put the cut back (and
        # `recall`, should the cut have left the first note).
        if self._override is not None:
            request_context.messages = list(self._override)
            request_context.model_request_parameters = offer_recall(
                self._all_tools or request_context.model_request_parameters, request_context.messages
            )
        return request_context

    async def on_model_request_error(
        self, ctx: RunContext[Any], *, request_context: ModelRequestContext, error: Exception
    ) -> ModelResponse:
        """pydantic-ai hook: on `ModelContextWindowExceededError` cut harder (`Governor.recover_overflow`,
        reason `context_overflow`), emit the events and raise `RetryModelRequest`. Re-raises `error` when
        it is any other error or nothing is left to cut; never returns a response."""
        if not isinstance(error, ModelContextWindowExceededError):
            raise error
        self._hand_over(ctx.messages)
        messages, overhead = list(ctx.messages), request_overhead_tokens(request_context)
        if self.hooks is not None:  # told, never asked: no veto and no summary on this path
            await self._pre_compact(ctx, "overflow", messages, overhead, summarize=False)

        def recover() -> tuple[PolicyOutcome, bool]:
            return self.governor.recover_overflow(messages, shrink_done=self._shrink_done, overhead_tokens=overhead)

        outcome, shrink_ran = await _in_thread(recover) if len(messages) >= OFFLOAD_MIN_MESSAGES else recover()
        self._shrink_done = self._shrink_done or shrink_ran
        if not outcome.changed:
            raise error
        await self._commit(ctx, outcome)
        await self._post_compact(ctx, "overflow", outcome.events)
        self._override = list(outcome.messages)
        raise RetryModelRequest()


async def _in_thread(call: Callable[[], Any]) -> Any:
    """`Governor.offload`: run `call` in a worker thread, awaited (see `policy.OFFLOAD_MIN_MESSAGES`)."""
    return await asyncio.to_thread(call)

"""`Compaction`: `/compact [focus]` — summarise the whole context into two messages, with the user's
compaction hooks around it, applied by the session's `EditApplier` as every edit is.

The event's `tokens_before`/`tokens_after` are the meter's readings of the context before and
after, so the banner and the meter agree to the token (docs/context-governance.md, "The
`history_trimmed` event"). Nothing happens on an empty context (`Done` with reason
`NOTHING_TO_COMPACT`); on failure or cancellation the context is unchanged (and the error shown).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from dataclasses import asdict
from typing import TYPE_CHECKING, Any

from co_tui.governance.capability import hook_payload, post_payload
from co_tui.governance.pins import compact_around_pins
from co_tui.session.compaction import plan_compact
from co_tui.session.events import Done, DoneReason, ErrorEvent, Event, Notice
from co_tui.session.eviction import plan_compact_preview
from co_tui.session.wording import busy_line

if TYPE_CHECKING:
    from co_tui.governance.events import HistoryTrimmed
    from co_tui.governance.hook_port import Trigger
    from co_tui.session.agent_binding import AgentBinding
    from co_tui.session.applying import EditApplier
    from co_tui.session.busy import Busy
    from co_tui.session.metering import Metering

__all__ = ["Compaction"]

NOTHING_TO_COMPACT = "nothing to compact"  # `Done.output` of a compaction that found nothing (jsonl's, unchanged)


class Compaction:
    """`/compact` for one agent's conversation: `binding`'s summariser and policy, `metering`'s
    figures, applied by `applier`; refused while `busy`, which it holds while it runs.
    `error_event(exc)` words a failure (`TurnRunner.error_event`)."""

    def __init__(
        self,
        applier: EditApplier,
        binding: AgentBinding,
        metering: Metering,
        busy: Busy,
        *,
        session_id: Callable[[], str],
        error_event: Callable[[BaseException], ErrorEvent],
    ) -> None:
        self.applier, self.binding, self.metering, self.busy = applier, binding, metering, busy
        self._session_id, self._error_event = session_id, error_event

    def preview(self) -> HistoryTrimmed | None:
        """What `/compact` would summarise now, with the estimated size after (None: nothing to)."""
        return plan_compact_preview(self.applier.history, self.metering.gauge())

    async def run(self, focus: str | None = None) -> AsyncIterator[Event]:
        """Summarise the context (module docstring); yield the events, ending with `Done`. Never raises."""
        if self.busy.running:
            yield ErrorEvent(message=busy_line("compacting"), kind="internal")
            yield Done(output="", failed=True)
            return
        history, binding = self.applier.history, self.binding
        if not history.context:
            yield Done(output=NOTHING_TO_COMPACT, reason=DoneReason.NOTHING_TO_COMPACT)
            return
        self.busy.running = True
        figure_before = binding.meter.reading(history.context).tokens  # the figure the meter shows now
        from co_tui.governance.summarize import COMPACT_INSTRUCTIONS

        instructions, instructions_from = binding.policy.instructions_for(COMPACT_INSTRUCTIONS)
        hooks = binding.governance.hooks
        try:
            if hooks is not None:  # the user's pre_compact: its output joins the instructions; no veto here
                from co_tui.governance.summary_step import with_hook_instructions  # the policy steps load at first use

                said = await hooks.pre(self._hook_payload("manual", figure_before))
                if said.notice:
                    yield Notice(message=said.notice)
                instructions, instructions_from = with_hook_instructions(
                    instructions, instructions_from, said.instructions
                )
            result = await compact_around_pins(
                list(history.context),
                binding.governor.pins,
                binding.governance.summarizer_model or binding.model,
                focus,
                budget_tokens=binding.policy.budget_tokens,
                overhead_tokens=binding.overhead,
                instructions=instructions,
                instructions_from=instructions_from,
            )
        except Exception as exc:  # the history stays as it was
            yield self._error_event(exc)
            yield Done(output="", failed=True)
            return
        finally:  # also when the front end cancels the compaction: the context is untouched then
            self.busy.running = False
        if result.event is None:  # no turn to summarise, e.g. the context is already one compact pair
            yield Done(output=NOTHING_TO_COMPACT, reason=DoneReason.NOTHING_TO_COMPACT)
            return
        applied = await self.applier.apply(plan_compact(history, self.metering.gauge(), result, figure_before))
        yield applied.trim
        yield self.metering.reading()
        if hooks is not None and (
            line := await hooks.post({**self._hook_payload("manual", figure_before), **post_payload([result.event])})
        ):
            yield Notice(message=line)
        yield Done(output=result.event.summary or "")

    def _hook_payload(self, trigger: Trigger, tokens_before: int) -> dict[str, Any]:
        """What a compaction hook reads for `/compact` (docs/configuration.md, "Hooks")."""
        preview = self.preview()
        history = self.applier.history
        budget = self.binding.policy.budget_tokens
        payload = hook_payload(trigger, self._session_id(), "compact", tokens_before, budget, len(history.context))
        payload["preview"] = asdict(preview) if preview is not None else None
        return payload

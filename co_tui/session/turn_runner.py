"""`TurnRunner`: one user turn of a session — the agent run, its events, and folding its messages
into the history.

On success, interrupt or failure alike, the messages the run completed are appended to the
transcript, the context becomes the run's (repaired) history, and the turn is saved (in a thread:
the save syncs to disk, and a front end's loop keeps running meanwhile). Failures never raise out
of `run`: they become an `ErrorEvent` and the history stays valid for the next turn.

Its collaborators: the agent's `AgentBinding` (model, governed agent, meter), the `History`, the
`Metering` (usage events), the `EditApplier` every cut made inside the run goes through, and its
`TurnSaves` — a session's store, or `NoStore()` for a turn kept in memory only (a subagent's).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from pydantic_ai import AgentRunResultEvent, UsageLimits
from pydantic_ai.exceptions import RunCancelled
from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse, ToolReturnPart, repair_messages

from co_tui.agent.errors import describe_error
from co_tui.governance.capability import (
    CutPastWindowEvent,
    GovernanceNoticeEvent,
    HistoryTrimmedEvent,
    HookVetoEvent,
    OversizedTurnEvent,
    PinsOverBudgetEvent,
)
from co_tui.governance.compact_mode import SendChoice
from co_tui.governance.handles import stamp_handles
from co_tui.governance.markers import tag_fused_markers
from co_tui.governance.preview import preview_big_outputs
from co_tui.session.answer_cap import (
    AnswerCap,
    cap_line,
    cap_notice,
    capped_history,
    over_cap,
    stopped_over_cap_notice,
)
from co_tui.session.child_event import ChildEvent
from co_tui.session.events import (
    INTERRUPTED_MESSAGE,
    Done,
    ErrorEvent,
    Event,
    Notice,
    OversizedTurn,
    TextDelta,
    UsageUpdate,
)
from co_tui.session.history import Edit
from co_tui.session.oversize import refuse_oversized_prompt, sent_whole
from co_tui.session.stream_map import map_stream_event
from co_tui.session.wording import past_window_line, pins_over_budget_line, veto_line

if TYPE_CHECKING:
    from pydantic_ai import AgentRunEvents

    from co_tui.session.agent_binding import AgentBinding
    from co_tui.session.applying import EditApplier
    from co_tui.session.history import History
    from co_tui.session.metering import Metering
    from co_tui.session.persistence import TurnSaves

__all__ = ["TurnRunner", "answer_stopped_calls"]


def answer_stopped_calls(messages: list[ModelMessage], returns: Sequence[ToolReturnPart]) -> list[ModelMessage]:
    """`messages` (a stopped run's) with `returns` added after them, those that answer a call that
    has no result yet; the others are dropped (their call is not in this run, or was answered)."""
    answered = {
        p.tool_call_id for m in messages if m.kind == "request" for p in m.parts if p.part_kind == "tool-return"
    }
    called = {p.tool_call_id for m in messages if m.kind == "response" for p in m.parts if p.part_kind == "tool-call"}
    fitting = [r for r in returns if r.tool_call_id in called - answered]
    return [*messages, ModelRequest(parts=fitting)] if fitting else messages


class StoppedChildren(Protocol):
    """What a run's subagents leave when they are stopped with it (`subagents.Delegations`)."""

    def take_late_events(self) -> list[Event]:
        """Their events not said yet: said after the run, before its `Done`."""
        ...

    def take_stopped_results(self) -> list[ToolReturnPart]:
        """Their `delegate` results, put where the stopped step left the calls unanswered."""
        ...


class _NoChildren:
    def take_late_events(self) -> list[Event]:
        return []

    def take_stopped_results(self) -> list[ToolReturnPart]:
        return []


class TurnRunner:
    """Runs the turns of one agent's conversation (see module docstring): `applier` commits the
    cuts a run makes (to its `history`), `saves` keeps the turns, `children` are its subagents
    (none: a child's own runner)."""

    def __init__(
        self,
        binding: AgentBinding,
        history: History,
        metering: Metering,
        applier: EditApplier,
        saves: TurnSaves,
        *,
        children: StoppedChildren | None = None,
    ) -> None:
        self.binding, self.history, self.metering = binding, history, metering
        self.applier, self.saves = applier, saves
        self.running = False
        self._run: AgentRunEvents[Any] | None = None
        self._cancel_requested = False
        self._checkpoint_due = False
        self.children: StoppedChildren = children if children is not None else _NoChildren()

    def record(self, messages: Sequence[ModelMessage]) -> list[ModelMessage]:
        """The governance capability's transcript sink: a step finished (its tool results are in) or
        the prompt went out; saved at the next event. Returns the messages as the transcript keeps
        them: each tool output stamped with its handle (`governance.handles`); the run goes on with
        the big ones previewed (`governance.preview`: kept whole in the transcript)."""
        stamped = stamp_handles(messages, len(self.history.transcript))
        self.history.extend(stamped)
        self._checkpoint_due = self.running
        return preview_big_outputs(stamped, self.binding.settings.tool_output_preview_chars)

    def append_to_context(self, messages: Sequence[ModelMessage]) -> None:
        """Add messages made outside a run (a `!command`'s exchange) at the end of the transcript and
        of the context, as a run's steps are added (`record`)."""
        self.history.set_context([*self.history.context, *self.record(messages)])

    def refusal(self, prompt: str) -> OversizedTurn | None:
        """The event refusing `prompt` before anything is sent (it cannot fit the window), or None."""
        binding = self.binding
        return refuse_oversized_prompt(
            prompt,
            overhead_tokens=binding.overhead,
            budget_tokens=binding.policy.budget_tokens,
            context_window=None if binding.policy.window_is_guess else binding.context_window,  # no refusal on a guess
        )

    async def run(
        self,
        prompt: str,
        choice: SendChoice | None = None,
        *,
        typed: str | None = None,
        request_limit: int | None = None,
    ) -> AsyncIterator[Event]:
        """Run one user turn; yield its events; always end with `Done`. Never raises. `choice`: what
        the user chose for its send in `compact_mode` ask (the capability reads it for this run).
        `typed`: the prompt as the user typed it, when `prompt` adds to it (`@path` attachments): the
        title's. `request_limit`: the most model requests the turn may make (a subagent's; None:
        pydantic-ai's default); past it the turn fails, its messages kept."""
        title = typed if typed is not None else prompt
        self._cancel_requested, self.running = False, True
        self.binding.send_choice = choice
        # The instruction files changed since the last turn: the model is sent the new text, said in one line.
        for notice in await asyncio.to_thread(self.binding.resources.refresh_instructions):
            yield notice
        for notice in self.binding.turn_notices(self.history.context):  # compact_mode off; a bad COMPACT.md
            yield notice
        output_parts: list[str] = []
        answer = AnswerCap(self.binding.settings.max_answer_chars)  # one response's text, capped
        interrupted = failed = capped_on_stop = False
        error: ErrorEvent | None = None
        history_in = list(self.history.context)
        # What the model is about to be sent before this prompt: what a rewind to it restores.
        self.saves.mark_prompt(self.history, self.binding.meter)
        run_messages: list[ModelMessage] | None = None
        try:
            # A run starts by cleaning its history (fusing adjacent requests, e.g. a cut's marker
            # saved apart from the prompt after it) and counts new messages from there; hand it that
            # shape so the governance's count of known messages is the run's (idempotent otherwise).
            history_in = repair_messages(history_in)
            governance = self.binding.governance
            governance.begin_run(len(history_in))
            seen_responses: set[int] = set()
            try:
                limits = None if request_limit is None else UsageLimits(request_limit=request_limit)
                async with self.binding.agent.run_stream_events(
                    prompt, message_history=history_in, usage_limits=limits
                ) as run:
                    self._run = run
                    if self._cancel_requested:
                        run.cancel()
                    async for event in run:
                        if self._checkpoint_due:
                            await self._checkpoint(title)
                        if isinstance(event, HistoryTrimmedEvent):
                            # A cut of the run's messages: recorded now, the context is the run's at its end.
                            edit = Edit(event=event.to_domain(), record=self.history.cut_record(event.before))
                            trim = self.applier.commit(edit)  # saved with the turn's next step
                            assert trim is not None
                            yield trim
                            if event.ends_pass and (cut := self._partial_messages()) is not None:
                                # The meter shows the request the cut leaves: the banner's "after".
                                yield self.metering.usage(cut)
                            continue
                        if isinstance(event, ChildEvent):  # a subagent's, live while its delegate call runs
                            yield event.event
                            continue
                        if isinstance(event, GovernanceNoticeEvent):  # a compaction hook's one line
                            yield Notice(message=event.message)
                            continue
                        if isinstance(event, OversizedTurnEvent):
                            yield sent_whole(event.turn_tokens, event.budget_tokens, self.binding.context_window)
                            continue
                        if isinstance(event, PinsOverBudgetEvent):  # said once: no cut is made meanwhile
                            yield Notice(message=pins_over_budget_line(event.pinned_tokens, event.budget_tokens))
                            continue
                        if isinstance(event, CutPastWindowEvent):  # compact_mode ask, mid-turn
                            yield Notice(message=past_window_line(event.tokens, event.window_tokens))
                            continue
                        if isinstance(event, HookVetoEvent):
                            yield Notice(message=veto_line(event.honoured))
                            continue
                        if isinstance(event, AgentRunResultEvent):
                            run_messages = event.result.all_messages()
                            # The final response arrives with the result: anchor the meter on it too.
                            usage_event = self._observe_new_response(run, seen_responses)
                            if usage_event is not None:
                                yield usage_event
                            break
                        for mapped in map_stream_event(
                            event, preview_chars=self.binding.settings.tool_output_preview_chars
                        ):
                            if mapped.type == "text_delta":
                                if answer.reached:
                                    continue  # stopped: what the run still hands over is not shown
                                mapped = TextDelta(text=answer.take(mapped.text))
                                output_parts.append(mapped.text)
                                if answer.reached:
                                    output_parts.append(cap_line(answer.cap))
                                    yield TextDelta(text=mapped.text + cap_line(answer.cap))
                                    yield Notice(message=cap_notice(answer.cap))
                                    run.cancel()  # the run ends as an interrupt does, its messages kept
                                    continue
                            elif mapped.type == "tool_call":
                                answer.reset()
                            yield mapped
                            # A tool call means its response is complete and carries provider usage:
                            # re-anchor the meter (checked only here, not per text delta: it copies history).
                            if mapped.type == "tool_call":
                                usage_event = self._observe_new_response(run, seen_responses)
                                if usage_event is not None:
                                    yield usage_event
            except RunCancelled as exc:
                run_messages = exc.all_messages()
                if answer.reached:  # stopped at the cap, not by the user: the answer ends as shown
                    run_messages = capped_history(run_messages, answer.cap, answer.shown)
                else:
                    interrupted = True
                    # Stopped by the user just short of the cap: the run may hold text that came after
                    # the last delta shown. What is kept is capped as a finished answer is, and said.
                    if over_cap(run_messages, answer.cap):
                        run_messages = capped_history(run_messages, answer.cap, answer.shown)
                        capped_on_stop = True
            except (asyncio.CancelledError, GeneratorExit):
                # The front end stopped the turn from outside (its task cancelled on quit, a closed
                # terminal, the generator dropped): keep what the turn did, as an interrupt does.
                self._keep_abandoned(history_in, title)
                raise
            except Exception as exc:  # every failure becomes one visible line
                failed = True
                error = self.error_event(exc, partial=bool(output_parts))
                run_messages = self._partial_messages()
            self._finish_run(history_in, run_messages)
        except Exception as exc:  # last line of defence: the app never dies here
            failed = True
            error = self.error_event(exc)
        finally:
            self._run = None
            self.running = False
            self.binding.send_choice = None
        # Saved before any yield: a front end that stops listening loses nothing; in a thread, as
        # the save syncs to disk and a front end's loop keeps running meanwhile.
        save_error = await asyncio.to_thread(self.saves.save_turn, title)
        if error is not None:
            yield error
        if interrupted:
            yield ErrorEvent(message=INTERRUPTED_MESSAGE, kind="interrupted")
        if capped_on_stop:
            yield Notice(message=stopped_over_cap_notice(answer.cap))
        if save_error is not None:
            yield save_error
        for late in self.children.take_late_events():
            yield late
        yield self.metering.reading()
        yield Done(output="".join(output_parts), interrupted=interrupted, failed=failed)

    def _observe_new_response(self, run: AgentRunEvents[Any], seen: set[int]) -> UsageUpdate | None:
        try:
            messages = run.all_messages()
        except Exception:  # the run may not have started its state yet
            return None
        if not messages or not isinstance(messages[-1], ModelResponse) or id(messages[-1]) in seen:
            return None
        last = messages[-1]
        seen.add(id(last))
        self.binding.meter.observe_response(last.usage, messages)
        return self.metering.usage(messages, new_response=last)

    def _keep_abandoned(self, history_in: list[ModelMessage], prompt: str) -> None:
        try:
            self._finish_run(history_in, self._partial_messages())
            self.saves.save_turn(prompt)
        except Exception:  # best effort while being torn down; the step saves already hold the rest
            pass

    async def _checkpoint(self, prompt: str) -> None:
        """Save the steps the running turn has completed, so a kill (SIGKILL, power loss) loses at
        most the step in flight. The saved context is the run's so far, repaired to be valid. In a
        thread, as the turn's final save: the save syncs to disk, and the front end's loop (its
        keys, its frames) runs meanwhile; the run waits for it, so it reads a history at rest."""
        self._checkpoint_due = False
        messages = self._partial_messages()
        if messages:  # a failure is reported by the final save
            await asyncio.to_thread(self.saves.save_step, prompt, repair_messages(messages))

    def _partial_messages(self) -> list[ModelMessage] | None:
        run = self._run
        if run is None:
            return None
        try:
            return run.all_messages()
        except Exception:  # a run that never started has no messages
            return None

    def _finish_run(self, history_in: list[ModelMessage], run_messages: list[ModelMessage] | None) -> None:
        """Fold the run's messages into transcript and context; history always ends provider-valid."""
        if run_messages is None:
            return
        run_messages = answer_stopped_calls(run_messages, self.children.take_stopped_results())
        # The governance capability handed every message up to its last pass to the transcript;
        # what came after it (the final response, a partial one) is taken here.
        seen = self.binding.governance.seen_len
        tail = stamp_handles(run_messages[seen:], len(self.history.transcript))
        self.history.extend(tail)
        run_messages = [
            *run_messages[:seen],
            *preview_big_outputs(tail, self.binding.settings.tool_output_preview_chars),
        ]
        # repair_messages closes dangling calls after an interrupt. Like pydantic-ai at run start, it
        # fuses a marker with the prompt after it; the context is kept in that fused form so the next
        # run's history has the length the governance transcript sink counts from (governance and
        # the inspector see markers through `separate_markers`). The fusion drops the marker's metadata:
        # `tag_fused_markers` writes its kind and counts back onto the fused request, so they are saved.
        self.history.set_context(tag_fused_markers(repair_messages(run_messages)))

    def error_event(self, exc: BaseException, *, partial: bool | None = None) -> ErrorEvent:
        """`exc` as one line the user sees (`agent.errors.describe_error`)."""
        # `partial`: whether answer text had arrived (a broken stream says "kept" only then).
        message, kind = describe_error(exc, model_name=self.binding.model_name, partial=partial)
        return ErrorEvent(message=message, kind=kind)

    def cancel(self) -> None:
        """Interrupt the running turn (Esc / Ctrl+C). Safe from any task; a no-op when idle."""
        self._cancel_requested = True
        if self._run is not None:
            self._run.cancel()

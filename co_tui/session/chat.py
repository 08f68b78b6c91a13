"""ChatSession: runs turns, owns the two history views and the trim ledger, yields domain events.

One session object serves both front ends (TUI and print mode). It holds:

- `transcript`: every message that happened, append-only, originals only;
- `context`: what the model is sent next (governance rewrites only this);
- `ledger`: every `history_trimmed` event, in order.

Every public coroutine yields domain events (`co_tui.session.events`) and always ends with `Done`.
Failures never raise out of `run_turn`/`compact`: they become an `ErrorEvent` and the history stays
valid for the next turn. pydantic-ai is imported here, so the TUI builds a session only after its
first paint.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator, Sequence
from dataclasses import replace
from datetime import UTC
from pathlib import Path
from typing import TYPE_CHECKING, Any

from co_tui.agent.tools import Approver
from co_tui.config import Settings
from co_tui.governance.events import HistoryTrimmed
from co_tui.session.events import INTERRUPTED_MESSAGE, Done, ErrorEvent, Event, Notice, UsageUpdate
from co_tui.session.stream_map import map_stream_event
from co_tui.text import one_line

if TYPE_CHECKING:
    from pydantic_ai import AgentRunEvents
    from pydantic_ai.messages import ModelMessage, ModelResponse
    from pydantic_ai.models import Model

    from co_tui.agent.mcp_servers import McpServers
    from co_tui.agent.project_instructions import InstructionFile
    from co_tui.governance.next_cut import NextCut
    from co_tui.session.context_breakdown import ContextBreakdown
    from co_tui.session.conversation_counts import ConversationCounts
    from co_tui.session.lazy_transcript import LazyTranscript
    from co_tui.session.steering import PinChange
    from co_tui.session.store import SessionStore

TITLE_CHARS = 60

# Said after a failed save: true in the TUI, which keeps the turn; not for a one-shot session (print
# mode exits after its turn: its rescue copy keeps it).
KEPT_IN_MEMORY = " (the conversation is kept in memory)"


def _shown_count(messages: Sequence[ModelMessage]) -> int:
    """Messages in context as the user sees them: a marker fused with the next prompt counts apart,
    so the meter and the history inspector give the same number."""
    from co_tui.governance.markers import separate_markers

    return len(separate_markers(messages))


def _cut_kind(session: ChatSession, messages: Sequence[ModelMessage]) -> str | None:
    """The strategy of the cut the meter announces (`trims on next send` says which kind)."""
    from co_tui.session.eviction import next_cut_of

    cut = next_cut_of(session, messages)
    return cut.kind if cut is not None else None


def make_title(prompt: str) -> str:
    """A session title from the first user prompt: one line, at most TITLE_CHARS characters."""
    return one_line(prompt, TITLE_CHARS)


def _mcp_servers(settings: Settings, workspace: Path, approver: Approver | None) -> McpServers:
    """The session's MCP servers (none configured: an empty `McpServers`, nothing imported)."""
    from co_tui.agent.mcp_servers import load_mcp_servers

    servers = load_mcp_servers(settings, workspace)
    servers.approver = approver
    return servers


class ChatSession:
    """A conversation with one model, governed, optionally persisted. See module docstring."""

    def __init__(
        self,
        settings: Settings,
        *,
        workspace: Path,
        store: SessionStore | None = None,
        session_id: str | None = None,
        model: Model | str | None = None,
        approver: Approver | None = None,
        one_shot: bool = False,
    ) -> None:
        self.settings = settings
        # The front end exits after one turn (print mode): errors do not promise what only a running
        # process keeps (`KEPT_IN_MEMORY`).
        self.one_shot = one_shot
        self.workspace = Path(workspace).resolve()
        self.store = store
        self.approver = approver
        self.id: str = session_id or uuid.uuid4().hex
        self.title: str = ""
        self.transcript: list[ModelMessage] | LazyTranscript = []  # lazy once resumed
        self._saved_counts: ConversationCounts | None = None  # of a lazy transcript's saved messages
        self.context: list[ModelMessage] = []
        self.ledger: list[HistoryTrimmed] = []
        # ledger_positions[i]: transcript length when ledger[i] happened (where its banner goes).
        self.ledger_positions: list[int] = []
        # ledger_records[i]: what undoing ledger[i] needs (governance/restore.py CutRecord); `pins`:
        # transcript indices of the pinned turns' prompts (session/steering.py).
        self.ledger_records: list[Any] = []
        self.pins: list[int] = []
        self.busy = False
        # Saved to the store lazily, at the first completed turn: opening and quitting leaves no empty session.
        self._persisted = session_id is not None
        self._saved_transcript_len = 0
        self._saved_ledger_len = 0
        self._run: AgentRunEvents[Any] | None = None
        self._cancel_requested = False
        self._checkpoint_due = False
        # This process's claim on the session in the store (session_lock.py): taken by `resume`
        # before loading, or at the first save of a new session; released by `close`.
        self._claim: Any = None
        self.mcp = _mcp_servers(settings, self.workspace, approver)
        from co_tui.agent.project_instructions import ProjectInstructions

        # AGENTS.md / CLAUDE.md, sent with every request (docs/configuration.md, "Project instructions").
        self.project = ProjectInstructions(self.workspace, enabled=settings.project_instructions)
        self._configure_model(model if model is not None else settings.model)
        from co_tui.session.request_overhead import follow_mcp_tools

        follow_mcp_tools(self)  # an MCP server's schemas count once it has listed its tools

    # --- model and governance wiring -------------------------------------------------------------

    def _configure_model(self, model: Model | str) -> None:
        """Resolve the model and build the governed agent. Raises `ModelConfigError` on a bad model."""
        from co_tui.agent.factory import build_agent
        from co_tui.agent.models import context_window_of, is_offline, resolve_model
        from co_tui.governance import ContextGovernance, GovernancePolicy
        from co_tui.session.recall_source import recall_source

        resolved = resolve_model(model, self.settings) if isinstance(model, str) else model
        s = self.settings
        self.policy = GovernancePolicy.from_settings(s, context_window=context_window_of(resolved))
        summarizer = resolve_model(s.summarization_model, s) if s.summarization_model else None
        self.model = resolved
        self.model_name = model if isinstance(model, str) else f"{resolved.system}:{resolved.model_name}"
        self.is_offline = is_offline(resolved)
        self.governance = ContextGovernance(
            policy=self.policy,
            summarizer_model=summarizer,
            transcript_sink=self._record_transcript,
            meter_of=lambda: self.meter,  # a cut's banner gives the meter's figures: the two agree
        )
        self.agent = build_agent(
            s,
            workspace=self.workspace,
            model=resolved,
            capabilities=[self.governance],
            approver=self.approver,
            toolsets=self.mcp.toolsets(),
            project_instructions=lambda: self.project.text,
            recall=recall_source(self),
        )
        from co_tui.session.request_overhead import session_overhead_tokens

        self._overhead = session_overhead_tokens(self)  # after the agent: its tools are priced, not built again
        self.context_window = context_window_of(resolved) or s.fallback_context_window
        self.meter = self._new_meter()

    def _new_meter(self) -> Any:
        from co_tui.governance import TokenMeter

        return TokenMeter(
            provider=getattr(self.model, "system", None) or "unknown",
            model_name=getattr(self.model, "model_name", None),
            overhead_tokens=self._overhead,
        )

    @property
    def overhead_tokens(self) -> int:
        """Tokens every request carries besides the history (instructions, tool schemas)."""
        return self._overhead

    def set_model(self, name: str) -> None:
        """Switch models for the following turns (`/model`). Raises `ModelConfigError`; the old model stays."""
        if self.busy:
            raise RuntimeError("cannot switch models while a turn is running")
        self._configure_model(name)

    def _record_transcript(self, messages: Sequence[ModelMessage]) -> list[ModelMessage]:
        from co_tui.governance.handles import stamp_handles

        stamped = stamp_handles(messages, len(self.transcript))  # each tool output gets its handle
        self.transcript.extend(stamped)
        # A step finished (its tool results are in) or the prompt went out: save it at the next event.
        self._checkpoint_due = self.busy
        return stamped

    # --- the meter -------------------------------------------------------------------------------

    def meter_reading(self) -> UsageUpdate:
        """The meter's current figure for `context` (what the model will be sent next)."""
        return self._usage_update(self.context, next_prompt=True)

    def _usage_update(
        self, messages: Sequence[ModelMessage], *, new_response: Any = None, next_prompt: bool = False
    ) -> UsageUpdate:
        """The `usage` event for `messages` (the context, or a running turn's messages): the meter's
        figure, whether governance cuts before the next request, the newest report's cache counts,
        the session's cost so far (`new_response`: a response not in the transcript yet) and the
        look-ahead to the next cut (`next_prompt`: judged for the request the next prompt makes). The
        one place a `usage` event is built."""
        from co_tui.governance import turn_growth, turns_until_cut
        from co_tui.session.lazy_transcript import transcript_cost

        trim_pending = self.governance.governor.over_limits(
            messages, overhead_tokens=self._overhead, next_prompt=next_prompt
        )
        reading = self.meter.reading(messages)
        growth = turn_growth(messages)
        turns_to_trim = (
            None
            if growth is None or trim_pending
            else turns_until_cut(
                tokens=reading.tokens,
                budget_tokens=self.policy.budget_tokens,
                tokens_per_turn=growth.tokens * reading.ratio,  # in the meter's (calibrated) tokens
                messages=growth.turn_messages,
                max_messages=self.policy.max_history_messages,
                messages_per_turn=growth.messages,
            )
        )
        pending = (
            [new_response]
            if new_response is not None and not any(m is new_response for m in self.transcript[-4:])
            else []
        )
        return UsageUpdate(
            input_tokens=reading.input_tokens,
            output_tokens=reading.output_tokens,
            context_tokens=reading.tokens,
            budget_tokens=self.policy.budget_tokens,
            messages=_shown_count(messages),
            max_messages=self.policy.max_history_messages,
            exactness=reading.exactness,
            window_is_guess=self.policy.window_is_guess,
            trim_pending=trim_pending,
            cache_read_tokens=reading.cache_read_tokens,
            cache_write_tokens=reading.cache_write_tokens,
            cost_usd=transcript_cost(self.transcript, pending, self.ledger),
            turns_to_trim=turns_to_trim,
            trim_kind=_cut_kind(self, messages) if trim_pending else None,
            pinned_tokens=self._pinned_tokens(messages),
            oversized_turn=not next_prompt and self._newest_turn_oversized(messages),
            mcp_starting=len(self.mcp.starting()) if self.mcp else 0,
            window_tokens=self.context_window,
        )

    def _pinned_tokens(self, messages: Sequence[ModelMessage]) -> int:
        pins = self.governance.governor.pins
        if not pins:
            return 0
        from co_tui.governance.pins import pinned_tokens

        return pinned_tokens(messages, pins)

    def _newest_turn_oversized(self, messages: Sequence[ModelMessage]) -> bool:
        from co_tui.governance.oversize import oversized_turn_tokens

        return oversized_turn_tokens(messages, self.policy.budget_tokens, self._overhead) is not None

    # --- turns -----------------------------------------------------------------------------------

    async def run_turn(self, prompt: str) -> AsyncIterator[Event]:
        """Run one user turn; yield its events; always end with `Done`. Never raises.

        On success, interrupt or failure alike, the messages the run completed are appended to the
        transcript, the context becomes the run's (repaired) history, and the turn is saved (in a
        thread: the save syncs to disk, and a front end's loop keeps running meanwhile).
        """
        if self.busy:
            yield ErrorEvent(message="a turn is already running", kind="internal")
            yield Done(output="", failed=True)
            return
        from co_tui.session.oversize import refuse_oversized_prompt

        refused = refuse_oversized_prompt(
            prompt,
            overhead_tokens=self._overhead,
            budget_tokens=self.policy.budget_tokens,
            context_window=None if self.policy.window_is_guess else self.context_window,  # no refusal on a guess
        )
        if refused is not None:  # nothing sent, nothing added to the history
            yield refused
            yield Done(output="", failed=True)
            return
        self.busy = True
        try:
            async for event in self._turn(prompt):
                if isinstance(event, Done):
                    self.busy = False
                yield event
        finally:
            self._run = None
            self.busy = False

    async def _turn(self, prompt: str) -> AsyncIterator[Event]:
        self._cancel_requested = False
        from co_tui.session.instructions_reload import refresh_instructions

        # The instruction files changed since the last turn: the model is sent the new text, said in one line.
        for notice in await asyncio.to_thread(refresh_instructions, self):
            yield notice
        output_parts: list[str] = []
        interrupted = failed = False
        error: ErrorEvent | None = None
        history_in = list(self.context)
        run_messages: list[ModelMessage] | None = None
        try:
            from pydantic_ai import AgentRunResultEvent
            from pydantic_ai.exceptions import RunCancelled
            from pydantic_ai.messages import ModelResponse, repair_messages

            from co_tui.governance.capability import HistoryTrimmedEvent, OversizedTurnEvent, PinsOverBudgetEvent
            from co_tui.session.oversize import sent_whole

            # A run starts by cleaning its history (fusing adjacent requests, e.g. a cut's marker
            # saved apart from the prompt after it) and counts new messages from there; hand it that
            # shape so the governance's count of known messages is the run's (idempotent otherwise).
            history_in = repair_messages(history_in)
            self.governance.begin_run(len(history_in))
            seen_responses: set[int] = set()
            try:
                async with self.agent.run_stream_events(prompt, message_history=history_in) as run:
                    self._run = run
                    if self._cancel_requested:
                        run.cancel()
                    async for event in run:
                        if self._checkpoint_due:
                            self._checkpoint(prompt)
                        if isinstance(event, HistoryTrimmedEvent):
                            yield self._apply_trim(event.to_domain(), self._cut_record(event.before))
                            if event.ends_pass and (cut := self._partial_messages()) is not None:
                                # The meter shows the request the cut leaves: the banner's "after".
                                yield self._usage_update(cut)
                            continue
                        if isinstance(event, OversizedTurnEvent):
                            yield sent_whole(event.turn_tokens, event.budget_tokens, self.context_window)
                            continue
                        if isinstance(event, PinsOverBudgetEvent):  # said once: no cut is made meanwhile
                            from co_tui.governance.pins import pins_over_budget_line

                            yield Notice(message=pins_over_budget_line(event.pinned_tokens, event.budget_tokens))
                            continue
                        if isinstance(event, AgentRunResultEvent):
                            run_messages = event.result.all_messages()
                            # The final response arrives with the result: anchor the meter on it too.
                            usage_event = self._observe_new_response(run, seen_responses, ModelResponse)
                            if usage_event is not None:
                                yield usage_event
                            break
                        for mapped in map_stream_event(event):
                            if mapped.type == "text_delta":
                                output_parts.append(mapped.text)
                            yield mapped
                            # A tool call means its response is complete and carries provider usage:
                            # re-anchor the meter (checked only here, not per text delta: it copies history).
                            if mapped.type == "tool_call":
                                usage_event = self._observe_new_response(run, seen_responses, ModelResponse)
                                if usage_event is not None:
                                    yield usage_event
            except RunCancelled as exc:
                interrupted = True
                run_messages = exc.all_messages()
            except (asyncio.CancelledError, GeneratorExit):
                # The front end stopped the turn from outside (its task cancelled on quit, a closed
                # terminal, the generator dropped): keep what the turn did, as an interrupt does.
                self._keep_abandoned(history_in, prompt)
                raise
            except Exception as exc:  # every failure becomes one visible line
                failed = True
                error = self._error_event(exc, partial=bool(output_parts))
                run_messages = self._partial_messages()
            self._finish_run(history_in, run_messages)
        except Exception as exc:  # last line of defence: the app never dies here
            failed = True
            error = self._error_event(exc)
        finally:
            self._run = None
        # Saved before any yield: a front end that stops listening loses nothing; in a thread, as
        # the save syncs to disk and a front end's loop keeps running meanwhile.
        save_error = await asyncio.to_thread(self._save, prompt)
        if error is not None:
            yield error
        if interrupted:
            yield ErrorEvent(message=INTERRUPTED_MESSAGE, kind="interrupted")
        if save_error is not None:
            yield save_error
        yield self.meter_reading()
        yield Done(output="".join(output_parts), interrupted=interrupted, failed=failed)

    def _observe_new_response(
        self, run: AgentRunEvents[Any], seen: set[int], response_type: type[ModelResponse]
    ) -> UsageUpdate | None:
        try:
            messages = run.all_messages()
        except Exception:  # the run may not have started its state yet
            return None
        if not messages or not isinstance(messages[-1], response_type) or id(messages[-1]) in seen:
            return None
        last = messages[-1]
        seen.add(id(last))
        self.meter.observe_response(last.usage, messages)
        return self._usage_update(messages, new_response=last)

    def _keep_abandoned(self, history_in: list[ModelMessage], prompt: str) -> None:
        try:
            self._finish_run(history_in, self._partial_messages())
            self._save(prompt)
        except Exception:  # best effort while being torn down; the step saves already hold the rest
            pass

    def _checkpoint(self, prompt: str) -> None:
        """Save the steps the running turn has completed, so a kill (SIGKILL, power loss) loses at
        most the step in flight. The saved context is the run's so far, repaired to be valid."""
        from pydantic_ai.messages import repair_messages

        self._checkpoint_due = False
        messages = self._partial_messages()
        if messages:
            self._save(prompt, context=repair_messages(messages))  # a failure is reported by the final save

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
        from pydantic_ai.messages import repair_messages

        if run_messages is None:
            return
        # The governance capability handed every message up to its last pass to the transcript;
        # what came after it (the final response, a partial one) is taken here.
        from co_tui.governance.handles import stamp_handles

        seen = self.governance.seen_len
        tail = stamp_handles(run_messages[seen:], len(self.transcript))
        self.transcript.extend(tail)
        run_messages = [*run_messages[:seen], *tail]
        # repair_messages closes dangling calls after an interrupt. Like pydantic-ai at run start, it
        # fuses a marker with the prompt after it; the context is kept in that fused form so the next
        # run's history has the length the governance transcript sink counts from (governance and
        # the inspector see markers through `separate_markers`). The fusion drops the marker's metadata:
        # `tag_fused_markers` writes its kind and counts back onto the fused request, so they are saved.
        from co_tui.governance.markers import tag_fused_markers

        self.context = tag_fused_markers(repair_messages(run_messages))

    def _apply_trim(self, trim: HistoryTrimmed, record: Any = None) -> HistoryTrimmed:
        """Record `trim` in the ledger; `record` (a `CutRecord`) is what undoing it needs."""
        from co_tui.governance.restore import CutRecord

        trim = replace(trim, session_id=self.id)
        self.ledger.append(trim)
        self.ledger_positions.append(len(self.transcript))
        self.ledger_records.append(record if record is not None else CutRecord())
        return trim

    def _cut_record(self, before: Sequence[ModelMessage] | None) -> Any:
        """The `CutRecord` of a cut that started from `before` (one pass's events share it)."""
        from co_tui.governance.restore import CutRecord

        if before is None:
            return CutRecord()
        last = self.ledger_records[-1].before if self.ledger_records else None
        if last is not None and len(last) == len(before) and all(a is b for a, b in zip(last, before, strict=True)):
            return CutRecord(before=last)
        return CutRecord(before=tuple(before))

    def _error_event(self, exc: BaseException, *, partial: bool | None = None) -> ErrorEvent:
        from co_tui.agent.errors import describe_error

        # `partial`: whether answer text had arrived (a broken stream says "kept" only then).
        message, kind = describe_error(exc, model_name=self.model_name, partial=partial)
        return ErrorEvent(message=message, kind=kind)

    def cancel(self) -> None:
        """Interrupt the running turn (Esc / Ctrl+C). Safe from any task; a no-op when idle."""
        self._cancel_requested = True
        if self._run is not None:
            self._run.cancel()

    # --- manual control --------------------------------------------------------------------------

    async def compact(self, focus: str | None = None) -> AsyncIterator[Event]:
        """`/compact [focus]`: summarise the whole context into two messages. Never raises.

        The event's `tokens_before`/`tokens_after` are the meter's readings of the context before and
        after, so the banner and the meter agree to the token (docs/context-governance.md, "The
        `history_trimmed` event").

        Nothing happens on an empty context; on failure or cancellation the context is unchanged
        (and the error shown). The save runs in a thread.
        """
        from co_tui.governance.pins import compact_around_pins

        if self.busy:
            yield ErrorEvent(
                message="wait for the running turn to finish (or press Esc) before compacting", kind="internal"
            )
            yield Done(output="", failed=True)
            return
        if not self.context:
            yield Done(output="nothing to compact")
            return
        self.busy = True
        figure_before = self.meter.reading(self.context).tokens  # the figure the meter shows now
        try:
            result = await compact_around_pins(
                self.context,
                self.governance.governor.pins,
                self.governance.summarizer_model or self.model,
                focus,
                budget_tokens=self.policy.budget_tokens,
                overhead_tokens=self._overhead,
            )
        except Exception as exc:  # the history stays as it was
            yield self._error_event(exc)
            yield Done(output="", failed=True)
            return
        finally:  # also when the front end cancels the compaction: the context is untouched then
            self.busy = False
        if result.event is None:  # no turn to summarise, e.g. the context is already one compact pair
            yield Done(output="nothing to compact")
            return
        before = tuple(self.context)
        self.context = list(result.messages)
        trim = self._apply_trim(
            replace(result.event, tokens_before=figure_before, tokens_after=self.meter.reading(self.context).tokens),
            self._cut_record(before),
        )
        yield trim
        save_error = await asyncio.to_thread(self._save, None)
        if save_error is not None:
            yield save_error
        yield self.meter_reading()
        yield Done(output=trim.summary or "")

    def clear_preview(self) -> HistoryTrimmed:
        """The event `/clear` would emit now: what the confirmation dialog shows, so the dialog and
        the banner after it give the same figures (one computation feeds both)."""
        from co_tui.governance import clear_event

        event = clear_event(self.context, self.policy.budget_tokens, overhead_tokens=self._overhead)
        # The meter's own figure (its calibrated estimate), not governance's raw one: the dialog, the
        # banner and the meter beside them show one number.
        return replace(event, tokens_before=self.meter.reading(self.context).tokens)

    def clear(self) -> HistoryTrimmed:
        """`/clear`: an empty context and transcript under a fresh session id; the old one stays saved.

        Returns the `clear` event for the front end's banner, with the old session's id. No ledger
        records it: the old session's context is not changed (it resumes whole) and the new one never
        held what went, so either record would be false (docs/context-governance.md, "/compact and
        /clear"). It saves the old session first: blocking, so a front end with a UI loop calls it
        in a thread.
        """
        if self.busy:
            raise RuntimeError("cannot clear while a turn is running")
        trim = replace(self.clear_preview(), session_id=self.id)
        self._save(None)
        self.release_claim()
        self.id = uuid.uuid4().hex
        self.title = ""
        self.transcript, self.context, self.ledger, self.ledger_positions = [], [], [], []
        self.ledger_records, self.pins = [], []
        self.governance.set_pins(frozenset())
        self._persisted = False
        self._saved_transcript_len = self._saved_ledger_len = 0
        from co_tui.session.instructions_reload import reload_instructions

        reload_instructions(self)  # a fresh start reads the instruction files again
        self.meter = self._new_meter()
        return trim

    def evict(self, index: int) -> HistoryTrimmed:
        """Remove context message `index`'s tool output, or its whole older turn, from the context
        (never the transcript); see `co_tui.session.eviction.evict_from_context`. Blocking (saves)."""
        from co_tui.session.eviction import evict_from_context

        return evict_from_context(self, index)

    def next_cut(self) -> NextCut | None:
        """What the next automatic cut would remove or summarise (`NextCut`), or None: the policy's
        own rules on the context, no model call (`co_tui.session.eviction.next_cut_of`)."""
        from co_tui.session.eviction import next_cut_of

        return next_cut_of(self)

    def compact_preview(self) -> HistoryTrimmed | None:
        """What `/compact` would summarise now, with the estimated size after (None: nothing to)."""
        from co_tui.session.eviction import compact_preview_of

        return compact_preview_of(self)

    # --- steering the context (session/steering.py) ------------------------------------------

    async def restore(self, cut: int | None = None) -> HistoryTrimmed:
        """`/undo`, `u`: undo the newest cut still in effect (or ledger entry `cut`, 0-based, and every
        cut after it). Returns the `restore` event; raises `UndoRefused` with one line."""
        from co_tui.session.steering import restore

        return await restore(self, cut)

    def toggle_pin(self, index: int) -> PinChange:
        """`p`: pin (again: unpin) the turn holding transcript message `index`. Returns a
        `PinChange`; raises `PinRefused` with one line. Writes one row when saved."""
        from co_tui.session.steering import toggle_pin

        return toggle_pin(self, index)

    def pin_newest(self) -> PinChange:
        """`/pin`: pin the newest turn. Returns a `PinChange`; raises `PinRefused` with one line."""
        from co_tui.session.steering import pin_newest

        return pin_newest(self)

    def undoable_cuts(self) -> list[int]:
        """Ledger indices of the cuts still in effect that `restore` can undo, oldest first."""
        from co_tui.governance.restore import undoable_cuts

        return undoable_cuts(self.ledger, self.ledger_records)

    def salvage(self, item: str, cut: int | None = None) -> HistoryTrimmed:
        """`r` on a summary banner: append a verbatim excerpt around `item`, which ledger entry `cut`'s
        summary lost, to the end of the context (`co_tui.session.recover.recover_lost`). Blocking (saves)."""
        from co_tui.session.recover import recover_lost

        return recover_lost(self, item, cut)

    # --- persistence -----------------------------------------------------------------------------

    def _save(self, prompt: str | None, *, context: list[ModelMessage] | None = None) -> ErrorEvent | None:
        """Write what is new since the last save (and `context`, default `self.context`); a storage
        failure is reported, the session lives on."""
        if prompt and not self.title:
            self.title = make_title(prompt)
        if self.store is None:
            return None
        if not self._persisted and not self.transcript:
            return None
        from co_tui.session.lazy_transcript import transcript_cost
        from co_tui.session.store import StoreError

        try:
            if not self._persisted:
                self._claim_in_store()
                self.store.create_session(
                    model=self.model_name, workspace=self.workspace, title=self.title, session_id=self.id
                )
                self._persisted = True
            self.store.save_turn(
                self.id,
                new_transcript=self.transcript[self._saved_transcript_len :],
                context=self.context if context is None else context,
                new_events=self.ledger[self._saved_ledger_len :],
                event_positions=self.ledger_positions[self._saved_ledger_len :],
                event_records=self.ledger_records[self._saved_ledger_len :],
                title=self.title or None,
                model=self.model_name,
                tokens=self.meter.reading(self.context if context is None else context).tokens,
                cost_usd=transcript_cost(self.transcript, ledger=self.ledger),
            )
        except StoreError as exc:
            return ErrorEvent(message=f"{exc}{'' if self.one_shot else KEPT_IN_MEMORY}", kind="storage")
        self._saved_transcript_len = len(self.transcript)
        self._saved_ledger_len = len(self.ledger)
        return None

    def unsaved(self) -> bool:
        """Whether the store lacks part of this conversation: its last save failed (a damaged or
        unwritable database). The TUI then writes a rescue copy when it quits."""
        if self.store is None:
            return False
        return len(self.transcript) > self._saved_transcript_len or len(self.ledger) > self._saved_ledger_len

    @property
    def saved(self) -> bool:
        """Whether the conversation is kept in a session database (it has a store)."""
        return self.store is not None

    @property
    def catalog(self) -> SessionStore | None:
        """The store this session is saved in: the sessions picker lists it (None: not saved)."""
        return self.store

    def export(self, fmt: str, where: Path | None = None) -> Path:
        """`/export`: the saved conversation as `fmt` in a new private file (`export.export_saved`;
        `where` None: the data dir's exports folder). Raises `ValueError` when nothing is saved,
        `StoreError`, `OSError`. Blocking."""
        from co_tui.session.export import export_saved

        if self.store is None or not self._persisted:
            raise ValueError("nothing saved to export yet")
        return export_saved(self.store, self.id, fmt, where)

    @property
    def data_dir_warning(self) -> str | None:
        """The store's warning that other users can read the data dir (None: private, or not saved)."""
        return self.store.warning if self.store is not None else None

    def write_rescue_copy(self) -> Path | None:
        """After a failed save (a damaged or unwritable database), write the whole conversation as a
        JSON export (`--format json`, mode 600) beside the database, so a process about to exit
        (print mode) loses nothing. Returns the file, or None when it could not be written either."""
        import time
        from datetime import datetime

        from co_tui.session.export import export_json, write_private
        from co_tui.session.store import LoadedSession, SessionMeta

        if self.store is None or not self.transcript:
            return None
        now = datetime.now(UTC)
        meta = SessionMeta(
            id=self.id,
            title=self.title,
            created=now,
            updated=now,
            model=self.model_name,
            workspace=self.workspace,
            messages=len(self.transcript),
        )
        text = export_json(LoadedSession(meta, self.transcript, self.context, self.ledger, self.ledger_positions))
        path = self.store.path.parent / f"rescued-{self.id[:8]}-{time.strftime('%Y%m%d-%H%M%S')}.json"
        try:
            return write_private(path, text)  # a new file: a symlink planted at the name is never followed
        except OSError:
            return None

    @classmethod
    def resume(
        cls, settings: Settings, *, workspace: Path, store: SessionStore, session_id: str, **kwargs: Any
    ) -> ChatSession:
        """Reopen a saved session: transcript, context and ledger exactly as saved.

        Raises `StoreError` (one line) when the session cannot be read, and `SessionBusy` when
        another process has it open (claimed before loading, so no stale copy is ever saved over it).
        """
        from co_tui.session.session_lock import claim_session

        claim = claim_session(store.path.parent, session_id)
        try:
            loaded = store.load(session_id, lazy=True)
            session = cls(settings, workspace=workspace, store=store, session_id=loaded.meta.id, **kwargs)
        except BaseException:
            claim.release()
            raise
        session._hold_claim(claim)
        session.title = loaded.meta.title
        from co_tui.session.lazy_transcript import LazyTranscript

        # Saved messages decode when read (docs/architecture.md): resume costs the same at any length.
        lazy = loaded.transcript
        session.transcript = lazy if isinstance(lazy, LazyTranscript) else list(lazy)
        session._saved_counts = loaded.counts
        session.context = list(loaded.context)
        # A saved marker fused with a prompt at the next run start must still be known as a marker.
        from co_tui.governance.markers import register_markers

        register_markers(session.context)
        session.ledger = list(loaded.ledger)
        session.ledger_positions = list(loaded.ledger_positions)
        session._resume_steering(loaded.ledger_records, loaded.pins)
        session._saved_transcript_len = len(session.transcript)
        session._saved_ledger_len = len(session.ledger)
        session._anchor_meter_on_saved_usage()
        session._restore_summarizer_cooldown(store.last_summary_failure(session.id))
        return session

    def _resume_steering(self, records: Sequence[Any], pins: Sequence[int]) -> None:
        from co_tui.governance.restore import CutRecord
        from co_tui.session.steering import pin_keys

        self.ledger_records = list(records) or [CutRecord() for _ in self.ledger]
        self.pins = list(pins)
        self.governance.set_pins(pin_keys(self.transcript, self.pins))

    def _restore_summarizer_cooldown(self, failed_at: float | None) -> None:
        """A summary that failed in an earlier process (a print-mode turn) still cools down here, so
        each `--continue` does not retry a dead summariser; its time comes from the ledger."""
        import time

        if failed_at is None:
            return
        remaining = failed_at + self.policy.summarizer_cooldown_s - time.time()
        governor = self.governance.governor
        if remaining > 0:
            governor.cooldown_until = governor.clock() + remaining
            governor.last_summary_error = governor.last_summary_error or "the summary failed in an earlier run"

    def _claim_in_store(self) -> None:
        from co_tui.session.session_lock import claim_session

        if self._claim is None and self.store is not None:
            self._hold_claim(claim_session(self.store.path.parent, self.id))

    def _hold_claim(self, claim: Any) -> None:
        import weakref

        self.release_claim()
        self._claim = claim
        weakref.finalize(self, claim.release)  # a session dropped without `close` lets go too

    def release_claim(self) -> None:
        """Let other processes open this session (the TUI switching away, `/clear`). Idempotent."""
        claim, self._claim = self._claim, None
        if claim is not None:
            claim.release()

    def _anchor_meter_on_saved_usage(self) -> None:
        """Re-anchor the meter on the newest saved response's provider usage, so a resumed session's
        meter is as exact at first paint as it was when saved — only while that report still
        describes the context: after a cut, eviction or undo made since that response (a ledger
        event at or after its transcript position) the report counts what is gone, and the meter
        estimates instead, as the live session's meter did."""
        from pydantic_ai.messages import ModelResponse

        for i in range(len(self.context) - 1, -1, -1):
            message = self.context[i]
            if isinstance(message, ModelResponse):
                if message.usage.input_tokens and not self._cut_since(message):
                    self.meter.observe_response(message.usage, self.context[: i + 1])
                return

    def _cut_since(self, response: ModelMessage) -> bool:
        """Whether a ledger event rewrote the context after `response` was received (or it is not
        among the transcript's newest messages, where a saved context's newest response sits)."""
        if not self.ledger_positions:
            return False
        newest_cut = max(self.ledger_positions)
        # Only the transcript's tail can hold it unrewritten (decoded at resume for the first screen).
        for j in range(len(self.transcript) - 1, max(newest_cut, len(self.transcript) - 64) - 1, -1):
            if self.transcript[j] is response:
                return False
        return True

    # --- project instructions and the /context breakdown ----------------------------------------

    @property
    def instruction_files(self) -> Sequence[InstructionFile]:
        """The project instruction files loaded now (AGENTS.md …), failed ones with their `error`."""
        return self.project.files

    def set_overhead(self, tokens: int) -> None:
        """The fixed part of every request changed (instructions reloaded): governance and the meter
        count `tokens` from now on."""
        self._overhead = tokens
        self.meter.set_overhead_hint(tokens)

    def context_breakdown(self) -> ContextBreakdown:
        """What the next request holds, by category, adding up to `meter_reading()` (/context)."""
        from co_tui.session.context_breakdown import session_breakdown

        return session_breakdown(self)

    def conversation_counts(self) -> ConversationCounts:
        """The transcript's turns and chat-log items: the store's figures for a resumed session's
        saved messages (never decoded for this) plus this process's own."""
        from co_tui.session.conversation_counts import ConversationCounts
        from co_tui.session.lazy_transcript import LazyTranscript

        saved, transcript = self._saved_counts, self.transcript
        if isinstance(transcript, LazyTranscript) and saved is not None and saved.messages == transcript.saved:
            return saved.add(transcript.added())
        return ConversationCounts().add(transcript)

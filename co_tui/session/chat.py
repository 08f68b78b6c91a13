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

import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from co_tui.config import Settings
from co_tui.governance.events import HistoryTrimmed
from co_tui.session.events import INTERRUPTED_MESSAGE, Done, ErrorEvent, Event, UsageUpdate
from co_tui.session.stream_map import map_stream_event

if TYPE_CHECKING:
    from pydantic_ai import AgentRunEvents
    from pydantic_ai.messages import ModelMessage, ModelResponse
    from pydantic_ai.models import Model

    from co_tui.session.store import SessionStore

Approver = Callable[[str], Awaitable[bool]]

TITLE_CHARS = 60


def _shown_count(messages: Sequence[ModelMessage]) -> int:
    """Messages in context as the user sees them: a marker fused with the next prompt counts apart,
    so the meter and the history inspector give the same number."""
    from co_tui.governance.markers import separate_markers

    return len(separate_markers(messages))


def make_title(prompt: str) -> str:
    """A session title from the first user prompt: one line, at most TITLE_CHARS characters."""
    line = " ".join(prompt.split())
    return line if len(line) <= TITLE_CHARS else line[: TITLE_CHARS - 1].rstrip() + "…"


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
    ) -> None:
        self.settings = settings
        self.workspace = Path(workspace).resolve()
        self.store = store
        self.approver = approver
        self.id: str = session_id or uuid.uuid4().hex
        self.title: str = ""
        self.transcript: list[ModelMessage] = []
        self.context: list[ModelMessage] = []
        self.ledger: list[HistoryTrimmed] = []
        # ledger_positions[i]: transcript length when ledger[i] happened (where its banner goes).
        self.ledger_positions: list[int] = []
        self.busy = False
        # Saved to the store lazily, at the first completed turn: opening and quitting leaves no empty session.
        self._persisted = session_id is not None
        self._saved_transcript_len = 0
        self._saved_ledger_len = 0
        self._run: AgentRunEvents[Any] | None = None
        self._cancel_requested = False
        self._configure_model(model if model is not None else settings.model)

    # --- model and governance wiring -------------------------------------------------------------

    def _configure_model(self, model: Model | str) -> None:
        """Resolve the model and build the governed agent. Raises `ModelConfigError` on a bad model."""
        from co_tui.agent.factory import build_agent, overhead_tokens
        from co_tui.agent.models import context_window_of, is_offline, resolve_model
        from co_tui.governance import ContextGovernance, GovernancePolicy, resolve_budget

        resolved = resolve_model(model, self.settings) if isinstance(model, str) else model
        s = self.settings
        budget, guessed = resolve_budget(
            s.context_budget_tokens, s.compact_threshold, context_window_of(resolved), s.fallback_context_window
        )
        self.policy = GovernancePolicy(
            budget_tokens=budget,
            max_history_messages=s.max_history_messages,
            tool_output_trim_chars=s.tool_output_trim_chars,
            strategy=s.context_strategy,
            summarizer_cooldown_s=s.summarizer_cooldown_s,
            window_is_guess=guessed,
        )
        summarizer = resolve_model(s.summarization_model, s) if s.summarization_model else None
        self.model = resolved
        self.model_name = model if isinstance(model, str) else f"{resolved.system}:{resolved.model_name}"
        self.is_offline = is_offline(resolved)
        self.governance = ContextGovernance(
            policy=self.policy, summarizer_model=summarizer, transcript_sink=self._record_transcript
        )
        self._overhead = overhead_tokens(s, workspace=self.workspace)
        self.meter = self._new_meter()
        self.agent = build_agent(
            s, workspace=self.workspace, model=resolved, capabilities=[self.governance], approver=self.approver
        )

    def _new_meter(self) -> Any:
        from co_tui.governance import TokenMeter

        return TokenMeter(
            provider=getattr(self.model, "system", None) or "unknown",
            model_name=getattr(self.model, "model_name", None),
            overhead_tokens=self._overhead,
        )

    def set_model(self, name: str) -> None:
        """Switch models for the following turns (`/model`). Raises `ModelConfigError`; the old model stays."""
        if self.busy:
            raise RuntimeError("cannot switch models while a turn is running")
        self._configure_model(name)

    def _record_transcript(self, messages: Sequence[ModelMessage]) -> None:
        self.transcript.extend(messages)

    # --- the meter -------------------------------------------------------------------------------

    def meter_reading(self) -> UsageUpdate:
        """The meter's current figure for `context` (what the model will be sent next)."""
        return self._usage_update(
            self.context,
            trim_pending=self.governance.governor.over_limits(self.context, overhead_tokens=self._overhead),
        )

    def _usage_update(self, messages: Sequence[ModelMessage], *, trim_pending: bool = False,
                      new_response: Any = None) -> UsageUpdate:
        """The `usage` event for `messages` (the context, or a running turn's messages): the meter's
        figure, the newest report's cache counts, the session's cost so far (`new_response`: a
        response not in the transcript yet) and the look-ahead to the next cut."""
        from co_tui.governance import turn_growth, turns_until_cut
        from co_tui.session.cost import session_cost

        reading = self.meter.reading(messages)
        growth = turn_growth(messages)
        turns_to_trim = None if growth is None or trim_pending else turns_until_cut(
            tokens=reading.tokens,
            budget_tokens=self.policy.budget_tokens,
            tokens_per_turn=growth.tokens * reading.ratio,  # in the meter's (calibrated) tokens
            messages=growth.turn_messages,
            max_messages=self.policy.max_history_messages,
            messages_per_turn=growth.messages,
        )
        priced = self.transcript
        if new_response is not None and not any(m is new_response for m in self.transcript[-4:]):
            priced = [*self.transcript, new_response]
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
            cost_usd=session_cost(priced),
            turns_to_trim=turns_to_trim,
        )

    # --- turns -----------------------------------------------------------------------------------

    async def run_turn(self, prompt: str) -> AsyncIterator[Event]:
        """Run one user turn; yield its events; always end with `Done`. Never raises.

        On success, interrupt or failure alike, the messages the run completed are appended to the
        transcript, the context becomes the run's (repaired) history, and the turn is saved.
        """
        if self.busy:
            yield ErrorEvent(message="a turn is already running", kind="internal")
            yield Done(output="", failed=True)
            return
        self.busy = True
        self._cancel_requested = False
        output_parts: list[str] = []
        interrupted = failed = False
        error: ErrorEvent | None = None
        history_in = list(self.context)
        run_messages: list[ModelMessage] | None = None
        try:
            from pydantic_ai import AgentRunResultEvent
            from pydantic_ai.exceptions import RunCancelled
            from pydantic_ai.messages import ModelResponse, repair_messages

            from co_tui.governance import HistoryTrimmedEvent

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
                        if isinstance(event, HistoryTrimmedEvent):
                            yield self._apply_trim(event.to_domain())
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
            except Exception as exc:  # noqa: BLE001 - every failure becomes one visible line
                failed = True
                error = self._error_event(exc, partial=bool(output_parts))
                run_messages = self._partial_messages()
            self._finish_run(history_in, run_messages)
        except Exception as exc:  # noqa: BLE001 - last line of defence: the app never dies here
            failed = True
            error = self._error_event(exc)
        finally:
            self._run = None
            self.busy = False
        if error is not None:
            yield error
        if interrupted:
            yield ErrorEvent(message=INTERRUPTED_MESSAGE, kind="interrupted")
        save_error = self._save(prompt)
        if save_error is not None:
            yield save_error
        yield self.meter_reading()
        yield Done(output="".join(output_parts), interrupted=interrupted, failed=failed)

    def _observe_new_response(self, run: AgentRunEvents[Any], seen: set[int], response_type: type[ModelResponse]) -> UsageUpdate | None:
        try:
            messages = run.all_messages()
        except Exception:  # noqa: BLE001 - the run may not have started its state yet
            return None
        if not messages or not isinstance(messages[-1], response_type) or id(messages[-1]) in seen:
            return None
        last = messages[-1]
        seen.add(id(last))
        self.meter.observe_response(last.usage, messages)
        return self._usage_update(messages, new_response=last)

    def _partial_messages(self) -> list[ModelMessage] | None:
        run = self._run
        if run is None:
            return None
        try:
            return run.all_messages()
        except Exception:  # noqa: BLE001 - a run that never started has no messages
            return None

    def _finish_run(self, history_in: list[ModelMessage], run_messages: list[ModelMessage] | None) -> None:
        """Fold the run's messages into transcript and context; history always ends provider-valid."""
        from pydantic_ai.messages import repair_messages

        if run_messages is None:
            return
        # The governance capability handed every message up to its last pass to the transcript;
        # what came after it (the final response, a partial one) is taken here.
        tail = run_messages[self.governance.seen_len :]
        self.transcript.extend(tail)
        # repair_messages closes dangling calls after an interrupt. Like pydantic-ai at run start, it
        # fuses a marker with the prompt after it; the context is kept in that fused form so the next
        # run's history has the length the governance transcript sink counts from (governance and
        # the inspector see markers through `separate_markers`).
        self.context = repair_messages(run_messages)

    def _apply_trim(self, trim: HistoryTrimmed) -> HistoryTrimmed:
        trim = replace(trim, session_id=self.id)
        self.ledger.append(trim)
        self.ledger_positions.append(len(self.transcript))
        return trim

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

        Nothing happens on an empty context; on failure the context is unchanged and the error shown.
        """
        from co_tui.governance import compact

        if self.busy:
            yield ErrorEvent(message="wait for the running turn to finish (or press Esc) before compacting",
                             kind="internal")
            yield Done(output="", failed=True)
            return
        if not self.context:
            yield Done(output="nothing to compact")
            return
        self.busy = True
        try:
            result = await compact(
                self.context,
                self.governance.summarizer_model or self.model,
                focus,
                budget_tokens=self.policy.budget_tokens,
                overhead_tokens=self._overhead,
            )
        except Exception as exc:  # noqa: BLE001 - the history stays as it was
            self.busy = False
            yield self._error_event(exc)
            yield Done(output="", failed=True)
            return
        self.busy = False
        if result.event is None:  # no turn to summarise, e.g. the context is already one compact pair
            yield Done(output="nothing to compact")
            return
        self.context = list(result.messages)
        trim = self._apply_trim(result.event)
        yield trim
        save_error = self._save(None)
        if save_error is not None:
            yield save_error
        yield self.meter_reading()
        yield Done(output=trim.summary or "")

    def clear(self) -> HistoryTrimmed:
        """`/clear`: an empty context and transcript under a fresh session id; the old one stays saved.

        Returns the `clear` event (recorded in the old session's ledger, and shown by the front end).
        """
        from co_tui.governance import clear_event

        if self.busy:
            raise RuntimeError("cannot clear while a turn is running")
        trim = self._apply_trim(clear_event(self.context, self.policy.budget_tokens, overhead_tokens=self._overhead))
        self._save(None)
        self.id = uuid.uuid4().hex
        self.title = ""
        self.transcript, self.context, self.ledger, self.ledger_positions = [], [], [], []
        self._persisted = False
        self._saved_transcript_len = self._saved_ledger_len = 0
        self.meter = self._new_meter()
        return trim

    # --- persistence -----------------------------------------------------------------------------

    def _save(self, prompt: str | None) -> ErrorEvent | None:
        """Write what is new since the last save; a storage failure is reported, the session lives on."""
        if prompt and not self.title:
            self.title = make_title(prompt)
        if self.store is None:
            return None
        if not self._persisted and not self.transcript:
            return None
        from co_tui.session.cost import session_cost
        from co_tui.session.store import StoreError

        try:
            if not self._persisted:
                self.store.create_session(
                    model=self.model_name, workspace=self.workspace, title=self.title, session_id=self.id
                )
                self._persisted = True
            self.store.save_turn(
                self.id,
                new_transcript=self.transcript[self._saved_transcript_len :],
                context=self.context,
                new_events=self.ledger[self._saved_ledger_len :],
                event_positions=self.ledger_positions[self._saved_ledger_len :],
                title=self.title or None,
                model=self.model_name,
                tokens=self.meter.reading(self.context).tokens,
                cost_usd=session_cost(self.transcript),
            )
        except StoreError as exc:
            return ErrorEvent(message=f"{exc} (the conversation is kept in memory)", kind="storage")
        self._saved_transcript_len = len(self.transcript)
        self._saved_ledger_len = len(self.ledger)
        return None

    @classmethod
    def resume(
        cls, settings: Settings, *, workspace: Path, store: SessionStore, session_id: str, **kwargs: Any
    ) -> ChatSession:
        """Reopen a saved session: transcript, context and ledger exactly as saved.

        Raises `StoreError` (one line) when the session cannot be read.
        """
        loaded = store.load(session_id)
        session = cls(settings, workspace=workspace, store=store, session_id=loaded.meta.id, **kwargs)
        session.title = loaded.meta.title
        session.transcript = list(loaded.transcript)
        session.context = list(loaded.context)
        session.ledger = list(loaded.ledger)
        session.ledger_positions = list(loaded.ledger_positions)
        session._saved_transcript_len = len(session.transcript)
        session._saved_ledger_len = len(session.ledger)
        session._anchor_meter_on_saved_usage()
        return session

    def _anchor_meter_on_saved_usage(self) -> None:
        """Re-anchor the meter on the newest saved response's provider usage, so a resumed session's
        meter is as exact at first paint as it was when saved."""
        from pydantic_ai.messages import ModelResponse

        for i in range(len(self.context) - 1, -1, -1):
            message = self.context[i]
            if isinstance(message, ModelResponse):
                if message.usage.input_tokens:
                    self.meter.observe_response(message.usage, self.context[: i + 1])
                return

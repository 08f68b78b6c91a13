"""Running turns and compactions: the one job at a time that talks to the model.

`TurnJobs` is one part of `CoTuiApp` (see `co_tui/tui/app.py`). A job is a Textual worker (group
`task`) running `ChatSession.run_turn` or `ChatSession.compact`; while it runs the app is busy,
automatic full garbage collections are paused (`gc_pause`), and a prompt sent meanwhile goes back
into the prompt box. Also here: interrupting the job, and the modal approval of shell commands the
session asks for during a turn.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from functools import partial
from time import monotonic
from typing import Any

from textual import work
from textual.worker import Worker

from co_tui.tui.gc_pause import collection_due, pause_full_collections, resume_full_collections
from co_tui.tui.messages import BusyChanged, Interrupt, OutputsTruncated, SendPrompt, SessionEvent


class TurnJobs:
    """The part of `CoTuiApp` that starts, watches and stops jobs (turns and compactions).
    Handles `SendPrompt`, `BusyChanged`, `Interrupt` and the workers' state changes.

    A mixin: it holds no state of its own. It reads and sets the app's `_job` (the running worker,
    None when idle), `_job_kind` ("turn" | "compact"), `_queued` (prompts sent before the session
    was ready, or while another opens), `_opening` (that other session's id), `_pending_approval`
    and `session`, and uses `chat` and `_refresh_title` (`CoTuiApp`). Textual finds its `on_*`
    handlers by walking the app's MRO.
    """

    async def on_send_prompt(self, message: SendPrompt) -> None:
        chat = self.chat
        chat.clear_hint()
        if self.session is None or self._opening is not None:
            self._queued.append(message.text)
            await chat.add_user_message(message.text, queued=True)
            waiting = "the model is still loading" if self.session is None else "a session is opening"
            chat.show_hint(f"{waiting} — your prompt will be sent when it is ready", info=True)
            return
        if self._job is not None:
            chat.prompt.load_text(message.text)  # nothing lost: the text goes back into the prompt
            chat.show_hint("a turn is running — press esc to interrupt it, or wait")
            return
        self._start_turn(message.text)

    def _send_queued(self) -> None:
        """Start the oldest prompt sent while the session was loading, if it can run now."""
        if self._queued and self._job is None and self.session is not None and self._opening is None:
            self._start_turn(self._queued.pop(0))

    def _start_turn(self, prompt: str) -> None:
        """Run one turn with `prompt` as the job. The caller has checked that no job is running."""
        self._job_kind = "turn"
        self._job = self._run_turn(prompt)

    @work(exit_on_error=False, group="task")
    async def _run_turn(self, prompt: str) -> None:
        chat, session = self.chat, self.session
        assert session is not None
        queued = [w for w in chat.log_view.query("UserMessage.-queued") if getattr(w, "text", None) == prompt]
        if queued:  # shown while waiting; a resumed conversation may have been mounted below it since
            await queued[0].remove()
        await chat.add_user_message(prompt)
        self.post_message(BusyChanged(True, "thinking…"))
        try:
            await self._show_events(session.run_turn(prompt))
        finally:
            self._after_task()
        from co_tui.tui.transcript_view import truncated_tool_call_ids

        chat.post_message(OutputsTruncated(truncated_tool_call_ids(session.context)))

    def _start_compact(self, focus: str | None) -> None:
        """Run `/compact [focus]` as the job. The caller has checked that no job is running."""
        self._job_kind = "compact"
        self._job = self._run_compact(focus)

    @work(exit_on_error=False, group="task")
    async def _run_compact(self, focus: str | None) -> None:
        chat, session = self.chat, self.session
        assert session is not None
        self.post_message(BusyChanged(True, "compacting the conversation…"))
        try:
            await self._show_events(session.compact(focus), compaction=True)
        except asyncio.CancelledError:
            session.busy = False  # compact() has no cancel hook; its context is untouched until it returns
            await chat.add_notice("compaction cancelled — the conversation is unchanged")
            raise
        finally:
            self._after_task()

    async def _show_events(self, events: AsyncIterator[Any], *, compaction: bool = False) -> None:
        """Render every event of a job. A failure to render one is shown once, as an internal error,
        after the job's last event: the session still finishes (and saves) the turn, and the next
        answer starts in a widget of its own."""
        chat = self.chat
        failure: Exception | None = None
        async for event in events:
            if compaction and event.type == "done" and event.output == "nothing to compact":
                chat.show_hint("nothing to compact yet", info=True)
            try:
                await chat.show_event(event)
            except Exception as exc:  # noqa: BLE001 - a display bug must not abandon the session's turn
                failure = failure or exc
        if failure is not None:
            await chat.end_answer()
            await chat.show_event(_internal_error(failure))

    def _after_task(self) -> None:
        self._job = None
        self._job_kind = ""
        self.post_message(BusyChanged(False))

    def on_busy_changed(self, message: BusyChanged) -> None:
        self.chat.activity.label = message.label if message.busy else ""
        if message.busy:
            pause_full_collections()
        else:
            # After the last frame of the answer is painted, and not under the user's fingers.
            self.call_after_refresh(self._collect_when_idle, monotonic())
            self._refresh_title()
            self._send_queued()

    def _collect_when_idle(self, turn_ended_at: float) -> None:
        """Run the full collection held back during the turn once it is due (`collection_due`);
        a turn started meanwhile keeps it held, and its own end schedules it again."""
        if self._job is not None:
            return
        if collection_due(turn_ended_at):
            resume_full_collections()
        else:
            self.set_timer(0.1, partial(self._collect_when_idle, turn_ended_at))

    def on_unmount(self) -> None:
        # Quitting before the held collection ran: the interpreter (another app, a test) gets its
        # collector back as it was.
        resume_full_collections(collect=False)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        # A worker that died with an exception must not leave the app stuck as "busy".
        if event.worker is self._job and event.worker.is_finished:
            if event.worker.error is not None:
                self.chat.post_message(SessionEvent(_internal_error(event.worker.error)))
            if self._job is event.worker:
                self._after_task()

    def on_interrupt(self, message: Interrupt) -> None:
        if self._job is None or self.session is None:
            return
        if self._job_kind == "turn":
            self.session.cancel()
            self.chat.activity.label = "interrupting…"
        else:
            self._job.cancel()

    async def approve_shell(self, command: str) -> bool:
        """The session's approver for `run_shell`: a modal dialog; Esc or n refuses."""
        from co_tui.tui.screens.approve_shell import ApproveShell

        future: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
        self._pending_approval = future

        def answered(result: bool | None) -> None:
            if not future.done():
                future.set_result(bool(result))

        self.push_screen(ApproveShell(command), answered)
        try:
            return await future
        finally:
            self._pending_approval = None


def _internal_error(error: BaseException) -> Any:
    """An `ErrorEvent` for a job's worker that died with an unexpected exception."""
    from co_tui.session.events import ErrorEvent

    return ErrorEvent(message=f"internal error: {type(error).__name__}: {error}", kind="internal")

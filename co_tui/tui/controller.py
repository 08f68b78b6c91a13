"""The chat controller: the one owner of the TUI's conversation state, and the turn queue.

`ChatController` is a plain class (no Textual). It owns the session (a `SessionPort`), the running
job (a turn, a `!command`, a compaction, a clear or a branch move), the prompts waiting for a
session or a job, and the state of opening one. The app turns keys, slash commands and palette
picks into its intents (`send`, `interrupt`, `compact`, `preview`, `session_ready`, …; the intents
that steer the context or the branch are `SteeringIntents`, tui/steering_intents.py, on it). It shows what
happened on the chat screen (`ChatView`) and asks the app for jobs and dialogs (`ChatHost`,
tui/chat_view.py). See docs/architecture.md for the picture.

Nothing here blocks the UI loop: a turn's save, `/clear` and session loading run in threads (the
session's own, or the app's thread worker), and their results come back to the loop before they
are shown.

Like the app, this module imports no pydantic, pydantic-ai, provider SDK or domain package at
module level: they load inside the jobs, after the first paint.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Coroutine
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, NamedTuple

from co_tui.tui.activity_label import INTERRUPTING, THINKING, next_activity_label, shell_activity
from co_tui.tui.saved_conversation import show_conversation, show_saved, show_truncated

if TYPE_CHECKING:
    from co_tui.session import CutAnswer, Event, HistoryTrimmed, SessionPort
    from co_tui.tui.chat_view import ChatHost, ChatView, Job
    from co_tui.tui.transcript_view import Item

JobKind = Literal["turn", "shell", "compact", "clear", "branch"]


class Shown(NamedTuple):  # not a frozen dataclass: ~0.4 ms more before the first frame
    """A conversation shown from the store's rows before its session was ready: its id and how many
    messages and cuts it had, to tell whether the session is that one."""

    session_id: str
    messages: int
    banners: int


def unsent_queue_notice(count: int) -> str:
    """The line when Esc leaves `count` queued prompts unsent: back in the prompt (several as one,
    a blank line between them)."""
    if count == 1:
        return "the queued prompt was not sent: it is back in the prompt"
    return f"{count} queued prompts were not sent: they are back in the prompt as one, a blank line between them"


class ChatController:
    """The TUI's conversation state and turn queue (see module docstring). Each field has one owner: this."""

    def __init__(self, host: ChatHost, view: ChatView, workspace: Path) -> None:
        self.host = host
        self.view = view
        self.workspace = workspace
        self.session: SessionPort | None = None
        self.job: Job | None = None  # the running turn, `!command`, compaction, clear or branch move
        self.job_kind: JobKind | None = None
        # Prompts waiting: sent before the session was ready, while another opens, or while a job runs.
        self.queued: list[str] = []
        self.opening_id: str | None = None  # a session chosen to replace the current one, loading
        # A line and a prompt for the session about to open (a fork): shown once it is ready.
        self.after_open: tuple[str, str | None] | None = None
        self.shown: Shown | None = None  # the preview on screen until its session is ready
        self.activity = ""  # what the activity line says while a turn runs (tui/activity_label.py)
        # compact_mode ask: the prompt whose send waits for the user's answer (its cut is being asked).
        self.deciding: str | None = None

    # --- state -----------------------------------------------------------------------------------

    @property
    def busy(self) -> bool:
        """A job runs."""
        return self.job is not None

    def why_not(self, what: str, *, idle: bool = True) -> str:
        """Why `what` ("/undo", "evicting") cannot run now, in one line ("" when it can): no session
        yet, another one opening, or (`idle`) a job running — the one place these refusals are worded
        (a running job: `busy_line`)."""
        if self.session is None:
            return f"{what}: the model is still loading"
        if self.opening_id is not None:
            return f"{what}: a session is opening"
        if idle and self.job is not None:
            from co_tui.session import busy_line

            return busy_line(what)
        return ""

    def ready_for(self, what: str, *, idle: bool = True) -> SessionPort | None:
        """The open session when `what` may run now (`idle`: also no job running, as for anything
        that changes the session); else None, and `why_not`'s line as the hint."""
        line = self.why_not(what, idle=idle)
        if line:
            self.view.show_hint(line, info=self.session is None or self.opening_id is not None)
            return None
        return self.session

    # --- turns -----------------------------------------------------------------------------------

    async def send(self, text: str) -> None:
        """The user sent a prompt. Runs it, or queues it (no session yet, another one opening, or a
        job running: it is sent when the job ends, shown meanwhile above the input): a prompt is
        never refused, so the caller clears the input."""
        view = self.view
        view.clear_hint()
        if self.session is None or self.opening_id is not None or self.job is not None or self.deciding is not None:
            self.queued.append(text)
            view.show_queue(self.queued)
            if self.job is None and self.deciding is None:
                waiting = "the model is still loading" if self.session is None else "a session is opening"
                view.show_hint(f"{waiting} — your prompt will be sent when it is ready", info=True)
                if self.session is None:  # the first send waits for pydantic-ai: show that it is moving
                    self.host.busy_changed("loading the model…")
            return
        self._start_prompt(text)

    def send_queued(self) -> None:
        """Start the oldest prompt that waited, if it can run now."""
        if (
            self.queued
            and self.job is None
            and self.deciding is None
            and self.session is not None
            and self.opening_id is None
        ):
            prompt = self.queued.pop(0)
            self.view.show_queue(self.queued)
            self._start_prompt(prompt)

    def _start_prompt(self, text: str) -> None:
        """A turn for `text`, or its command for `!command` (session/user_shell.py)."""
        from co_tui.session import user_shell_command

        command = user_shell_command(text)
        if command is None:
            self._begin_turn(text)
        else:
            self.start("shell", self._run_shell(text, command))

    # --- compact_mode ask: the user decides a send's cut before anything is sent -------------------

    def _begin_turn(self, prompt: str) -> None:
        """Run `prompt`'s turn; in `compact_mode` ask, first plan its send and, when it would cut,
        ask (the turn waits, and prompts sent meanwhile queue behind it)."""
        session = self.session
        assert session is not None
        if session.compact_mode != "ask":
            self.start("turn", self._run_turn(prompt))
            return
        self.deciding = prompt
        self.host.spawn(self._plan_then_ask(prompt))

    async def _plan_then_ask(self, prompt: str, *, after_inspect: bool = False) -> None:
        """Plan `prompt`'s send (the policy's rules, in a thread: the context may be large); send it
        when it goes out uncut, else show the planned cut and wait for the answer."""
        from co_tui.session import plan_before_send

        session = self.session
        assert session is not None
        plan, failure = await plan_before_send(session, prompt)
        if failure is not None:  # a planning bug must not lose the prompt: it is sent as it is
            await self.view.show_event(failure)
        if plan is None:
            self.deciding = None
            if after_inspect:
                await self.view.add_notice("no cut is needed any more: sending your prompt")
            self.start("turn", self._run_turn(prompt))
            return
        self.host.ask_cut(plan, prompt, lambda answer: self.cut_answered(prompt, answer))

    def cut_answered(self, prompt: str, answer: CutAnswer | None) -> None:
        """The user's answer to the ask dialog for `prompt`: cut then send, compact (with its focus)
        then send, inspect then ask again, send over the budget once — or, with None (Esc), not send:
        the prompt goes back to the input and nothing is cut."""
        from co_tui.session import next_step

        view, host = self.view, self.host
        step = next_step(answer)
        if step.do == "cancel":
            self.deciding = None
            view.restore_prompt(prompt)
            host.spawn(view.add_notice("send cancelled: nothing was cut or sent; your prompt is back in the input"))
            self.send_queued()
            return
        if step.do == "inspect":  # back to the question once the inspector closes
            host.inspect(lambda: host.spawn(self._plan_then_ask(prompt, after_inspect=True)))
            return
        self.deciding = None
        if step.do == "compact":  # the prompt waits in the queue and goes once compacted
            self.queued.insert(0, prompt)
            view.show_queue(self.queued)
            self.start("compact", self._run_compact(step.focus))
            return
        self.start("turn", self._run_turn(prompt, step.choice))

    def start(self, kind: JobKind, work: Coroutine[Any, Any, None]) -> None:
        """Run `work` as the one job, of `kind`; it calls `job_ended` when it ends."""
        self.job_kind = kind
        self.job = self.host.start_job(work)

    def job_ended(self) -> None:
        """The job ended (also when it failed or was cancelled): the activity line goes."""
        self.job = None
        self.job_kind = None
        self.activity = ""
        self.host.busy_changed(None)

    async def _run_turn(self, prompt: str, choice: Literal["cut", "over_budget"] | None = None) -> None:
        session, view = self.session, self.view
        assert session is not None
        try:
            # Shown while waiting: a resumed conversation may have been mounted below it since.
            await view.unqueue_user_message(prompt)
            await view.add_user_message(prompt)
            self._show_activity(THINKING)
            events = session.run_turn(prompt, choice) if choice is not None else session.run_turn(prompt)
            refused = await self._show_events(events)
        finally:
            self.job_ended()
        if refused:  # over the model's window, not sent: the text goes back for editing
            view.mark_unsent(prompt)  # it read `sent in full` above `not sent: …`
            view.restore_prompt(prompt)
        show_truncated(view, session)
        self.send_queued()

    async def _run_shell(self, text: str, command: str) -> None:
        session, view = self.session, self.view
        assert session is not None
        ran = len(session.transcript)
        try:
            await view.unqueue_user_message(text)
            await view.add_user_message(text)
            self._show_activity(shell_activity(command))
            await self._show_events(session.run_user_shell(command), activity=False)
        finally:
            self.job_ended()
        if len(session.transcript) == ran:  # declined (or no one could approve it): nothing ran
            view.mark_unsent(text)
        self.send_queued()

    async def _show_events(
        self, events: AsyncIterator[Event], *, compaction: bool = False, activity: bool = True
    ) -> bool:
        """Render every event of a job. A failure to render one is shown once, as an internal error,
        after the job's last event: the session still finishes (and saves) the turn, and the next
        answer starts in a widget of its own. A failure of the job itself is shown the same way.
        Returns whether the session refused the prompt (an `oversized_turn` with `refused`)."""
        from co_tui.session import Done, DoneReason, OversizedTurn

        view = self.view
        failure: BaseException | None = None
        refused = False
        try:
            async for event in events:
                refused = refused or (isinstance(event, OversizedTurn) and event.refused)
                if activity and not compaction:
                    self._show_activity(next_activity_label(self.activity, event))
                if isinstance(event, Done) and event.reason is DoneReason.NOTHING_TO_COMPACT:
                    view.show_hint("nothing to compact yet", info=True)
                try:
                    await view.show_event(event)
                except Exception as exc:  # a display bug must not abandon the session's turn
                    failure = failure or exc
        except Exception as exc:  # the session broke its never-raises contract
            failure = failure or exc
        if failure is not None:
            await view.end_answer()
            await view.show_event(internal_error(failure))
        return refused

    def _show_activity(self, label: str) -> None:
        """Set the activity line's label for a turn, only when it changes (a token must not repaint it)."""
        if label != self.activity:
            self.activity = label
            self.host.busy_changed(label)

    def interrupt(self) -> None:
        """Esc: stop the running turn (the partial answer stays) or compaction. Prompts queued behind
        it are not sent: they go back into the prompt, to edit or send again."""
        if self.job is None or self.session is None:
            return
        if self.queued:
            waiting, self.queued = self.queued, []
            self.view.show_queue([])
            self.view.restore_prompt("\n\n".join(waiting))
            # A log line, not a hint: the text put back into the input would clear a hint at once.
            self.host.spawn(self.view.add_notice(unsent_queue_notice(len(waiting))))
        if self.job_kind in ("turn", "shell"):
            self.session.cancel()
            self._show_activity(INTERRUPTING)
        elif self.job_kind == "compact":
            self.job.cancel()

    def compact(self, focus: str | None) -> None:
        """ctrl+k, /compact [focus]: summarise the conversation into a short recap."""
        if self.ready_for("/compact") is not None:
            self.start("compact", self._run_compact(focus))

    def compact_summary(self, focus: str | None) -> str | None:
        """The /compact confirmation's text (what will be summarised, the estimated size after), or
        None with a hint when it cannot run now or there is nothing to compact."""
        session = self.ready_for("/compact")
        if session is None:
            return None
        preview = session.compact_preview()
        if preview is None:
            self.view.show_hint("nothing to compact yet", info=True)
            return None
        from co_tui.tui.screens.confirm_compact import compact_summary

        return compact_summary(
            preview.dropped_messages, preview.dropped_turns, preview.tokens_before, preview.tokens_after, focus
        )

    async def _run_compact(self, focus: str | None) -> None:
        session, view = self.session, self.view
        assert session is not None
        self.host.busy_changed("compacting the conversation…")
        try:
            await self._show_events(session.compact(focus), compaction=True)
        except asyncio.CancelledError:
            await view.add_notice("compaction cancelled — the conversation is unchanged")
            raise
        finally:
            self.job_ended()
        self.send_queued()

    # --- opening sessions ------------------------------------------------------------------------

    def opening(self, session_id: str) -> None:
        """A saved session was chosen in /sessions: until it is ready, prompts wait and commands refuse."""
        self.opening_id = session_id

    async def preview(
        self,
        session_id: str,
        title: str,
        items: list[Item],
        banners: list[tuple[int, HistoryTrimmed]],
        *,
        turns: int,
        messages: int,
        entries: int,
        cuts: int | None = None,
    ) -> None:
        """A resumed conversation read from the store's rows, while its session still loads.
        `banners` may be only those among `items`; `cuts` is then the whole ledger's length."""
        if self.session is not None:  # a ready session shows itself
            return
        await show_conversation(
            self.view, session_id, title, items, banners, turns=turns, messages=messages, entries=entries
        )
        self.shown = Shown(session_id, messages, len(banners) if cuts is None else cuts)

    async def session_ready(self, session: SessionPort) -> None:
        """The session opened (at start-up, or the one chosen in /sessions): show it, send what waited."""
        previous, self.session = self.session, session
        self.opening_id = None
        if previous is not None and previous is not session:
            # Its MCP servers stop, another co-tui may open it; a failed last save is rescued and said.
            closing = await previous.aclose()
            if closing.problem:
                await self.view.add_notice(closing.problem)
        shown, self.shown = self.shown, None
        view = self.view
        view.show_session(session)
        if (
            shown is not None
            and previous is None
            and (shown.session_id, shown.messages, shown.banners)
            == (session.id, len(session.transcript), len(session.ledger))
        ):
            # The same conversation is on screen: no remount, only the badges (they need the context).
            show_truncated(view, session)
        else:
            if previous is not None or session.transcript or shown is not None:
                await view.clear_log()
            if session.transcript or session.ledger:
                await show_saved(view, session)
            else:
                await view.add_notice(
                    f"New conversation in {self.workspace.name or self.workspace} · "
                    "/ for commands · F1 for help · esc interrupts a reply"
                )
        after, self.after_open = self.after_open, None
        if after is not None:  # a fork (never the first session: no data-dir line comes before it)
            await view.add_notice(after[0])
            if after[1]:
                view.restore_prompt(after[1])
        # The data dir's warning (once: a switch keeps the same data dir), the instructions; the MCP
        # servers start in the background (typing never waits), their news going to `mcp_changed`.
        host = self.host
        async for event in session.start(
            data_dir=previous is None, on_mcp=host.mcp_changed, spawn=host.run_in_background
        ):
            await view.show_event(event)
        if self.queued:
            view.clear_hint()  # "the model is still loading — your prompt will be sent…": it is sent now
        self.send_queued()

    async def session_failed(self, message: str, exit_code: int, *, busy: bool = False) -> None:
        """A session did not open: at start-up the app leaves; from /sessions this one stays. `busy`
        (open in another co-tui): a notice saying so and what to do, not a configuration error."""
        if self.session is None:
            self.host.fail_to_start(message, exit_code)
            return
        from co_tui.session import ErrorEvent

        # What was typed meanwhile goes to the session that stays.
        self.opening_id = None
        if busy:
            await self.view.add_notice(f"not opened: {message} · this conversation stays open here")
        else:
            await self.view.show_event(ErrorEvent(message=message, kind="config"))
        self.send_queued()


def internal_error(error: BaseException) -> Event:
    """An `ErrorEvent` for a job that died with an unexpected exception."""
    from co_tui.session import ErrorEvent

    return ErrorEvent(message=f"internal error: {type(error).__name__}: {error}", kind="internal")


__all__ = ["ChatController", "JobKind", "Shown", "internal_error", "unsent_queue_notice"]

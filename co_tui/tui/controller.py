"""The chat controller: the one owner of the TUI's conversation state, and the intents that change it.

`ChatController` is a plain class (no Textual). It owns the session (a `SessionPort`), the running
job (a turn, a `!command`, a compaction or a clear), the prompts waiting for a session, and the state of opening
one. The app turns keys, slash commands and palette picks into its intents (`send`, `interrupt`,
`compact`, `clear`, `export`, `model_switched`, `opening`, `session_ready`, …) and implements
`ChatView`, through which the controller shows what happened and starts background work; the chat
screen renders the events. See docs/architecture.md for the picture.

Nothing here blocks the UI loop: a turn's save, `/clear`, `/export` and session loading run in
threads (the session's own, `asyncio.to_thread`, or the app's thread worker), and their results
come back to the loop before they are shown.

Like the app, this module imports no pydantic, pydantic-ai, provider SDK or domain package at
module level: they load inside the jobs, after the first paint.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Protocol

from co_tui.session import Refused
from co_tui.tui.activity_label import INTERRUPTING, THINKING, next_activity_label, shell_activity

if TYPE_CHECKING:
    from co_tui.governance.events import HistoryTrimmed
    from co_tui.session import Event, PlannedCut, SessionPort
    from co_tui.tui.cut_answer import CutAnswer
    from co_tui.tui.transcript_view import Item

JobKind = Literal["turn", "shell", "compact", "clear", "branch"]


class Job(Protocol):
    """A running job as the view started it (a Textual worker): it can be cancelled and awaited."""

    def cancel(self) -> None:
        """Stop the work (its coroutine gets `CancelledError`); returns without waiting for it."""
        ...

    async def wait(self) -> object:
        """Wait until the work has ended; returns its result, raises when it failed or was cancelled
        (Textual's `WorkerFailed`, `WorkerCancelled`)."""
        ...


class ChatView(Protocol):
    """What the controller needs of the screen (`CoTuiApp` implements it on the chat screen).

    Every method runs on the UI loop and returns once its change is made (the async ones once the
    widgets are mounted); none reads the session: the controller passes what to show.
    """

    def start_job(self, work: Coroutine[Any, Any, None]) -> Job:
        """Run `work` on the UI loop, apart from the caller (the one job at a time)."""
        ...

    def spawn(self, work: Coroutine[Any, Any, None]) -> None:
        """Run short UI-loop `work` (an export waiting for its thread) apart from the caller."""
        ...

    def busy_changed(self, label: str | None) -> None:
        """A job started (`label` says what runs) or ended (None)."""
        ...

    def show_hint(self, text: str, *, info: bool = False) -> None:
        """Show `text` as the one-line hint under the prompt, replacing any hint (`info`: an
        informational line, not a refusal). It stays until `clear_hint` or the next hint."""
        ...

    def clear_hint(self) -> None:
        """Hide the hint line (a no-op when none is shown)."""
        ...

    async def show_event(self, event: Event) -> None:
        """Render one domain event of the closed union `co_tui.session.events.Event` in the chat:
        text deltas extend the answer being streamed (starting one if none); a tool call (a new
        tool row), a `HistoryTrimmed` (a banner), an error or oversized turn (an error line), a
        `Notice` and `Done` end that answer first; a tool result fills its call's row and a
        `UsageUpdate` moves the meter, the answer staying open. May raise on a display bug: the
        controller catches it (`_show_events`)."""
        ...

    async def end_answer(self) -> None:
        """Finish the answer being streamed, if any (its text is final); the next text delta starts
        a new answer. A no-op when no answer is open."""
        ...

    async def add_notice(self, text: str) -> None:
        """Append `text` as a dim informational line at the end of the chat log."""
        ...

    async def add_user_message(self, text: str, *, queued: bool = False) -> None:
        """Append a prompt the user sent to the chat log (`queued`: it waits to be sent and is
        shown as waiting; `unqueue_user_message` removes that copy)."""
        ...

    def mark_unsent(self, text: str) -> None:
        """The newest prompt `text` in the log was refused by the session (not sent): show it so."""
        ...

    async def unqueue_user_message(self, text: str) -> None:
        """Remove the queued copy of prompt `text`, if one is shown."""
        ...

    async def clear_log(self) -> None:
        """Empty the chat log (after /clear, or before another session is shown); an answer being
        streamed is finished first. The hint, queue, title and meter are left as they are."""
        ...

    def restore_prompt(self, text: str) -> None:
        """Put `text` back into the prompt (a prompt that was not sent: nothing typed is lost)."""
        ...

    def show_queue(self, texts: Sequence[str]) -> None:
        """Show the prompts waiting to be sent (none: hide them)."""
        ...

    async def show_items(
        self, items: list[Item], banners: Sequence[tuple[int, HistoryTrimmed]], *, entries: int | None = None
    ) -> None:
        """Show a saved conversation (a resume, a switch) in the log, in one mount.

        `items` are its entries, oldest first (`tui/transcript_view.py`); `banners` are (transcript
        position, `history_trimmed` event) pairs, each drawn before the first item that starts at
        or after its position, where the cut happened. `entries`: how many entries (items and
        banners) the whole conversation has when `items` are only its newest part; the log counts
        the rest as not shown. The screen may mount only the newest that fit and the rest later.
        """
        ...

    def show_truncated(self, tool_call_ids: frozenset[str]) -> None:
        """Mark these tool calls (by `tool_call_id`) `truncated`: the model now sees their output
        shortened. Ids with no tool row on screen are ignored; marks are never removed."""
        ...

    def show_session(self, session: SessionPort) -> None:
        """Title bar (model, title) and meter for `session`."""
        ...

    def show_title(self, title: str) -> None:
        """Show `title` as the session's title in the title bar (empty: none yet)."""
        ...

    def fail_to_start(self, message: str, exit_code: int) -> None:
        """No session could open at start-up: leave with `message`."""
        ...

    def open_saved(self, session_id: str) -> None:
        """Open saved session `session_id` in place of the current one (a fork just made)."""
        ...

    def mcp_changed(self, events: Sequence[Event]) -> None:
        """An MCP server's status changed (its schemas join or leave the meter's figure): show
        `events`, its lines (none for a plain start)."""
        ...

    def run_in_background(self, work: Coroutine[Any, Any, None]) -> Job:
        """Run long-lived `work` (the MCP servers' supervisor) until it ends or the view closes."""
        ...

    def ask_cut(self, plan: PlannedCut, prompt: str, answered: Callable[[CutAnswer | None], None]) -> None:
        """`compact_mode` ask: show the cut sending `prompt` would make (the ask dialog) and call
        `answered` with the user's answer (None: the send is cancelled). Returns at once."""
        ...

    def inspect(self, closed: Callable[[], None]) -> None:
        """Open the history inspector (to pin or evict) and call `closed` once it is closed."""
        ...


@dataclass(frozen=True)
class Shown:
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
    """The TUI's conversation state and intents (see module docstring). Each field has one owner: this."""

    def __init__(self, view: ChatView, workspace: Path) -> None:
        self.view = view
        self.workspace = workspace
        self.session: SessionPort | None = None
        self.job: Job | None = None  # the running turn, `!command`, compaction or clear
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

    def session_ready_for(self, what: str) -> bool:
        """True when the session is open; else a hint that `/what` waits."""
        if self.session is None:
            self.view.show_hint(f"/{what}: the model is still loading", info=True)
            return False
        if self.opening_id is not None:
            self.view.show_hint(f"/{what}: a session is opening", info=True)
            return False
        return True

    def ready_and_idle(self, what: str) -> bool:
        """True when the session is open and no job runs; else a hint saying which is missing."""
        if not self.session_ready_for(what):
            return False
        if self.job is not None:
            self.view.show_hint(f"/{what}: a turn is running — press esc to interrupt it first")
            return False
        return True

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
                    view.busy_changed("loading the model…")
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
            self._start("shell", self._run_shell(text, command))

    # --- compact_mode ask: the user decides a send's cut before anything is sent -------------------

    def _begin_turn(self, prompt: str) -> None:
        """Run `prompt`'s turn; in `compact_mode` ask, first plan its send and, when it would cut,
        ask (the turn waits, and prompts sent meanwhile queue behind it)."""
        session = self.session
        assert session is not None
        if session.compact_mode != "ask":
            self._start("turn", self._run_turn(prompt))
            return
        self.deciding = prompt
        self.view.spawn(self._plan_then_ask(prompt))

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
            self._start("turn", self._run_turn(prompt))
            return
        self.view.ask_cut(plan, prompt, lambda answer: self.cut_answered(prompt, answer))

    def cut_answered(self, prompt: str, answer: CutAnswer | None) -> None:
        """The user's answer to the ask dialog for `prompt`: cut then send, compact (with its focus)
        then send, inspect then ask again, send over the budget once — or, with None (Esc), not send:
        the prompt goes back to the input and nothing is cut."""
        from co_tui.session import next_step

        view = self.view
        step = next_step(answer)
        if step.do == "cancel":
            self.deciding = None
            view.restore_prompt(prompt)
            view.spawn(view.add_notice("send cancelled: nothing was cut or sent; your prompt is back in the input"))
            self.send_queued()
            return
        if step.do == "inspect":  # back to the question once the inspector closes
            view.inspect(lambda: view.spawn(self._plan_then_ask(prompt, after_inspect=True)))
            return
        self.deciding = None
        if step.do == "compact":  # the prompt waits in the queue and goes once compacted
            self.queued.insert(0, prompt)
            view.show_queue(self.queued)
            self._start("compact", self._run_compact(step.focus))
            return
        self._start("turn", self._run_turn(prompt, step.choice))

    def _start(self, kind: JobKind, work: Coroutine[Any, Any, None]) -> None:
        self.job_kind = kind
        self.job = self.view.start_job(work)

    def _job_ended(self) -> None:
        self.job = None
        self.job_kind = None
        self.activity = ""
        self.view.busy_changed(None)

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
            self._job_ended()
        if refused:  # over the model's window, not sent: the text goes back for editing
            view.mark_unsent(prompt)  # it read `sent in full` above `not sent: …`
            view.restore_prompt(prompt)
        from co_tui.tui.transcript_view import truncated_tool_call_ids

        view.show_truncated(truncated_tool_call_ids(session.context))
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
            self._job_ended()
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
            self.view.busy_changed(label)

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
            self.view.spawn(self.view.add_notice(unsent_queue_notice(len(waiting))))
        if self.job_kind in ("turn", "shell"):
            self.session.cancel()
            self._show_activity(INTERRUPTING)
        elif self.job_kind == "compact":
            self.job.cancel()

    def compact(self, focus: str | None) -> None:
        """ctrl+k, /compact [focus]: summarise the conversation into a short recap."""
        if self.ready_and_idle("compact"):
            self._start("compact", self._run_compact(focus))

    def compact_summary(self, focus: str | None) -> str | None:
        """The /compact confirmation's text (what will be summarised, the estimated size after), or
        None with a hint when it cannot run now or there is nothing to compact."""
        if not self.ready_and_idle("compact"):
            return None
        session = self.session
        assert session is not None
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
        view.busy_changed("compacting the conversation…")
        try:
            await self._show_events(session.compact(focus), compaction=True)
        except asyncio.CancelledError:
            await view.add_notice("compaction cancelled — the conversation is unchanged")
            raise
        finally:
            self._job_ended()
        self.send_queued()

    # --- /clear ----------------------------------------------------------------------------------

    def clear_summary(self) -> str | None:
        """The /clear confirmation's text, or None (with a hint) when it cannot run now."""
        if not self.ready_and_idle("clear"):
            return None
        from co_tui.tui.screens.confirm_clear import clear_summary

        session = self.session
        assert session is not None
        preview = session.clear_preview()  # the figures its banner will show: the dialog and the banner agree
        saved = session.saved and bool(session.transcript)
        return clear_summary(
            preview.dropped_messages, preview.tokens_before, preview.dropped_turns, saved, session.title
        )

    def clear(self) -> None:
        """After the user confirmed: a fresh conversation (the old one stays saved)."""
        if self.session is None or self.job is not None:
            return
        self._start("clear", self._run_clear())

    async def _run_clear(self) -> None:
        session, view = self.session, self.view
        assert session is not None
        try:
            try:
                trim = await session.clear()  # it saves the old session (in a thread)
            except Refused as exc:  # it could not be saved nor rescued: nothing was cleared
                view.show_hint(str(exc))
                return
            await view.clear_log()
            await view.show_event(trim)
            await self._show_instructions()  # read again by the clear
            view.show_session(session)
        finally:
            self._job_ended()
        self.send_queued()

    # --- rewind and branches (docs/context-governance.md, "Rewind and branches") -----------------

    def rewind(self, position: int, *, conversation: bool = True, code: bool = False) -> None:
        """The rewind picker's choice: put the agent's file edits after the prompt at `position` back
        (`code`), and/or go back to just before it (`conversation`: its text returns to the input)."""
        if self.ready_and_idle("rewind"):
            self._start("branch", self._run_rewind(position, conversation, code))

    async def _run_rewind(self, position: int, conversation: bool, code: bool) -> None:
        session, view = self.session, self.view
        assert session is not None
        try:
            files = await session.put_files_back(position) if code else None
            if conversation:
                rewound = await session.rewind(position)
                await self._show_branch()
                view.restore_prompt(rewound.prompt)
            if files is not None:
                await view.add_notice(files)
        except Refused as exc:
            view.show_hint(str(exc))
        finally:
            self._job_ended()
        self.send_queued()

    def fork(self, title: str | None = None, position: int | None = None, prompt: str | None = None) -> None:
        """/fork [title], `f` in the rewind picker: a new saved session from now (or from just before
        the prompt at `position`), opened in place of this one, which stays as it is; `prompt`
        goes into the input once it is open."""
        if self.ready_and_idle("fork"):
            self._start("branch", self._run_fork(title, position, prompt))

    async def _run_fork(self, title: str | None, position: int | None, prompt: str | None) -> None:
        session = self.session
        assert session is not None
        try:
            new_id = await session.fork(position, title)
        except Refused as exc:
            self.view.show_hint(str(exc))
            return
        finally:
            self._job_ended()
        name = session.title or session.id[:8]
        self.after_open = (f"Forked from “{name}” ({session.id[:8]}): it stays as it was (/sessions)", prompt)
        self.view.open_saved(new_id)

    def switch_branch(self, branch: int) -> None:
        """`/branches` Enter: make `branch` the one in use, its context as it was left."""
        if self.ready_and_idle("branches"):
            self._start("branch", self._run_switch(branch))

    async def _run_switch(self, branch: int) -> None:
        session = self.session
        assert session is not None
        try:
            await session.switch_branch(branch)
            await self._show_branch()
        except Refused as exc:
            self.view.show_hint(str(exc))
        finally:
            self._job_ended()
        self.send_queued()

    async def _show_branch(self) -> None:
        """The chat shows the branch now in use: its newest entries with their banners (the rewind's
        or switch's last), the title and the meter."""
        session, view = self.session, self.view
        assert session is not None
        view.show_session(session)
        await view.clear_log()
        await self._show_saved(notice=False)
        await view.show_event(session.meter_reading())

    # --- steering the context from the inspector -------------------------------------------------

    async def evict(self, index: int) -> str:
        """`d` in the inspector: remove context message `index`'s tool output, or its older turn,
        from the context (the session saves, off the UI loop). The banner goes into the chat; the
        returned line is what the inspector tells the user (the refusal, or what went — with the
        prompt-cache warning the first time)."""
        session = self.session
        if session is None or self.opening_id is not None:
            return "the session is not ready yet"
        if self.job is not None:
            return "a turn is running — press esc to interrupt it first"
        from co_tui.governance.evict import CACHE_WARNING

        first = not any(event.reason == "manual_evict" for event in session.ledger)
        try:
            event = await session.evict(index)
        except Refused as exc:
            return str(exc)
        await self.view.show_event(event)
        await self.view.show_event(session.meter_reading())  # the meter counts what went, as after /undo
        from co_tui.session import banner_line

        line = banner_line(event).removeprefix("✂ ")
        return f"{line}. Note: {CACHE_WARNING}." if first else line

    # --- /undo and /pin: steering the context (docs/context-governance.md) ----------------------

    async def undo(self, cut: int | None = None) -> str:
        """/undo, `u` on a Trims row: undo the newest cut still in effect (or ledger entry `cut`,
        0-based, and every cut after it). Shows the `restore` banner and the meter; a refusal is a
        hint. Returns the line to show where the user is (empty when the session is not ready)."""
        if not self.ready_and_idle("undo"):
            return ""
        session = self.session
        assert session is not None
        return await self._steer(lambda: session.undo(cut))

    async def _steer(self, call: Callable[[], Awaitable[HistoryTrimmed]]) -> str:
        """Run one steering operation of the session (`call`): show its banner and the meter, or,
        when it is refused, its one line as a hint. Returns the line shown."""
        session, view = self.session, self.view
        assert session is not None
        try:
            trim = await call()
        except Refused as exc:
            view.show_hint(str(exc))
            return str(exc)
        await view.show_event(trim)
        await view.show_event(session.meter_reading())
        from co_tui.session import banner_line

        return banner_line(trim)

    async def toggle_pin(self, index: int | None = None) -> str:
        """`p` on a message (its turn; again: unpin), /pin (`index` None: the newest turn). The pin
        is saved in a thread; the meter shows the pinned tokens. Returns the line to show (a
        refusal, with its figures, is also a hint)."""
        if not self.ready_and_idle("pin"):
            return ""
        session, view = self.session, self.view
        assert session is not None
        try:
            change = await (session.pin_newest() if index is None else session.toggle_pin(index))
        except Refused as exc:
            view.show_hint(str(exc))
            return str(exc)
        line: str = change.describe()
        view.show_hint(line, info=True)
        await view.show_event(session.meter_reading())
        return line

    async def recover(self, item: str, event: HistoryTrimmed) -> str:
        """`r` on a summary banner: bring `item`, which `event`'s summary lost, back as a verbatim
        excerpt at the end of the context (the session saves, off the UI loop). Shows the new banner
        and the meter; a refusal is a hint. Returns the line shown."""
        session, view = self.session, self.view
        if session is None or self.opening_id is not None:
            return ""  # a banner is only shown for an open session; it is being replaced
        if self.job is not None:
            view.show_hint("a turn is running — press esc to interrupt it first, then press r again")
            return ""
        ledger = list(session.ledger)
        # The banner holds the ledger's own event object (or, after a resume, an equal one).
        cut = next((i for i in range(len(ledger) - 1, -1, -1) if ledger[i] is event), None)
        if cut is None:
            cut = next((i for i in range(len(ledger) - 1, -1, -1) if ledger[i] == event), None)
        return await self._steer(lambda: session.recover(item, cut))

    # --- /export and /model ----------------------------------------------------------------------

    def export(self, args: str = "") -> None:
        """/export [md|json] [path]: write this session to a new file (default: the data dir's
        exports folder; `export.write_export` never overwrites and makes it mode 0600).

        A relative path is taken from the workspace; an existing directory gets the default file
        name. Says where the file went, or one line on what was wrong (a file that exists: the hint
        under the prompt refuses, docs/keys-and-commands.md). The file is written in a thread.
        """
        try:
            fmt, target = parse_export_args(args)
        except ValueError as exc:
            self.view.show_hint(str(exc))
            return
        if not self.session_ready_for("export"):
            return
        session = self.session
        assert session is not None
        if not session.saved or not session.transcript:
            self.view.show_hint("nothing saved to export yet", info=True)
            return
        self.view.spawn(self._run_export(session, fmt, target))

    async def _run_export(self, session: SessionPort, fmt: str, target: Path | None) -> None:
        from co_tui.session import ErrorEvent

        where = None if target is None else self.workspace / target.expanduser()
        try:
            path = await asyncio.to_thread(session.export, fmt, where)
        except FileExistsError:  # the path the user gave is taken: their input, not a storage fault
            self.view.show_hint(f"export refused: {target} exists (nothing was overwritten) — give another path")
            return
        except Exception as exc:  # one line, the app keeps running
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
            name = f" ({exc.filename})" if isinstance(exc, OSError) and exc.filename else ""
            await self.view.show_event(ErrorEvent(message=f"export failed: {reason}{name}", kind="storage"))
            return
        await self.view.add_notice(f"Exported {fmt} to {path}")

    async def switch_compact_mode(self, arg: str = "") -> None:
        """/compact-mode [auto|ask|off]: who decides when the context is cut, for this session; with no
        argument (the palette), the next mode in that order. Says the new mode in one line (after a
        switch with no argument, also the mode it left and how to go back); the meter follows."""
        if not self.session_ready_for("compact-mode"):
            return
        from co_tui.governance.compact_mode import COMPACT_MODES, parse_mode
        from co_tui.session import MODE_TEXT

        session = self.session
        assert session is not None
        nxt = COMPACT_MODES[(COMPACT_MODES.index(session.compact_mode) + 1) % len(COMPACT_MODES)]
        mode = parse_mode(arg) if arg.strip() else nxt
        if mode is None:
            self.view.show_hint(f"/compact-mode: {arg.strip()!r} is not a mode — auto, ask or off")
            return
        was = session.compact_mode
        session.set_compact_mode(mode)
        # A bare /compact-mode, typed to see the mode, switches it: say from what, and the way back.
        back = f" · was {was}: /compact-mode {was} goes back" if not arg.strip() else ""
        await self.view.add_notice(f"compact_mode {mode} for this session: {MODE_TEXT[mode]}{back}")
        await self.view.show_event(session.meter_reading())

    async def show_model(self) -> None:
        """/model: say which model answers."""
        if not self.session_ready_for("model"):
            return
        session = self.session
        assert session is not None
        offline = " (offline, built in)" if session.is_offline else ""
        await self.view.add_notice(f"Model: {session.model_name}{offline} · /model NAME switches")

    def can_switch_model(self) -> bool:
        """/model NAME may run now (else a hint says why not)."""
        if not self.session_ready_for("model"):
            return False
        if self.job is not None:
            self.view.show_hint("wait for the running turn to finish (or press esc) before switching models")
            return False
        return True

    async def model_switched(self) -> None:
        """The session switched models (in the app's thread worker)."""
        session = self.session
        assert session is not None
        self.view.show_session(session)
        await self.view.add_notice(f"Model switched to {session.model_name}")

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
        await self._show_conversation(
            session_id, title, items, banners, turns=turns, messages=messages, entries=entries
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
            self._show_truncated()
        else:
            if previous is not None or session.transcript or shown is not None:
                await view.clear_log()
            if session.transcript or session.ledger:
                await self._show_saved()
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
        async for event in session.start(
            data_dir=previous is None, on_mcp=view.mcp_changed, spawn=view.run_in_background
        ):
            await view.show_event(event)
        if self.queued:
            view.clear_hint()  # "the model is still loading — your prompt will be sent…": it is sent now
        self.send_queued()

    async def session_failed(self, message: str, exit_code: int, *, busy: bool = False) -> None:
        """A session did not open: at start-up the app leaves; from /sessions this one stays. `busy`
        (open in another co-tui): a notice saying so and what to do, not a configuration error."""
        if self.session is None:
            self.view.fail_to_start(message, exit_code)
            return
        from co_tui.session import ErrorEvent

        # What was typed meanwhile goes to the session that stays.
        self.opening_id = None
        if busy:
            await self.view.add_notice(f"not opened: {message} · this conversation stays open here")
        else:
            await self.view.show_event(ErrorEvent(message=message, kind="config"))
        self.send_queued()

    async def _show_saved(self, *, notice: bool = True) -> None:
        """Show the session's newest entries; the counts come from the session (the store's for a
        resumed one), so only the newest messages of a long transcript are decoded. `notice`: the
        "Resumed" line after them."""
        from co_tui.tui.transcript_view import RESUME_ENTRIES, newest_window

        session = self.session
        assert session is not None
        counts = session.conversation_counts()
        positions, ledger = list(session.ledger_positions), list(session.ledger)
        start, items = newest_window(session.transcript, positions, RESUME_ENTRIES)
        await self._show_conversation(
            session.id,
            session.title,
            items,
            [(at, event) for at, event in zip(positions, ledger, strict=False) if at >= start],
            turns=counts.turns,
            messages=len(session.transcript),
            entries=counts.items + len(ledger),
            notice=notice,
        )
        self._show_truncated()

    async def _show_conversation(
        self,
        session_id: str,
        title: str,
        items: list[Item],
        banners: list[Any],
        *,
        turns: int,
        messages: int,
        entries: int | None = None,
        notice: bool = True,
    ) -> None:
        """Mount a saved conversation's newest entries (banners at their cuts) and the "Resumed"
        line (`notice`). `entries`: the whole conversation's, when `items` are only its newest part."""
        self.view.show_title(title)
        # One mount for the newest entries, banners at their cuts (not one mount per ledger event).
        await self.view.show_items(items, banners, entries=entries)
        if not notice:
            return
        from co_tui.text import plural

        name = title or session_id[:8]
        await self.view.add_notice(f"Resumed “{name}” · {plural(turns, 'turn')} · {plural(messages, 'message')}")

    async def _show_instructions(self) -> None:
        """Which project instruction files the model is sent (one line), and one line per file that
        could not be read (the rest works without it), as the session words them."""
        from co_tui.session import instruction_events

        assert self.session is not None
        for event in instruction_events(self.session):
            await self.view.show_event(event)

    def _show_truncated(self) -> None:
        """The `truncated` badges of the tool calls whose output the model now sees shortened."""
        from co_tui.tui.transcript_view import truncated_tool_call_ids

        assert self.session is not None
        self.view.show_truncated(truncated_tool_call_ids(list(self.session.context)))


def parse_export_args(args: str) -> tuple[str, Path | None]:
    """`[md|json] [path]` → (format, path or None). Without a format word the path's suffix
    decides (`.json` → json, else md). A bare word that is neither a format nor path-like
    (no `/`, `.` or `~`) is taken as a mistyped format: ValueError with one line."""
    from co_tui.session import FORMATS

    words = args.split(maxsplit=1)
    if not words:
        return "md", None
    if words[0] in FORMATS:
        return words[0], Path(words[1].strip()) if len(words) > 1 else None
    raw = args.strip()
    if not any(c in raw for c in "/.~"):
        raise ValueError(f"unknown export format '{words[0]}' — use /export [{'|'.join(FORMATS)}] [path]")
    path = Path(raw)
    return ("json" if path.suffix.lower() == ".json" else "md"), path


def internal_error(error: BaseException) -> Event:
    """An `ErrorEvent` for a job that died with an unexpected exception."""
    from co_tui.session import ErrorEvent

    return ErrorEvent(message=f"internal error: {type(error).__name__}: {error}", kind="internal")


__all__ = ["ChatController", "ChatView", "Job", "Shown", "internal_error", "parse_export_args"]

"""The user's intents that steer the open session's context or branch: `/undo`, `/pin`, `d` (evict) and
`r` (recover) in the inspector and on banners, `/clear`, the rewind picker, `/fork` and `/branches`.

`SteeringIntents` belongs to the `ChatController` (it runs the jobs and owns the session): each
intent is refused in one place while the session is not ready or a turn runs
(`ChatController.why_not`, one wording: `co_tui.session.busy_line`), runs the session's operation,
and shows its banner and the meter — or, when the session refuses it, its one line
(`_attempt`, the one place a `Refused` is handled). docs/context-governance.md has what each does.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, TypeVar

from co_tui.session import Refused
from co_tui.tui.saved_conversation import show_saved

if TYPE_CHECKING:
    from co_tui.session import HistoryTrimmed
    from co_tui.tui.controller import ChatController

__all__ = ["SteeringIntents"]

T = TypeVar("T")


class SteeringIntents:
    """The steering intents of one controller (see module docstring); the inspector's `Steering`."""

    def __init__(self, controller: ChatController) -> None:
        self.controller = controller

    async def _attempt(self, call: Callable[[], Awaitable[T]], *, hint: bool = True) -> T | Refused:
        """Run one session operation: its result, or the `Refused` it raised (its line shown as the
        hint unless `hint` is False: the caller shows it where the user is)."""
        try:
            return await call()
        except Refused as exc:
            if hint:
                self.controller.view.show_hint(str(exc))
            return exc

    # --- the context: /undo, /pin, evict, recover ------------------------------------------------

    async def undo(self, cut: int | None = None) -> str:
        """/undo, `u` on a Trims row: undo the newest cut still in effect (or ledger entry `cut`,
        0-based, and every cut after it). Shows the `restore` banner and the meter; a refusal is a
        hint. Returns the line to show where the user is (empty when it cannot run now)."""
        session = self.controller.ready_for("/undo")
        if session is None:
            return ""
        return await self._steer(lambda: session.undo(cut))

    async def recover(self, item: str, event: HistoryTrimmed) -> str:
        """`r` on a summary banner: bring `item`, which `event`'s summary lost, back as a verbatim
        excerpt at the end of the context (the session saves, off the UI loop). Shows the new banner
        and the meter; a refusal is a hint. Returns the line shown."""
        session = self.controller.ready_for("recovering an item")
        if session is None:
            return ""
        ledger = list(session.ledger)
        # The banner holds the ledger's own event object (or, after a resume, an equal one).
        cut = next((i for i in range(len(ledger) - 1, -1, -1) if ledger[i] is event), None)
        if cut is None:
            cut = next((i for i in range(len(ledger) - 1, -1, -1) if ledger[i] == event), None)
        return await self._steer(lambda: session.recover(item, cut))

    async def _steer(self, call: Callable[[], Awaitable[HistoryTrimmed]]) -> str:
        """One operation that cuts or restores: its banner and the meter. Returns the line shown."""
        from co_tui.session import banner_line

        controller = self.controller
        trim = await self._attempt(call)
        if isinstance(trim, Refused):
            return str(trim)
        session = controller.session
        assert session is not None
        await controller.view.show_event(trim)
        await controller.view.show_event(session.meter_reading())
        return banner_line(trim)

    async def toggle_pin(self, index: int | None = None) -> str:
        """`p` on a message (its turn; again: unpin), /pin (`index` None: the newest turn). The pin
        is saved in a thread; the meter shows the pinned tokens. Returns the line to show (a
        refusal, with its figures, is also a hint)."""
        session = self.controller.ready_for("/pin")
        if session is None:
            return ""
        change = await self._attempt(lambda: session.pin_newest() if index is None else session.toggle_pin(index))
        if isinstance(change, Refused):
            return str(change)
        line: str = change.describe()
        self.controller.view.show_hint(line, info=True)
        await self.controller.view.show_event(session.meter_reading())
        return line

    async def evict(self, index: int) -> str:
        """`d` in the inspector: remove context message `index`'s tool output, or its older turn,
        from the context (the session saves, off the UI loop). The banner goes into the chat; the
        returned line is what the inspector tells the user (the refusal, or what went — with the
        prompt-cache warning when the session's plan gave one: `evict_line`)."""
        from co_tui.session import evict_line

        controller = self.controller
        why = controller.why_not("evicting")  # said in the inspector, not as a hint
        session = controller.session
        if why or session is None:
            return why
        event = await self._attempt(lambda: session.evict(index), hint=False)
        if isinstance(event, Refused):
            return str(event)
        await controller.view.show_event(event)
        await controller.view.show_event(session.meter_reading())  # the meter counts what went, as after /undo
        return evict_line(event)

    # --- /clear, rewind, /fork, /branches: jobs ----------------------------------------------------

    def clear_summary(self) -> str | None:
        """The /clear confirmation's text, or None (with a hint) when it cannot run now."""
        session = self.controller.ready_for("/clear")
        if session is None:
            return None
        from co_tui.tui.screens.confirm_clear import clear_summary

        preview = session.clear_preview()  # the figures its banner will show: the dialog and the banner agree
        saved = session.saved and bool(session.transcript)
        return clear_summary(
            preview.dropped_messages, preview.tokens_before, preview.dropped_turns, saved, session.title
        )

    def clear(self) -> None:
        """After the user confirmed: a fresh conversation (the old one stays saved)."""
        controller = self.controller
        if controller.session is not None and controller.job is None:
            controller.start("clear", self._run_clear())

    async def _run_clear(self) -> None:
        from co_tui.session import instruction_events

        controller, view = self.controller, self.controller.view
        session = controller.session
        assert session is not None
        try:
            trim = await self._attempt(session.clear)  # it saves the old session (in a thread)
            if isinstance(trim, Refused):  # it could not be saved nor rescued: nothing was cleared
                return
            await view.clear_log()
            await view.show_event(trim)
            for event in instruction_events(session):  # read again by the clear
                await view.show_event(event)
            view.show_session(session)
        finally:
            controller.job_ended()
        controller.send_queued()

    def rewind(self, position: int, *, conversation: bool = True, code: bool = False) -> None:
        """The rewind picker's choice: put the agent's file edits after the prompt at `position` back
        (`code`), and/or go back to just before it (`conversation`: its text returns to the input)."""
        if self.controller.ready_for("/rewind") is not None:
            self.controller.start("branch", self._run_rewind(position, conversation, code))

    async def _run_rewind(self, position: int, conversation: bool, code: bool) -> None:
        controller, view = self.controller, self.controller.view
        session = controller.session
        assert session is not None

        async def rewind() -> str | None:
            files = await session.put_files_back(position) if code else None
            if conversation:
                rewound = await session.rewind(position)
                await self._show_branch()
                view.restore_prompt(rewound.prompt)
            return files

        try:
            files = await self._attempt(rewind)
            if files is not None and not isinstance(files, Refused):
                await view.add_notice(files)
        finally:
            controller.job_ended()
        controller.send_queued()

    def fork(self, title: str | None = None, position: int | None = None, prompt: str | None = None) -> None:
        """/fork [title], `f` in the rewind picker: a new saved session from now (or from just before
        the prompt at `position`), opened in place of this one, which stays as it is; `prompt`
        goes into the input once it is open."""
        if self.controller.ready_for("/fork") is not None:
            self.controller.start("branch", self._run_fork(title, position, prompt))

    async def _run_fork(self, title: str | None, position: int | None, prompt: str | None) -> None:
        controller = self.controller
        session = controller.session
        assert session is not None
        try:
            new_id = await self._attempt(lambda: session.fork(position, title))
        finally:
            controller.job_ended()
        if isinstance(new_id, Refused):
            return
        name = session.title or session.id[:8]
        controller.after_open = (f"Forked from “{name}” ({session.id[:8]}): it stays as it was (/sessions)", prompt)
        controller.host.open_saved(new_id)

    def switch_branch(self, branch: int) -> None:
        """`/branches` Enter: make `branch` the one in use, its context as it was left."""
        if self.controller.ready_for("/branches") is not None:
            self.controller.start("branch", self._run_switch(branch))

    async def _run_switch(self, branch: int) -> None:
        controller = self.controller
        session = controller.session
        assert session is not None

        async def switch() -> None:
            await session.switch_branch(branch)
            await self._show_branch()

        try:
            await self._attempt(switch)
        finally:
            controller.job_ended()
        controller.send_queued()

    async def _show_branch(self) -> None:
        """The chat shows the branch now in use: its newest entries with their banners (the rewind's
        or switch's last), the title and the meter."""
        controller, view = self.controller, self.controller.view
        session = controller.session
        assert session is not None
        view.show_session(session)
        await view.clear_log()
        await show_saved(view, session, notice=False)
        await view.show_event(session.meter_reading())

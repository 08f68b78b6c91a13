"""What each slash command of the session's one table does in the TUI (`co_tui.session.commands`).

`CommandActions` has one method per command, named as the table's `action` (`"show_history"` →
`show_history`); `command_dispatch.run_slash` runs it for a typed command, a palette pick and the
keys bound to a command (ctrl+k, ctrl+l, f2, f1). Each opens its screen or dialog, or hands the
intent to the controller (its turn queue, or its `steering`), which refuses it in one place when it
cannot run now. Lists a screen needs are read in a thread worker, never on the UI loop.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, Any, TypeVar

from co_tui.tui.export_command import export as run_export

if TYPE_CHECKING:
    from textual.app import App

    from co_tui.session import HistoryTrimmed, RewindPoint
    from co_tui.tui.approval_asking import ApprovalAsking
    from co_tui.tui.controller import ChatController
    from co_tui.tui.screens.chat import ChatScreen
    from co_tui.tui.session_opening import SessionOpening
    from co_tui.tui.steering_intents import SteeringIntents

__all__ = ["CommandActions"]

T = TypeVar("T")


class CommandActions:
    """The TUI's side of the command table, for one app (see module docstring): its screens go over
    `chat`; its intents go to `controller` and `steering`; `/sessions` opens through `opening`;
    `/permissions` lists what `approvals` granted."""

    def __init__(
        self,
        app: App[Any],
        controller: ChatController,
        steering: SteeringIntents,
        chat: ChatScreen,
        *,
        opening: SessionOpening,
        approvals: ApprovalAsking,
    ) -> None:
        self.app = app
        self.controller = controller
        self.steering = steering
        self.chat = chat
        self.opening = opening
        self.approvals = approvals

    # --- the context: /compact, /clear, /undo, /pin, /compact-mode ------------------------------

    def compact(self, focus: str = "") -> None:
        """ctrl+k, /compact [focus]: show what will be summarised and the estimated size after, then
        summarise the conversation into a short recap (Enter or ctrl+k again confirms, Esc cancels)."""
        from co_tui.tui.screens.confirm_compact import ConfirmCompact

        app = self.app
        if isinstance(app.screen, ConfirmCompact):  # ctrl+k pressed twice: compact without asking
            app.screen.dismiss(True)
            return
        chosen = focus or None  # `/compact` with nothing after it
        body = self.controller.compact_summary(chosen)
        if body is None:
            return

        def confirmed(yes: bool | None) -> None:
            if yes:
                self.controller.compact(chosen)

        app.push_screen(ConfirmCompact(body), confirmed)

    def clear(self) -> None:
        """ctrl+l, /clear: after a confirm, start a fresh conversation (the old one stays saved)."""
        steering = self.steering
        body = steering.clear_summary()
        if body is None:
            return
        from co_tui.tui.screens.confirm_clear import ConfirmClear

        def confirmed(yes: bool | None) -> None:
            if yes:
                steering.clear()

        self.app.push_screen(ConfirmClear(body), confirmed)

    async def undo(self) -> None:
        """/undo: undo the newest cut or compaction still in effect (docs/context-governance.md)."""
        await self.steering.undo()

    async def pin(self) -> None:
        """/pin: pin the newest turn, so no cut drops, summarises or shortens it."""
        await self.steering.toggle_pin()

    async def compact_mode(self, arg: str = "") -> None:
        """/compact-mode [auto|ask|off]: who decides when the context is cut, for this session; with no
        argument (the palette), the next mode in that order. Says the new mode in one line (after a
        switch with no argument, also the mode it left and how to go back); the meter follows."""
        from co_tui.session import COMPACT_MODES, MODE_TEXT, parse_mode

        controller = self.controller
        session = controller.ready_for("/compact-mode", idle=False)
        if session is None:
            return
        nxt = COMPACT_MODES[(COMPACT_MODES.index(session.compact_mode) + 1) % len(COMPACT_MODES)]
        mode = parse_mode(arg) if arg.strip() else nxt
        if mode is None:
            controller.view.show_hint(f"/compact-mode: {arg.strip()!r} is not a mode — auto, ask or off")
            return
        was = session.compact_mode
        session.set_compact_mode(mode)
        # A bare /compact-mode, typed to see the mode, switches it: say from what, and the way back.
        back = f" · was {was}: /compact-mode {was} goes back" if not arg.strip() else ""
        await controller.view.add_notice(f"compact_mode {mode} for this session: {MODE_TEXT[mode]}{back}")
        await controller.view.show_event(session.meter_reading())

    async def recover_lost(self, event: HistoryTrimmed) -> None:
        """`r` on a summary banner with lost items: the item (a picker when there are several), then
        the session brings it back as a verbatim excerpt (docs/context-governance.md)."""
        app = self.app
        steering = self.steering
        lost = list(event.summary_lost or [])
        if len(lost) == 1:
            await steering.recover(lost[0], event)
            return
        from co_tui.session import kept_line
        from co_tui.tui.screens.recover_lost import RecoverLostScreen

        def picked(item: str | None) -> None:
            if item:
                self.controller.host.spawn(steering.recover(item, event))

        app.push_screen(RecoverLostScreen(lost, kept_line(event.summary_kept or [], lost)), picked)

    # --- rewind, /fork, /branches -----------------------------------------------------------------

    def rewind(self) -> None:
        """Esc Esc, /rewind: pick an earlier prompt to go back to (the points are read in a thread)."""
        session = self.controller.ready_for("/rewind")
        if session is not None:

            def read() -> tuple[list[RewindPoint], dict[int, Any]]:
                points = session.rewind_points()
                return points, {p.position: session.files_back(p.position) for p in points if p.restorable}

            self._read_then_show(read, lambda found: self._show_rewind_picker(*found), "the earlier prompts")

    def _read_then_show(self, read: Callable[[], T], show: Callable[[T], None], what: str) -> None:
        """Read a list a screen shows (`read`, in a thread worker), then `show` it on the UI loop;
        a failure to read it (a damaged row) is one hint line naming `what`, and nothing changes."""
        app = self.app

        def in_thread() -> None:
            try:
                found = read()
            except Exception as exc:
                app.call_from_thread(self.chat.show_hint, f"cannot list {what}: {exc}")
                return
            app.call_from_thread(show, found)

        app.run_worker(in_thread, thread=True, group="rewind", exit_on_error=False)

    def _show_rewind_picker(self, points: list[RewindPoint], files: dict[int, Any]) -> None:
        app = self.app
        if not points:
            self.chat.show_hint("nothing to rewind to yet: no prompt was sent in this branch", info=True)
            return
        from co_tui.tui.screens.rewind import RewindScreen

        steering = self.steering

        def chosen(choice: Any) -> None:
            if choice is None:
                return
            if choice.fork:
                prompt = next((p.text for p in points if p.position == choice.position), None)
                steering.fork(None, choice.position, prompt)
                return
            steering.rewind(choice.position, conversation=choice.conversation, code=choice.code)

        app.push_screen(RewindScreen(points, files), chosen)

    def fork(self, title: str = "") -> None:
        """/fork [title]: go on in a new saved session copied from this one as it is now."""
        self.steering.fork(title or None)

    def show_branches(self) -> None:
        """/branches: the conversation tree; Enter switches to a branch (read in a thread)."""
        session = self.controller.ready_for("/branches")
        if session is not None:
            self._read_then_show(session.branches, self._show_branches, "the branches")

    def _show_branches(self, rows: Any) -> None:
        from co_tui.tui.screens.branches import BranchesScreen

        steering = self.steering

        def chosen(branch: int | None) -> None:
            if branch is not None:
                steering.switch_branch(branch)

        self.app.push_screen(BranchesScreen(rows), chosen)

    # --- screens: /history, /context, /help, /mcp, /agents, /permissions, /sessions ---------------

    def show_history(self) -> None:
        """f2, /history: the history inspector (what the model sees vs the whole transcript)."""
        app = self.app
        session = self.controller.ready_for("/history", idle=False)
        if session is None:
            return
        from co_tui.tui.screens.history import HistoryScreen

        app.push_screen(HistoryScreen(session, steer=self.steering, next_cut=session.next_cut))

    def show_context(self) -> None:
        """/context: what the next request holds, by category (instructions, tools, messages …)."""
        session = self.controller.ready_for("/context", idle=False)
        if session is None:
            return
        from co_tui.tui.screens.context import ContextScreen

        self.app.push_screen(ContextScreen(session))

    def show_help(self) -> None:
        """f1, /help: keys and commands. The screen is built once and kept (installed), and
        draws the reference as one widget, so opening it stays quick (benchmarks/help_screen.py)."""
        from co_tui.tui.screens.help import HELP_SCREEN, HelpScreen

        app = self.app
        if not app.is_screen_installed(HELP_SCREEN):
            app.install_screen(HelpScreen(), HELP_SCREEN)
        if not isinstance(app.screen, HelpScreen):
            app.push_screen(HELP_SCREEN)

    def show_mcp(self, args: str = "") -> None:
        """/mcp: the MCP servers, their status, tools and schema token cost; `/mcp restart NAME`
        closes a server and starts it again (a failed one too), with one line saying so."""
        app = self.app
        session = self.controller.ready_for("/mcp", idle=False)
        if session is None:
            return
        if args:
            verb, _, name = args.partition(" ")
            if verb != "restart" or not name.strip():
                self.chat.show_hint("usage: /mcp, or /mcp restart NAME")
                return
            self.controller.host.spawn(self.chat.add_notice(session.mcp.restart(name.strip())))
            return
        from co_tui.tui.screens.mcp import McpScreen

        app.push_screen(McpScreen(session.mcp))

    def show_agents(self) -> None:
        """/agents: the agents the model can delegate to, and the definition files refused."""
        session = self.controller.ready_for("/agents", idle=False)
        if session is not None:
            self.controller.host.spawn(self.chat.add_notice("\n".join(session.agents_listing())))

    def remember(self, note: str = "") -> None:
        """/remember [--global] note, #note: ask, then add it to the memory (memory_actions.py)."""
        from co_tui.tui.memory_actions import remember

        remember(self.controller, self.chat, note)

    def show_memory(self) -> None:
        """/memory: the notes and where they came from; edit, delete (memory_actions.py)."""
        from co_tui.tui.memory_actions import show_memory

        show_memory(self.controller, self.chat)

    def show_permissions(self) -> None:
        """/permissions: what "always allow" allowed in this session, revocable."""
        from co_tui.tui.screens.permissions import PermissionsScreen

        self.app.push_screen(PermissionsScreen(self.approvals.permissions))

    def show_sessions(self) -> None:
        """/sessions: pick a saved session to resume."""
        app = self.app
        session = self.controller.ready_for("/sessions")
        if session is None:
            return
        catalog = session.catalog
        if catalog is None:
            self.chat.show_hint("sessions are not being saved (no store)")
            return
        from co_tui.tui.screens.sessions import SessionsScreen

        def chosen(session_id: str | None) -> None:
            if session_id and session_id != session.id:
                self.opening.switch(session_id, catalog)

        app.push_screen(SessionsScreen(catalog, self.controller.workspace, current_id=session.id), chosen)

    # --- /export, /model, /quit --------------------------------------------------------------------

    def export(self, args: str = "") -> None:
        """/export [md|json] [path]: write this session to a file (tui/export_command.py)."""
        run_export(self.controller, args)

    async def model(self, name: str = "") -> None:
        """/model [name]: say which model answers, or switch to `name` for the following turns (the
        agent is built in a thread: it imports the provider's SDK)."""
        controller = self.controller
        if not name:
            session = controller.ready_for("/model", idle=False)
            if session is not None:
                offline = " (offline, built in)" if session.is_offline else ""
                await controller.view.add_notice(f"Model: {session.model_name}{offline} · /model NAME switches")
        elif controller.ready_for("/model") is not None:
            switch = partial(self._switch_model, name)
            self.app.run_worker(switch, thread=True, group="session", exit_on_error=False)

    def _switch_model(self, name: str) -> None:
        app = self.app
        session = self.controller.session
        assert session is not None
        try:
            session.set_model(name)  # builds the agent: imports the provider's SDK
        except Exception as exc:  # ModelConfigError: one line, the old model stays
            # Its wording is the command line's (`choose --model offline`); here the command is /model.
            app.call_from_thread(self.chat.show_hint, str(exc).replace("--model ", "/model "))
            return
        # Textual types the callback as returning `T | Awaitable[T]` and cannot solve T for a
        # coroutine function returning None; call_from_thread awaits it (textual/app.py).
        app.call_from_thread(self._model_switched)  # type: ignore[arg-type]

    async def _model_switched(self) -> None:
        session = self.controller.session
        assert session is not None
        self.chat.show_session(session)
        await self.chat.add_notice(f"Model switched to {session.model_name}")

    async def quit(self) -> None:
        """Ctrl+Q, /quit: the app quits, a running turn kept first (`CoTuiApp.action_quit`)."""
        await self.app.action_quit()

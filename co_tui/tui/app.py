"""The co-tui Textual app: `CoTuiApp` composes the chat screen and forwards intents; `run_app` runs it.

Three parts, one concern each (docs/architecture.md has the picture):

- `ChatController` (co_tui/tui/controller.py, no Textual) owns the session, the running job, the
  prompts waiting for a session and the state of opening one, and carries out the intents;
- `CoTuiApp` (here) turns keys, slash commands and palette picks into those intents, implements
  the controller's `ChatView` on the chat screen, runs jobs as Textual workers, opens sessions in a
  thread worker, and asks the user (dialogs: /clear, shell approval, the sessions picker);
- `ChatScreen` renders the session's events.

Start-up order matters (the TUI must paint before pydantic and pydantic-ai load): this module
imports no pydantic, pydantic-ai, provider SDK or domain package at module level. The chat screen
paints first; then one thread worker shows a resumed conversation from the store's raw rows,
loads the settings and builds the session (which imports pydantic-ai), never on the UI thread. A
prompt sent before the session is ready waits in the controller's queue.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import signal
import sys
import threading
from collections.abc import Callable, Coroutine, Iterable, Sequence
from functools import partial
from pathlib import Path
from time import monotonic
from typing import TYPE_CHECKING, Any, Union

from textual import events, work
from textual.app import App, SystemCommand
from textual.timer import Timer
from textual.worker import Worker, WorkerState

from co_tui.agent.permissions import Permissions
from co_tui.session import closest_command, find_command, parse_slash
from co_tui.tui import alt_enter
from co_tui.tui.controller import ChatController, internal_error
from co_tui.tui.early_input import EarlyInput
from co_tui.tui.gc_pause import (
    collection_due,
    pause_full_collections,
    release_collections_after_start_up,
    resume_full_collections,
)
from co_tui.tui.input_clock import KeyClock
from co_tui.tui.messages import (
    RunSlash,
    SendPrompt,
    SessionEvent,
    SessionFailed,
    SessionPreview,
    SessionReady,
)
from co_tui.tui.palette import SlashCommandProvider
from co_tui.tui.screens.arming import ArmedAnswers, arming, arming_seconds
from co_tui.tui.screens.chat import RESUME_ENTRIES, ChatScreen
from co_tui.tui.type_ahead import TypeAhead, types_text

if TYPE_CHECKING:
    from textual.driver import Driver
    from textual.screen import Screen

    from co_tui.agent.permissions import Grant
    from co_tui.config import Settings
    from co_tui.session import ApprovalRequest, Closing, Decision, Event, PlannedCut, SessionCatalog, SessionPort
    from co_tui.tui.cut_answer import CutAnswer
    from co_tui.tui.transcript_view import Item

__all__ = ["CoTuiApp", "SessionFactory", "SettingsSource", "run_app"]

SettingsSource = Union["Settings", Callable[[], "Settings"]]
"""`Settings`, or a loader called in the start-up worker after the first paint (raises `SettingsError`)."""

SessionFactory = Callable[..., "SessionPort"]
"""`(settings, workspace, *, resume_id, continue_latest, ask, store) -> SessionPort`;
the default is `co_tui.session.open_session` (tests pass a fake with the same shape).
`store` is None (the factory opens the data dir's) or the one the start-up worker or the
sessions picker already opened."""

PREVIEW_WAIT_S = 3.0  # the start-up worker waits this long at most for the preview to be on screen
JOB_GROUP = "task"  # the Textual worker group of the controller's jobs


class CoTuiApp(App[int]):
    """The full-screen chat. `session_factory` builds the session in a worker after the first paint."""

    TITLE = "co-tui"
    # The chat screen is the base screen (`get_default_screen`), which Textual does not load a
    # stylesheet for: it is read with the app's, in the one parse before the first frame.
    CSS_PATH = Path(__file__).parent / "screens" / "chat.tcss"
    COMMANDS = App.COMMANDS | {SlashCommandProvider}
    # The keys of the registry are bound on ChatScreen (so they do not fire behind a dialog).
    quit_window_s = 2.0  # a second ctrl+c quits only this soon after the first

    def __init__(
        self,
        settings: SettingsSource,
        workspace: Path,
        *,
        session_factory: SessionFactory | None = None,
        resume_id: str | None = None,
        continue_latest: bool = False,
    ) -> None:
        super().__init__()
        alt_enter.install()  # ESC CR (Alt+Enter in tmux and most terminals) starts a new line
        # A loader is called in the start-up worker: pydantic-settings must not delay the first frame.
        self._load_settings: Callable[[], Settings] | None = settings if callable(settings) else None
        self.settings: Settings | None = None if callable(settings) else settings
        self.workspace = Path(workspace)
        self.session_factory = session_factory
        self.resume_id = resume_id
        self.continue_latest = continue_latest
        self.controller = ChatController(self, self.workspace)
        self.failure: str | None = None  # one line printed by run_app when the session cannot open
        self.closing: Closing | None = None  # what closing the session left to say (`run_app` prints it)
        self.early_input = EarlyInput()  # what is typed or pasted before the prompt is ready
        self.type_ahead = TypeAhead()  # keys typed while a row has focus go to the prompt
        self._quit_armed = False  # the last key was a ctrl+c: another one quits, within the window
        self._quit_window: Timer | None = None  # closes it (`quit_window_s` after the first press)
        self._typed_at = float("-inf")  # when the last key that types text came (a dialog's burst)
        self._esc_armed = False  # the last key was an esc on an empty idle prompt: another one rewinds
        # This app's key timings: its driver, prompt and chat screen note keys here (tui/input_clock.py).
        self.key_clock = KeyClock()
        self._priced: tuple[str, ...] = ()  # the prompt's `@path` mentions the meter last priced

    @property
    def session(self) -> SessionPort | None:
        """The open session (the controller's), None until it is ready."""
        return self.controller.session

    @property
    def busy(self) -> bool:
        """A turn, compaction or clear runs."""
        return self.controller.busy

    def get_driver_class(self) -> type[Driver]:
        """Textual's driver, subclassed to note each key as its input thread reads it (`key_arrival.noting_keys`)
        and to outlive its terminal (`terminal_loss.surviving_hangup`)."""
        # Keys are noted as the driver's thread reads them: layout frames wait for them
        # (tui/key_arrival.py). A closed terminal must end co-tui, never freeze it (tui/terminal_loss.py).
        from co_tui.tui.key_arrival import noting_keys
        from co_tui.tui.terminal_loss import surviving_hangup

        driver: type[Driver] = noting_keys(surviving_hangup(super().get_driver_class()))
        return driver

    def get_default_screen(self) -> ChatScreen:
        """The chat screen, as the base screen (not pushed over Textual's default one)."""
        # The chat is the base screen: the first frame is the chat, not a blank screen switched away from.
        # The meter shows "starting…" until the session's first reading (its window and budget).
        return ChatScreen(self.key_clock, self.workspace)

    @property
    def chat(self) -> ChatScreen:
        """The chat screen (at the bottom of the screen stack)."""
        for screen in self.screen_stack:
            if isinstance(screen, ChatScreen):
                return screen
        raise LookupError("chat screen not mounted")

    # --- quitting keeps a running turn (docs/keys-and-commands.md) ------------------------------

    def on_load(self) -> None:
        """Make SIGTERM and SIGHUP quit as Ctrl+Q does (`action_quit`: a running turn is kept first),
        and the loop's threads daemons that never hold the exit (`daemon_threads.py`)."""
        from co_tui.daemon_threads import use_daemon_executor

        use_daemon_executor()  # a thread blocked for good (a FIFO read) never holds the exit
        # SIGTERM and SIGHUP (a closed terminal) quit like Ctrl+Q: the running turn is kept first.
        loop = asyncio.get_running_loop()
        for signum in (signal.SIGTERM, getattr(signal, "SIGHUP", None)):
            if signum is not None:
                with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
                    loop.add_signal_handler(signum, lambda: self.call_later(self.action_quit))

    async def action_quit(self) -> None:
        """Ctrl+Q, /quit, SIGTERM, SIGHUP: a running turn is interrupted and kept (as Esc does), then
        the app exits once it is saved and the session closed (its MCP servers stopped, a rescue
        copy after a failed save: `closing`, which `run_app` prints)."""
        job = self.controller.job if self.controller.job_kind == "turn" else None
        session = self.session
        if job is None and session is None:
            self.exit()
            return
        if job is not None:
            self.controller.interrupt()

        async def exit_when_saved() -> None:
            if job is not None:
                with contextlib.suppress(Exception):
                    await job.wait()
            if session is not None:
                self.closing = await session.aclose()
            self.exit()

        self.run_worker(exit_when_saved(), group="quit")

    def _chat_gone(self) -> bool:
        """The chat screen is gone, or going: the app is shutting down (a worker's message came too
        late). Shutting down prunes each screen over several awaits, flagging it first: its widgets
        (the title bar, the meter) may already be removed while it is still on the stack."""
        return not any(isinstance(screen, ChatScreen) and not screen._pruning for screen in self.screen_stack)

    # --- intents: messages, keys, palette and slash commands -------------------------------------

    def on_text_area_changed(self, event: Any) -> None:
        """The prompt changed: the meter prices its `@path` mentions."""
        if not self._chat_gone() and event.text_area is self.chat.prompt:
            self._price_mentions()

    def _price_mentions(self, *, again: bool = False) -> None:
        """Have the session price the prompt's `@path` mentions for the meter, once per set of
        mentions (`again`: even when they are the same, e.g. the session just became ready)."""
        text = self.chat.prompt.text
        from co_tui.agent.mentions import AT, mentions

        key = tuple(mentions(text)) if AT in text else ()
        if key == self._priced and not again:
            return
        self._priced = key
        if not key or self.session is None:  # no session yet: priced when it is ready
            self.chat.meter.attaching = 0
        else:
            self._price_attachments(self.session, text, key)

    @work(thread=True, group="attach-price", exit_on_error=False)
    def _price_attachments(self, session: SessionPort, text: str, key: tuple[str, ...]) -> None:
        """(In a thread: it reads the files.) What the mentions add; shown unless the prompt's
        mentions changed meanwhile."""
        tokens = session.attachments(text).tokens

        def show() -> None:
            if key == self._priced and not self._chat_gone():
                self.chat.meter.attaching = tokens

        self.call_from_thread(show)

    async def on_send_prompt(self, message: SendPrompt) -> None:
        """Hand a submitted prompt to the controller (it runs or queues every prompt)."""
        await self.controller.send(message.text)

    async def action_ctrl_c(self) -> None:
        """ctrl+c, as in Claude Code and Codex: a selection in the prompt is copied; else the prompt
        is cleared when it has text, or a running answer interrupted when it is empty; pressed again
        right after (no other key between, within `quit_window_s`), co-tui quits. The first press says
        so under the prompt, until the window closes."""
        chat = self.chat
        prompt = chat.prompt
        if prompt.selected_text:
            prompt.action_copy()
            return
        if self._quit_armed and not prompt.text:
            await self.action_quit()
            return
        if prompt.text:
            prompt.discard()
            done = "prompt cleared (↑ brings it back)"
        elif self.controller.job_kind is not None:
            self.controller.interrupt()
            done = "interrupted"
        else:
            done = ""
        self._quit_armed = True
        hint = f"{done + ' · ' if done else ''}ctrl+c again quits"
        chat.show_hint(hint, info=True)
        if self._quit_window is not None:
            self._quit_window.stop()
        self._quit_window = self.set_timer(self.quit_window_s, partial(self._close_quit_window, hint))

    def _close_quit_window(self, hint: str) -> None:
        """The second ctrl+c came too late to be meant as one: it no longer quits, and its hint goes."""
        self._quit_armed, self._quit_window = False, None
        if not self._chat_gone() and str(self.chat.query_one("#hint").render()) == hint:
            self.chat.clear_hint()

    def action_interrupt(self) -> None:
        """Esc: stop the running turn (the partial answer stays) or compaction. On an empty, idle
        prompt, Esc twice in a row (no other key between) opens the rewind picker, as in Claude Code."""
        controller = self.controller
        if controller.job is not None or self.chat.prompt.text:
            self._esc_armed = False
            controller.interrupt()
            return
        if self._esc_armed:
            self._esc_armed = False
            self.action_rewind()
            return
        self._esc_armed = True
        self.chat.show_hint("esc again: rewind to an earlier prompt", info=True)

    def action_rewind(self) -> None:
        """Esc Esc, /rewind: pick an earlier prompt to go back to (the points are read in a thread)."""
        if self.controller.ready_and_idle("rewind"):
            self._open_rewind_picker()

    @work(thread=True, exit_on_error=False, group="rewind")
    def _open_rewind_picker(self) -> None:
        session = self.session
        assert session is not None
        try:
            points = session.rewind_points()
            files = {p.position: session.files_back(p.position) for p in points if p.restorable}
        except Exception as exc:  # a damaged row: one line, nothing changes
            self.call_from_thread(self.chat.show_hint, f"cannot list the earlier prompts: {exc}")
            return
        self.call_from_thread(self._show_rewind_picker, points, files)

    def _show_rewind_picker(self, points: Any, files: Any) -> None:
        if not points:
            self.chat.show_hint("nothing to rewind to yet: no prompt was sent in this branch", info=True)
            return
        from co_tui.tui.screens.rewind import RewindScreen

        def chosen(choice: Any) -> None:
            if choice is None:
                return
            if choice.fork:
                prompt = next((p.text for p in points if p.position == choice.position), None)
                self.controller.fork(None, choice.position, prompt)
                return
            self.controller.rewind(choice.position, conversation=choice.conversation, code=choice.code)

        self.push_screen(RewindScreen(points, files), chosen)

    def action_show_branches(self) -> None:
        """/branches: the conversation tree; Enter switches to a branch (read in a thread)."""
        if self.controller.ready_and_idle("branches"):
            self._open_branches()

    @work(thread=True, exit_on_error=False, group="rewind")
    def _open_branches(self) -> None:
        session = self.session
        assert session is not None
        try:
            rows = session.branches()
        except Exception as exc:
            self.call_from_thread(self.chat.show_hint, f"cannot list the branches: {exc}")
            return
        self.call_from_thread(self._show_branches, rows)

    def _show_branches(self, rows: Any) -> None:
        from co_tui.tui.screens.branches import BranchesScreen

        def chosen(branch: int | None) -> None:
            if branch is not None:
                self.controller.switch_branch(branch)

        self.push_screen(BranchesScreen(rows), chosen)

    def action_compact(self, focus: str | None = None) -> None:
        """ctrl+k, /compact [focus]: show what will be summarised and the estimated size after, then
        summarise the conversation into a short recap (Enter or ctrl+k again confirms, Esc cancels)."""
        from co_tui.tui.screens.confirm_compact import ConfirmCompact

        if isinstance(self.screen, ConfirmCompact):  # ctrl+k pressed twice: compact without asking
            self.screen.dismiss(True)
            return
        focus = focus or None  # `/compact` with nothing after it
        body = self.controller.compact_summary(focus)
        if body is None:
            return

        def confirmed(yes: bool | None) -> None:
            if yes:
                self.controller.compact(focus)

        self.push_screen(ConfirmCompact(body), confirmed)

    def action_scroll_chat_end(self) -> None:
        """ctrl+end: jump to the end of the chat, which then follows new output again."""
        if not self._chat_gone():
            self.chat.log_view.scroll_to_end()

    def get_system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        """Textual's palette commands; its Screenshot saves to the data dir (tui/textual_defaults.py)."""
        from co_tui.tui.textual_defaults import system_commands

        return system_commands(super().get_system_commands(screen), self, screen, self._data_dir)

    def action_help_quit(self) -> None:
        """Ctrl+C on a screen that does not bind it: closes it as its Esc does, instead of Textual's
        "Do you want to quit?" (tui/textual_defaults.py)."""
        from co_tui.tui.textual_defaults import close_on_ctrl_c

        self.call_next(close_on_ctrl_c, self)

    def action_scroll_chat(self, where: str) -> None:
        """PgUp / PgDn (with Shift too) and ctrl+home, from the prompt: scroll the chat. Paging down
        to its end follows new output again, as ctrl+end does."""
        if self._chat_gone():
            return
        log = self.chat.log_view
        if where == "home":
            log.scroll_home(animate=False, immediate=True)
        elif where == "page_up":
            log.scroll_page_up(animate=False)
        elif log.scroll_y + log.scrollable_content_region.height >= log.max_scroll_y:
            log.scroll_to_end()
        else:
            log.scroll_page_down(animate=False)

    async def action_undo(self) -> None:
        """/undo: undo the newest cut or compaction still in effect (docs/context-governance.md)."""
        await self.controller.undo()

    async def action_pin(self) -> None:
        """/pin: pin the newest turn, so no cut drops, summarises or shortens it."""
        await self.controller.toggle_pin()

    async def on_trim_banner_recover_requested(self, message: Any) -> None:
        """`r` on a summary banner with lost items: the item (a picker when there are several), then
        the session brings it back as a verbatim excerpt (docs/context-governance.md)."""
        event = message.event
        lost = list(event.summary_lost or [])
        if len(lost) == 1:
            await self.controller.recover(lost[0], event)
            return
        from co_tui.governance.summary_check import kept_line
        from co_tui.tui.screens.recover_lost import RecoverLostScreen

        def picked(item: str | None) -> None:
            if item:
                self.spawn(self._recover(item, event))

        self.push_screen(RecoverLostScreen(lost, kept_line(event.summary_kept or [], lost)), picked)

    async def _recover(self, item: str, event: Any) -> None:
        await self.controller.recover(item, event)

    def action_clear(self) -> None:
        """ctrl+l, /clear: after a confirm, start a fresh conversation (the old one stays saved)."""
        body = self.controller.clear_summary()
        if body is None:
            return
        from co_tui.tui.screens.confirm_clear import ConfirmClear

        def confirmed(yes: bool | None) -> None:
            if yes:
                self.controller.clear()

        self.push_screen(ConfirmClear(body), confirmed)

    def action_show_history(self) -> None:
        """f2, /history: the history inspector (what the model sees vs the whole transcript)."""
        session = self.session
        if not self.controller.session_ready_for("history") or session is None:  # the check says None is not open
            return
        from co_tui.tui.screens.history import HistoryScreen

        self.push_screen(HistoryScreen(session, steer=self.controller, next_cut=session.next_cut))

    def action_show_context(self) -> None:
        """/context: what the next request holds, by category (instructions, tools, messages …)."""
        session = self.session
        if not self.controller.session_ready_for("context") or session is None:
            return
        from co_tui.tui.screens.context import ContextScreen

        self.push_screen(ContextScreen(session))

    def action_show_help(self) -> None:
        """f1, /help: keys and commands. The screen is built once and kept (installed), and
        draws the reference as one widget, so opening it stays quick (benchmarks/help_screen.py)."""
        from co_tui.tui.screens.help import HELP_SCREEN, HelpScreen

        if not self.is_screen_installed(HELP_SCREEN):
            self.install_screen(HelpScreen(), HELP_SCREEN)
        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HELP_SCREEN)

    def action_show_mcp(self, args: str = "") -> None:
        """/mcp: the MCP servers, their status, tools and schema token cost; `/mcp restart NAME`
        closes a server and starts it again (a failed one too), with one line saying so."""
        session = self.session
        if not self.controller.session_ready_for("mcp") or session is None:
            return
        if args:
            verb, _, name = args.partition(" ")
            if verb != "restart" or not name.strip():
                self.chat.show_hint("usage: /mcp, or /mcp restart NAME")
                return
            self.spawn(self.chat.add_notice(session.mcp.restart(name.strip())))
            return
        from co_tui.tui.screens.mcp import McpScreen

        self.push_screen(McpScreen(session.mcp))

    def action_show_agents(self) -> None:
        """/agents: the agents the model can delegate to, and the definition files refused."""
        session = self.session
        if not self.controller.session_ready_for("agents") or session is None:
            return
        self.spawn(self.chat.add_notice("\n".join(session.agents_listing())))

    def action_remember(self, note: str = "") -> None:
        """/remember [--global] note, #note: ask, then add it to the memory (memory_actions.py)."""
        from co_tui.tui.memory_actions import remember

        remember(self, note)

    def action_show_memory(self) -> None:
        """/memory: the notes and where they came from; edit, delete (memory_actions.py)."""
        from co_tui.tui.memory_actions import show_memory

        show_memory(self)

    def action_show_permissions(self) -> None:
        """/permissions: what "always allow" allowed in this session, revocable."""
        from co_tui.tui.screens.permissions import PermissionsScreen

        self.push_screen(PermissionsScreen(self.permissions))

    def action_show_sessions(self) -> None:
        """/sessions: pick a saved session to resume."""
        controller = self.controller
        if not controller.ready_and_idle("sessions"):
            return
        session = controller.session
        assert session is not None
        catalog = session.catalog
        if catalog is None:
            self.chat.show_hint("sessions are not being saved (no store)")
            return
        from co_tui.tui.screens.sessions import SessionsScreen

        def chosen(session_id: str | None) -> None:
            if session_id and session_id != session.id:
                self.switch_session(session_id, catalog)

        self.push_screen(SessionsScreen(catalog, self.workspace, current_id=session.id), chosen)

    def switch_session(self, session_id: str, store: SessionCatalog | None = None) -> None:
        """Open saved session `session_id` in place of the current one (what /sessions does once one
        is picked); until it is ready, prompts wait for it and commands refuse. `store`: the catalog
        it was picked from, which the new session is saved in too (None: the factory opens one)."""
        self.controller.opening(session_id)
        self._open_session(session_id, False, store)

    def action_export(self, args: str = "") -> None:
        """/export [md|json] [path]: write this session to a file (default: the workspace)."""
        self.controller.export(args)

    async def action_compact_mode(self, mode: str = "") -> None:
        """/compact-mode [auto|ask|off]: switch who cuts the context for this session (the palette: the next mode)."""
        await self.controller.switch_compact_mode(mode)

    async def action_model(self, name: str = "") -> None:
        """/model [name]: show the model, or switch to `name` for the following turns."""
        if not name:
            await self.controller.show_model()
        elif self.controller.can_switch_model():
            self._switch_model(name)

    @work(thread=True, exit_on_error=False, group="session")
    def _switch_model(self, name: str) -> None:
        session = self.session
        assert session is not None
        try:
            session.set_model(name)  # builds the agent: imports the provider's SDK
        except Exception as exc:  # ModelConfigError: one line, the old model stays
            # Its wording is the command line's (`choose --model offline`); here the command is /model.
            self.call_from_thread(self.chat.show_hint, str(exc).replace("--model ", "/model "))
            return
        # Textual types the callback as returning `T | Awaitable[T]` and cannot solve T for a
        # coroutine function returning None; call_from_thread awaits it (textual/app.py).
        self.call_from_thread(self.controller.model_switched)  # type: ignore[arg-type]

    async def on_run_slash(self, message: RunSlash) -> None:
        """Run a submitted slash command line (`run_slash`)."""
        await self.run_slash(message.line)

    async def run_slash(self, line: str) -> bool:
        """Run a slash command line (the action its key or palette entry runs). Returns False when
        `line` is not a slash command at all; an unknown command gets a hint naming the closest."""
        parsed = parse_slash(line)
        if parsed is None:
            return False
        name, arg = parsed
        spec = find_command(name)
        chat = self.chat
        chat.clear_hint()
        if spec is None:
            near = closest_command(name)
            tip = f" — did you mean /{near}?" if near else " — /help lists the commands"
            chat.show_hint(f"unknown command /{name}{tip}")
            return True
        # The table's action, given the text after the name when the command takes arguments.
        action = getattr(self, f"action_{spec.action}")
        done = action(arg) if spec.arguments else action()
        if inspect.isawaitable(done):
            await done
        return True

    async def ask_user(self, request: ApprovalRequest) -> Decision:
        """The front end's `ask` for the session's approvals (`co_tui.session.approvals`): the
        approval dialog (`screens/approval.py`) shows exactly what runs and asks. Esc or n refuses;
        a offers "always" for this session (`request.grant`, which the session keeps)."""
        from co_tui.session import MAIN_AGENT
        from co_tui.tui.screens.approval import approval_dialog

        future: asyncio.Future[Decision] = asyncio.get_running_loop().create_future()

        def answered(result: Decision | None) -> None:
            if not future.done():
                future.set_result(result or "deny")

        agent = None if request.agent == MAIN_AGENT else request.agent  # a subagent asking is named
        dialog = approval_dialog(
            request.tool, request.text, request.path, request.grant, by_user=request.by_user, agent=agent
        )
        self.push_screen(dialog, answered)
        return await future

    async def approve_shell(
        self, command: str, tool: str = "run_shell", path: str | None = None, *, by_user: bool = False
    ) -> bool:
        """Ask about a call as the session's tools do (its approvals: a grant of `/permissions` runs
        it without asking, else `ask_user`); True when it may run."""
        approvals = self.session.approvals if self.session is not None else None
        if approvals is None:
            return False
        return await approvals.approve(command, tool=tool, path=path, by_user=by_user)

    @property
    def permissions(self) -> Permissions:
        """What "always allow" granted in the open session (`/permissions`); empty before one opens."""
        approvals = self.session.approvals if self.session is not None else None
        return approvals.permissions if approvals is not None else Permissions()

    def _granted(self, grant: Grant) -> None:
        """A grant let a call run without asking: say so under the prompt."""
        from co_tui.agent.approval_text import escaped

        if not self._chat_gone():
            self.chat.show_hint(f"ran without asking: {escaped(grant.describe())} (/permissions)", info=True)

    # --- ChatView: what the controller shows, on the chat screen ---------------------------------

    def start_job(self, work: Coroutine[Any, Any, None]) -> Worker[None]:
        """`ChatView.start_job`: a Textual worker in group `JOB_GROUP`; a failure is shown, not raised
        (`on_worker_state_changed`)."""
        return self.run_worker(work, group=JOB_GROUP, exit_on_error=False)

    def spawn(self, work: Coroutine[Any, Any, None]) -> None:
        """`ChatView.spawn`: a Textual worker in group `ui`; it does not stop the app when it fails."""
        self.run_worker(work, group="ui", exit_on_error=False)

    def ask_cut(self, plan: PlannedCut, prompt: str, answered: Callable[[CutAnswer | None], None]) -> None:
        """`ChatView.ask_cut`: the ask dialog (screens/ask_cut.py) over the chat; its answer goes to `answered`."""
        from co_tui.tui.screens.ask_cut import AskCutScreen

        if self._chat_gone():
            return
        self.push_screen(AskCutScreen(plan, prompt), answered)

    def inspect(self, closed: Callable[[], None]) -> None:
        """`ChatView.inspect`: the history inspector, as f2 opens it; `closed` once it is dismissed."""
        from co_tui.tui.screens.history import HistoryScreen

        session = self.session
        if session is None or self._chat_gone():
            closed()
            return
        self.push_screen(HistoryScreen(session, steer=self.controller, next_cut=session.next_cut), lambda _: closed())

    def busy_changed(self, label: str | None) -> None:
        """`ChatView.busy_changed`: the activity line. Full garbage collections wait while a job runs;
        the held one runs after it, once the user stops typing (tui/gc_pause.py). The end refreshes the
        title bar."""
        self.chat.activity.label = label or ""
        if label is not None:
            pause_full_collections()
        else:
            # After the last frame of the answer is painted, and not under the user's fingers.
            self.call_after_refresh(self._collect_when_idle, monotonic())
            if self.session is not None:
                self._refresh_title(self.session)

    def show_hint(self, text: str, *, info: bool = False) -> None:
        """`ChatView.show_hint`, on the chat screen."""
        self.chat.show_hint(text, info=info)

    def clear_hint(self) -> None:
        """`ChatView.clear_hint`, on the chat screen."""
        self.chat.clear_hint()

    async def show_event(self, event: Event) -> None:
        """`ChatView.show_event`, on the chat screen."""
        await self.chat.show_event(event)

    async def end_answer(self) -> None:
        """`ChatView.end_answer`, on the chat screen."""
        await self.chat.end_answer()

    async def add_notice(self, text: str) -> None:
        """`ChatView.add_notice`, on the chat screen."""
        await self.chat.add_notice(text)

    async def add_user_message(self, text: str, *, queued: bool = False) -> None:
        """`ChatView.add_user_message`, on the chat screen."""
        await self.chat.add_user_message(text, queued=queued)

    def mark_unsent(self, text: str) -> None:
        """`ChatView.mark_unsent`, on the chat screen."""
        self.chat.mark_unsent(text)

    async def unqueue_user_message(self, text: str) -> None:
        """`ChatView.unqueue_user_message`, on the chat screen."""
        await self.chat.unqueue_user_message(text)

    async def clear_log(self) -> None:
        """`ChatView.clear_log`, on the chat screen."""
        await self.chat.clear_log()

    def restore_prompt(self, text: str) -> None:
        """`ChatView.restore_prompt`: `text` goes first, anything typed since stays after it."""
        prompt = self.chat.prompt
        typed = prompt.text.strip()  # what was typed since stays, after the text put back
        prompt.restore(f"{text}\n\n{typed}" if typed else text)

    def show_queue(self, texts: Sequence[str]) -> None:
        """`ChatView.show_queue`: the strip above the input."""
        self.chat.queue_strip.show(texts)

    async def show_items(
        self, items: list[Item], banners: Sequence[tuple[int, Any]], *, entries: int | None = None
    ) -> None:
        """`ChatView.show_items`, on the chat screen."""
        await self.chat.show_items(items, banners=banners, entries=entries)

    def show_truncated(self, tool_call_ids: frozenset[str]) -> None:
        """`ChatView.show_truncated`, on the chat screen."""
        self.chat.show_truncated(tool_call_ids)

    def show_session(self, session: SessionPort) -> None:
        """`ChatView.show_session`: the title bar and the meter's reading (none once the app quits:
        the controller's awaits before it may outlast the chat screen)."""
        if self._chat_gone():
            return
        self._refresh_title(session)
        self.chat.meter.reading = session.meter_reading()

    def show_title(self, title: str) -> None:
        """`ChatView.show_title`: the title bar (none once the app quits)."""
        if not self._chat_gone():
            self.chat.title_bar.session_title = title

    def open_saved(self, session_id: str) -> None:
        """`ChatView.open_saved`: switch to that session, saved in the open one's catalog."""
        session = self.session
        self.switch_session(session_id, session.catalog if session is not None else None)

    def action_fork(self, title: str = "") -> None:
        """/fork [title]: go on in a new saved session copied from this one as it is now."""
        self.controller.fork(title or None)

    def fail_to_start(self, message: str, exit_code: int) -> None:
        """`ChatView.fail_to_start`: exit with `exit_code`; `run_app` prints `message` (kept in `failure`)
        once the terminal is restored."""
        # Nothing to chat with: leave, and let run_app print the line with the CLI's exit code.
        self.failure = message
        self.exit(exit_code, return_code=exit_code)  # the process's exit status

    def _refresh_title(self, session: SessionPort) -> None:
        bar = self.chat.title_bar
        bar.model_name = session.model_name
        bar.offline = bool(session.is_offline)
        bar.session_title = session.title

    # --- jobs: the garbage collector, failures ---------------------------------------------------

    def _collect_when_idle(self, turn_ended_at: float) -> None:
        """Run the full collection held back during the job once it is due (`collection_due`);
        a job started meanwhile keeps it held, and its own end schedules it again."""
        if self.controller.busy:
            return
        if collection_due(turn_ended_at, self.key_clock.since_input()):
            resume_full_collections()
        else:
            self.set_timer(0.1, partial(self._collect_when_idle, turn_ended_at))

    def on_unmount(self) -> None:
        """Give the interpreter its garbage collector back as it was (quitting before a held collection ran)."""
        # Quitting before the held collection ran: the interpreter (another app, a test) gets its
        # collector back as it was.
        resume_full_collections(collect=False)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        """Show a controller job that died with an exception as one error line in the chat."""
        # A job that died with an exception (outside the session's events) is shown as one line.
        worker = event.worker
        # A cancelled job (Esc on `/compact`) is no failure: Textual keeps its CancelledError as `error`.
        failed = event.state == WorkerState.ERROR
        if worker.group == JOB_GROUP and failed and worker.error is not None and not self._chat_gone():
            self.chat.post_message(SessionEvent(internal_error(worker.error)))

    # --- opening sessions: start-up, --resume, /sessions -----------------------------------------

    def on_mount(self) -> None:
        """After the first frame: open the session (`_start_session`); put what was typed or pasted
        meanwhile into the prompt."""
        # After the first frame: building the session imports pydantic and pydantic-ai (hundreds of ms).
        self.call_after_refresh(self._start_session)
        self.call_later(self._release_early_input)  # after the keys read so far

    async def on_event(self, event: events.Event) -> None:
        """While co-tui starts, keep text keys and pastes for the prompt (`EarlyInput.hold`); any other
        event goes on as usual."""
        # A paste read as keys while co-tui starts stays one paste (tui/early_input.py).
        if self.early_input.hold(event):
            return
        if isinstance(event, events.Key) and not event.is_forwarded and event.key != "ctrl+c":
            self._quit_armed = False  # ctrl+c quits when pressed twice in a row
        if isinstance(event, events.Key) and not event.is_forwarded and event.key != "escape":
            self._esc_armed = False  # esc rewinds when pressed twice in a row
        if isinstance(event, events.Key) and not event.is_forwarded and await self._route_typing(event):
            return
        await super().on_event(event)

    async def _route_typing(self, event: events.Key) -> bool:
        """A key typed on the chat screen while a row or the log has focus goes to the prompt, in
        order (tui/type_ahead.py); True when taken there. So does a key that types text while a
        dialog's answers are not armed yet (screens/arming.py): it was meant for the prompt."""
        typing = types_text(event)
        burst = typing and event.time - self._typed_at < arming_seconds()
        dialog = arming(self.screen, burst=burst, key=event.key if typing else None)
        if typing:  # a key that answered an armed dialog is no typing: the next one may answer too
            answers = dialog is None and isinstance(self.screen, ArmedAnswers)
            self._typed_at = float("-inf") if answers else event.time
        if dialog is not None:
            return self._to_prompt_under_dialog(dialog, event)
        chat = self.screen
        if not isinstance(chat, ChatScreen) or not chat.is_mounted:
            return False
        forward = super().on_event
        later = lambda: self.call_later(self.type_ahead.release, forward)  # noqa: E731
        return await self.type_ahead.route(chat, chat.prompt, event, later=later, forward=forward)

    def _to_prompt_under_dialog(self, dialog: ArmedAnswers, event: events.Key) -> bool:
        """Key `event`, typed while `dialog` (on top) arms: text goes to the chat's prompt when the dialog
        is over the chat (else it is dropped) and the arming starts again; True when taken. Any other key goes to
        the dialog, whose answers are inert."""
        from textual.widgets import Input

        if not types_text(event) or isinstance(self.screen.focused, Input):  # a dialog's own field types
            return False
        dialog.typed()
        under = self.screen_stack[-2] if len(self.screen_stack) > 1 else None
        if isinstance(under, ChatScreen) and not under.prompt.read_only:
            under.prompt._forward_event(event)
        return True

    def _release_early_input(self) -> None:
        """Put what was typed or pasted while co-tui started into the prompt, as one paste, once
        the prompt is mounted and no more keys come (`EarlyInput.release`)."""
        if self._chat_gone():
            return
        prompt = self.chat.prompt
        if not prompt.is_mounted:
            self.call_after_refresh(self._release_early_input)
            return
        text = self.early_input.release()
        if text is None:  # more may be queued behind this: look again after it
            self.call_later(self._release_early_input)
        elif text:  # through the app, as the terminal's pastes come, to the prompt
            prompt.focus()
            self.post_message(events.Paste(text))

    def _start_session(self) -> None:
        if self.resume_id == "":  # bare --resume: pick from the saved sessions first
            self._pick_then_open()
        else:
            self._open_session(self.resume_id, self.continue_latest, preview=True)

    def _ensure_settings(self) -> Settings:
        """The settings, loading them on first use (from a worker). Raises `SettingsError`."""
        if self.settings is None:
            assert self._load_settings is not None
            self.settings = self._load_settings()
        return self.settings

    def _data_dir(self) -> Path:
        """The data dir, without building the settings when they are not loaded yet (falls back to
        them when it is unclear: their error names the bad value). Raises `SettingsError`."""
        if self.settings is None:
            from co_tui.paths import data_dir_without_settings

            data_dir = data_dir_without_settings()
            if data_dir is not None:
                return data_dir
        return self._ensure_settings().resolved_data_dir

    def _factory(self) -> SessionFactory:
        if self.session_factory is None:
            from co_tui.session import open_session

            self.session_factory = open_session
        return self.session_factory

    @work(thread=True, exit_on_error=False, group="session")
    def _open_session(
        self, resume_id: str | None, continue_latest: bool, store: Any = None, *, preview: bool = False
    ) -> None:
        """Build the session (new, or resumed by id/prefix or `continue_latest`) and post
        `SessionReady`, or `SessionFailed` with one line. With `preview` (start-up), a resumed
        conversation is first shown from the store's rows, before the settings are built and
        pydantic-ai is imported."""
        try:
            if preview and (resume_id or continue_latest):
                # Before the settings: the conversation needs only the store (docs/architecture.md).
                from co_tui.session import open_store_at

                store = store or open_store_at(self._data_dir())
                resume_id, continue_latest = self._preview(store, resume_id, continue_latest), False
        except Exception as exc:  # SettingsError, OpenSessionError, StoreError: one line
            self.post_message(SessionFailed(str(exc) or type(exc).__name__, getattr(exc, "exit_code", 2)))
            return
        try:
            settings = self._ensure_settings()
        except Exception as exc:  # SettingsError: one line naming the setting, exit 2
            self.post_message(SessionFailed(str(exc) or type(exc).__name__, 2))
            return
        try:
            session = self._factory()(
                settings,
                self.workspace,
                resume_id=resume_id,
                continue_latest=continue_latest,
                ask=self.ask_user,
                store=store,
            )
        except Exception as exc:  # OpenSessionError and anything else: one line
            from co_tui.session import SessionBusy, exit_code_for

            busy = isinstance(exc, SessionBusy)
            self.post_message(SessionFailed(str(exc) or type(exc).__name__, exit_code_for(exc), busy=busy))
            return
        self.post_message(SessionReady(session))

    def _preview(self, store: Any, resume_id: str | None, continue_latest: bool) -> str | None:
        """(In the start-up worker.) Resolve the session to resume and post its newest entries,
        read from the store's raw rows; wait until they are on screen. Returns the full id (None: a
        new session). Raises `OpenSessionError`/`StoreError` when there is nothing to resume."""
        from co_tui.session import resolve_session_id
        from co_tui.tui.transcript_view import tail_shows, window_items

        session_id = resolve_session_id(store, self.workspace, resume_id=resume_id, continue_latest=continue_latest)
        if session_id is None:
            return None
        try:
            tail = store.load_tail(session_id, tail_shows(RESUME_ENTRIES))
            items = window_items(tail.rows, tail.start)
        except Exception:  # damaged or unreadable: the full load says so, in one line
            return session_id
        shown = threading.Event()
        self.post_message(
            SessionPreview(
                session_id=session_id,
                title=tail.meta.title,
                items=items,
                banners=tail.banners,
                entries=tail.counts.items + tail.cuts,
                turns=tail.counts.turns,
                messages=tail.messages,
                cuts=tail.cuts,
                shown=shown,
            )
        )
        # Mounting the preview and importing pydantic-ai would share one interpreter lock: the
        # conversation first, then the model.
        shown.wait(PREVIEW_WAIT_S)
        return session_id

    @work(exit_on_error=False, group="session")
    async def _pick_then_open(self) -> None:
        try:
            settings = await asyncio.to_thread(self._ensure_settings)  # imports pydantic: off the UI thread
            from co_tui.session import open_store
            from co_tui.tui.screens.sessions import SessionsScreen

            store = await asyncio.to_thread(open_store, settings)
        except Exception as exc:  # SettingsError, OpenSessionError: one line, exit 2
            self.post_message(SessionFailed(str(exc), getattr(exc, "exit_code", 2)))
            return
        chosen = await self.push_screen_wait(SessionsScreen(store, self.workspace))
        self._open_session(chosen, False, store, preview=True)

    async def on_session_preview(self, message: SessionPreview) -> None:
        """Show a saved conversation while its session loads (`ChatController.preview`); sets
        `message.shown` in every case, so the start-up worker never waits on it for nothing."""
        try:
            if not self._chat_gone():
                await self.controller.preview(
                    message.session_id,
                    message.title,
                    message.items,
                    message.banners,
                    turns=message.turns,
                    messages=message.messages,
                    entries=message.entries,
                    cuts=message.cuts,
                )
        finally:
            message.shown.set()

    async def on_session_ready(self, message: SessionReady) -> None:
        """The session opened: hand it to the controller, start its MCP servers, then preload prices and
        mount the entries of a resumed conversation above the first screen. Its grants start empty."""
        if message.session.approvals is not None:  # "always allow" holds for one session (/permissions)
            message.session.approvals.on_granted = self._granted
        release_collections_after_start_up()
        if not self._chat_gone():  # else: quit while the session was loading
            await self.controller.session_ready(message.session)  # it starts the MCP servers
            self._price_mentions(again=True)  # `@path` typed while it loaded
            self.call_after_refresh(self._preload_pricing)  # once the ready session is on screen
            self.call_after_refresh(self._mount_earlier)

    def _mount_earlier(self) -> None:
        """A resumed conversation's entries above the first screen, once the ready session is on
        screen (the preview mounts a screenful: docs/architecture.md, Start-up)."""
        if not self._chat_gone() and self.chat.earlier_pending:
            self.spawn(self.chat.mount_earlier())

    @work(thread=True, exit_on_error=False, group="pricing")
    def _preload_pricing(self) -> None:
        """genai-prices' table, deferred while the session was built (co_tui/agent/pricing_data.py),
        loaded off the UI thread before a first answer needs it."""
        from co_tui.agent.pricing_data import preload

        preload()

    def mcp_changed(self, events: Sequence[Event]) -> None:
        """`ChatView.mcp_changed`: a server's lines in the chat; its schemas join (or leave) the
        meter's figure; an open `/mcp` list shows the new status."""
        session = self.session
        if self._chat_gone() or session is None:
            return
        for event in events:
            self.spawn(self.chat.show_event(event))
        if not session.busy:  # a turn's own events redraw the meter
            self.chat.meter.reading = session.meter_reading()
        from co_tui.tui.screens.mcp import McpScreen

        if isinstance(self.screen, McpScreen):
            self.screen.show_servers()

    def run_in_background(self, work: Coroutine[Any, Any, None]) -> Worker[None]:
        """`ChatView.run_in_background`: a Textual worker in group `mcp` (quitting the app stops it)."""
        return self.run_worker(work, group="mcp", exit_on_error=False)

    async def on_session_failed(self, message: SessionFailed) -> None:
        """A session did not open (`ChatController.session_failed`: at start-up the app leaves)."""
        release_collections_after_start_up()
        await self.controller.session_failed(message.message, message.exit_code, busy=message.busy)


def run_app(
    settings: SettingsSource, workspace: Path, resume_id: str | None = None, continue_latest: bool = False
) -> int:
    """Run the TUI until the user quits; returns the process exit code.

    When the settings or the session cannot be loaded, the app exits by itself and the one line
    saying why is printed here, after the terminal is restored (exit 2 for settings and usage).
    Otherwise, when the session has turns, one line says how to resume it, or, when its last save
    failed, where its rescue copy went (`quit_lines`); a conversation the database lacks exits 1,
    as print mode does after a failed save, rescued or not.
    """
    app = CoTuiApp(settings, workspace, resume_id=resume_id, continue_latest=continue_latest)
    try:
        app.run()
    finally:  # quit before the session was ready
        release_collections_after_start_up()
    if app.failure:
        print(f"co-tui: {app.failure}", file=sys.stderr)
    else:
        from co_tui.session import quit_lines

        # Closed on quitting; else (the app ended another way) the same lines, the session as it is.
        closing = app.closing
        hint, problem = (closing.hint, closing.problem) if closing is not None else quit_lines(app.session)
        if problem:
            print(f"co-tui: {problem}", file=sys.stderr)
            return app.return_code or 1
        if hint:
            # On a line of its own: anything the terminal echoed before the first frame is wiped.
            print(f"\r\x1b[K{hint}" if sys.stdout.isatty() else hint)
    return app.return_code or 0

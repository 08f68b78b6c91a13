"""The co-tui Textual app: `CoTuiApp` composes the chat screen and hands intents on; `run_app` runs it.

Its parts, one concern each (docs/architecture.md has the picture):

- `ChatController` (tui/controller.py, no Textual) owns the session, the running job, the prompts
  waiting for a session and the state of opening one; `SteeringIntents` (tui/steering_intents.py)
  carries out undo, pin, evict, recover, clear, rewind, fork and branch switches on it;
- `CoTuiApp` (here) routes keys (tui/typing_routes.py), implements the controller's `ChatHost` (jobs
  as Textual workers, dialogs: the ask-before-cut dialog, the inspector) and asks the user
  (tui/approval_asking.py);
- `SessionOpening` (tui/session_opening.py) loads the settings and opens sessions in a thread worker;
- `CommandActions` (tui/command_actions.py) is what each slash command does, run by the session's
  command table (tui/command_dispatch.py) for typed commands, palette picks and command keys;
- `ChatScreen` renders the session's events and is the controller's `ChatView`.

Start-up order matters (the TUI must paint before pydantic and pydantic-ai load): this module
imports no pydantic, pydantic-ai, provider SDK or domain package at module level. The chat screen
paints first; then one thread worker shows a resumed conversation from the store's raw rows,
loads the settings and builds the session (which imports pydantic-ai), never on the UI thread. A
prompt sent before the session is ready waits in the controller's queue.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import sys
from collections.abc import Callable, Coroutine, Iterable, Sequence
from functools import cached_property, partial
from pathlib import Path
from time import monotonic
from typing import TYPE_CHECKING, Any

from textual import events
from textual.app import App, SystemCommand
from textual.timer import Timer
from textual.worker import Worker, WorkerState

from co_tui.tui import alt_enter
from co_tui.tui.approval_asking import ApprovalAsking
from co_tui.tui.command_dispatch import run_action, run_slash
from co_tui.tui.controller import ChatController, internal_error
from co_tui.tui.gc_pause import (
    collection_due,
    pause_full_collections,
    release_collections_after_start_up,
    resume_full_collections,
)
from co_tui.tui.input_clock import KeyClock
from co_tui.tui.mention_pricing import MentionPricing
from co_tui.tui.messages import RunSlash, SendPrompt, SessionEvent, SessionFailed, SessionPreview, SessionReady
from co_tui.tui.screens.chat import ChatScreen
from co_tui.tui.session_opening import SessionFactory, SessionOpening, SettingsSource
from co_tui.tui.typing_routes import TypingRoutes

if TYPE_CHECKING:
    from textual.command import Provider
    from textual.driver import Driver
    from textual.screen import Screen

    from co_tui.config import Settings
    from co_tui.session import (
        Closing,
        CutAnswer,
        Event,
        PlannedCut,
        SessionPort,
    )
    from co_tui.tui.command_actions import CommandActions
    from co_tui.tui.steering_intents import SteeringIntents

__all__ = ["CoTuiApp", "SessionFactory", "SettingsSource", "run_app"]

JOB_GROUP = "task"  # the Textual worker group of the controller's jobs


def slash_command_provider() -> type[Provider]:
    """The palette's provider of the slash commands (tui/palette.py), loaded when the palette opens."""
    from co_tui.tui.palette import SlashCommandProvider

    return SlashCommandProvider


class CoTuiApp(App[int]):
    """The full-screen chat. `session_factory` builds the session in a worker after the first paint."""

    TITLE = "co-tui"
    # The chat screen is the base screen (`get_default_screen`), which Textual does not load a
    # stylesheet for: it is read with the app's, in the one parse before the first frame.
    CSS_PATH = Path(__file__).parent / "screens" / "chat.tcss"
    COMMANDS = App.COMMANDS | {slash_command_provider}
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
        self.workspace = Path(workspace)
        # This app's key timings: its driver, prompt and chat screen note keys here (tui/input_clock.py).
        self.key_clock = KeyClock()
        # The base screen, made here so that every part below shows on it from the start.
        chat = self._chat = ChatScreen(self.key_clock, self.workspace)
        self.controller = controller = ChatController(self, chat, self.workspace)
        self.approvals = ApprovalAsking(self, controller, chat)  # the approval dialog; the grants are the session's
        self.mentions = MentionPricing(self, controller, chat)  # the meter's figure for the prompt's `@path`s
        self.typing = TypingRoutes(self, chat)
        # A settings loader is called in the start-up worker: pydantic-settings must not delay the first frame.
        self.opening = SessionOpening(
            self,
            controller,
            chat,
            settings,
            approvals=self.approvals,
            mentions=self.mentions,
            factory=session_factory,
            resume_id=resume_id,
            continue_latest=continue_latest,
        )
        self.failure: str | None = None  # one line printed by run_app when the session cannot open
        self.closing: Closing | None = None  # what closing the session left to say (`run_app` prints it)
        self._quit_armed = False  # the last key was a ctrl+c: another one quits, within the window
        self._quit_window: Timer | None = None  # closes it (`quit_window_s` after the first press)
        self._esc_armed = False  # the last key was an esc on an empty idle prompt: another one rewinds

    # The steering intents and the slash commands' actions are built at their first use: no intent
    # comes before the first frame, and their modules (with the session's refusals and the policy's
    # events) are not needed to draw it (tests/test_start_up_imports.py).
    @cached_property
    def steering(self) -> SteeringIntents:
        """Undo, pin, evict, recover, clear, rewind, fork and branch switches, on the controller."""
        from co_tui.tui.steering_intents import SteeringIntents

        return SteeringIntents(self.controller)

    @cached_property
    def commands(self) -> CommandActions:
        """What each slash command does (tui/command_actions.py)."""
        from co_tui.tui.command_actions import CommandActions

        return CommandActions(
            self, self.controller, self.steering, self._chat, opening=self.opening, approvals=self.approvals
        )

    @property
    def session(self) -> SessionPort | None:
        """The open session (the controller's), None until it is ready."""
        return self.controller.session

    @property
    def busy(self) -> bool:
        """A turn, compaction or clear runs."""
        return self.controller.busy

    @property
    def settings(self) -> Settings | None:
        """The settings, once loaded (`SessionOpening.ensure_settings`)."""
        return self.opening.settings

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
        return self._chat

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

    # --- intents: prompts, slash commands, keys ---------------------------------------------------

    def on_text_area_changed(self, event: Any) -> None:
        """The prompt changed: the meter prices its `@path` mentions."""
        if not self._chat.gone and event.text_area is self.chat.prompt:
            self.mentions.price()

    async def on_send_prompt(self, message: SendPrompt) -> None:
        """Hand a submitted prompt to the controller (it runs or queues every prompt)."""
        await self.controller.send(message.text)

    async def on_run_slash(self, message: RunSlash) -> None:
        """Run a submitted slash command line (`command_dispatch.run_slash`)."""
        await self.run_slash(message.line)

    async def run_slash(self, line: str) -> bool:
        """Run a slash command line, as typed or picked in the palette (`command_dispatch.run_slash`).
        Returns False when `line` is not a slash command at all."""
        return await run_slash(self.commands, self.chat, line)

    async def action_command(self, action: str) -> None:
        """A key bound to a command of the table (ctrl+k, ctrl+l, f2, f1, ctrl+q): run it, as
        `/name` with nothing after it does (`command_dispatch.run_action`)."""
        await run_action(self.commands, action)

    async def on_trim_banner_recover_requested(self, message: Any) -> None:
        """`r` on a summary banner with lost items (`CommandActions.recover_lost`)."""
        await self.commands.recover_lost(message.event)

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
        if not self._chat.gone and str(self.chat.query_one("#hint").render()) == hint:
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
            self.commands.rewind()
            return
        self._esc_armed = True
        self.chat.show_hint("esc again: rewind to an earlier prompt", info=True)

    def action_scroll_chat_end(self) -> None:
        """ctrl+end: jump to the end of the chat, which then follows new output again."""
        if not self._chat.gone:
            self.chat.log_view.scroll_to_end()

    def get_system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        """Textual's palette commands; its Screenshot saves to the data dir (tui/textual_defaults.py)."""
        from co_tui.tui.textual_defaults import system_commands

        return system_commands(super().get_system_commands(screen), self, screen, self.opening.data_dir)

    def action_help_quit(self) -> None:
        """Ctrl+C on a screen that does not bind it: closes it as its Esc does, instead of Textual's
        "Do you want to quit?" (tui/textual_defaults.py)."""
        from co_tui.tui.textual_defaults import close_on_ctrl_c

        self.call_next(close_on_ctrl_c, self)

    def action_scroll_chat(self, where: str) -> None:
        """PgUp / PgDn (with Shift too) and ctrl+home, from the prompt: scroll the chat. Paging down
        to its end follows new output again, as ctrl+end does."""
        if self._chat.gone:
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

    # --- ChatHost: jobs, dialogs and sessions for the controller ------------------------------------

    def start_job(self, work: Coroutine[Any, Any, None]) -> Worker[None]:
        """`ChatHost.start_job`: a Textual worker in group `JOB_GROUP`; a failure is shown, not raised
        (`on_worker_state_changed`)."""
        return self.run_worker(work, group=JOB_GROUP, exit_on_error=False)

    def spawn(self, work: Coroutine[Any, Any, object]) -> None:
        """`ChatHost.spawn`: a Textual worker in group `ui`; it does not stop the app when it fails."""
        self.run_worker(work, group="ui", exit_on_error=False)

    def run_in_background(self, work: Coroutine[Any, Any, None]) -> Worker[None]:
        """`ChatHost.run_in_background`: a Textual worker in group `mcp` (quitting the app stops it)."""
        return self.run_worker(work, group="mcp", exit_on_error=False)

    def busy_changed(self, label: str | None) -> None:
        """`ChatHost.busy_changed`: the activity line. Full garbage collections wait while a job runs;
        the held one runs after it, once the user stops typing (tui/gc_pause.py). The end refreshes the
        title bar."""
        self.chat.activity.label = label or ""
        if label is not None:
            pause_full_collections()
        else:
            # After the last frame of the answer is painted, and not under the user's fingers.
            self.call_after_refresh(self._collect_when_idle, monotonic())
            if self.session is not None:
                self.chat.show_model(self.session)

    def ask_cut(self, plan: PlannedCut, prompt: str, answered: Callable[[CutAnswer | None], None]) -> None:
        """`ChatHost.ask_cut`: the ask dialog (screens/ask_cut.py) over the chat; its answer goes to `answered`."""
        from co_tui.tui.screens.ask_cut import AskCutScreen

        if not self._chat.gone:
            self.push_screen(AskCutScreen(plan, prompt), answered)

    def inspect(self, closed: Callable[[], None]) -> None:
        """`ChatHost.inspect`: the history inspector, as f2 opens it; `closed` once it is dismissed."""
        from co_tui.tui.screens.history import HistoryScreen

        session = self.session
        if session is None or self._chat.gone:
            closed()
            return
        steer = self.steering
        self.push_screen(HistoryScreen(session, steer=steer, next_cut=session.next_cut), lambda _: closed())

    def mcp_changed(self, events: Sequence[Event]) -> None:
        """`ChatHost.mcp_changed`: a server's lines in the chat; its schemas join (or leave) the
        meter's figure; an open `/mcp` list shows the new status."""
        session = self.session
        if self._chat.gone or session is None:
            return
        for event in events:
            self.spawn(self.chat.show_event(event))
        if not session.busy:  # a turn's own events redraw the meter
            self.chat.meter.reading = session.meter_reading()
        from co_tui.tui.screens.mcp import McpScreen

        if isinstance(self.screen, McpScreen):
            self.screen.show_servers()

    def open_saved(self, session_id: str) -> None:
        """`ChatHost.open_saved`: switch to that session, saved in the open one's catalog."""
        session = self.session
        self.opening.switch(session_id, session.catalog if session is not None else None)

    def fail_to_start(self, message: str, exit_code: int) -> None:
        """`ChatHost.fail_to_start`: exit with `exit_code`; `run_app` prints `message` (kept in `failure`)
        once the terminal is restored."""
        # Nothing to chat with: leave, and let run_app print the line with the CLI's exit code.
        self.failure = message
        self.exit(exit_code, return_code=exit_code)  # the process's exit status

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
        if worker.group == JOB_GROUP and failed and worker.error is not None and not self._chat.gone:
            self.chat.post_message(SessionEvent(internal_error(worker.error)))

    # --- start-up: the session, what was typed meanwhile --------------------------------------------

    def on_mount(self) -> None:
        """After the first frame: open the session (`_start_session`); put what was typed or pasted
        meanwhile into the prompt."""
        # After the first frame: building the session imports pydantic and pydantic-ai (hundreds of ms).
        self.call_after_refresh(self._start_session)
        self.call_later(self.typing.release_early_input)  # after the keys read so far

    def _start_session(self) -> None:
        self.opening.start()

    async def on_session_preview(self, message: SessionPreview) -> None:
        """A resumed conversation read from the store, to show while its session loads."""
        await self.opening.preview_shown(message)

    async def on_session_ready(self, message: SessionReady) -> None:
        """The session opened (`SessionOpening.ready`)."""
        await self.opening.ready(message.session)

    async def on_session_failed(self, message: SessionFailed) -> None:
        """A session did not open (`SessionOpening.failed`: at start-up the app leaves)."""
        await self.opening.failed(message)

    async def on_event(self, event: events.Event) -> None:
        """A typed key goes where it was meant (`TypingRoutes`: early input, type-ahead, a dialog's
        arming) before the focused widget sees it; any other event goes on as usual."""
        if self.typing.hold(event):
            return
        if isinstance(event, events.Key) and not event.is_forwarded:
            if event.key != "ctrl+c":
                self._quit_armed = False  # ctrl+c quits when pressed twice in a row
            if event.key != "escape":
                self._esc_armed = False  # esc rewinds when pressed twice in a row
            if await self.typing.route(event, super().on_event):
                return
        await super().on_event(event)


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

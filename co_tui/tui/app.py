"""The co-tui Textual app: `CoTuiApp` assembles its parts; `run_app` runs it for `co-tui`.

The app owns the ChatSession and the chat screen; what it does is split by concern, one part per
module, each a mixin whose `on_*`, `action_*` and `@work` methods Textual finds by walking the
app's MRO (a handler name must be defined in one part only: Textual would call every one it finds):

- `session_opening.SessionOpening` — start-up (settings after the first paint, the resume
  preview, the picker of a bare `--resume`), opening a session, `SessionReady` / `SessionFailed`;
- `turn_jobs.TurnJobs` — running turns and compactions in workers, busy state, interrupts,
  shell approval, the full-GC pause;
- `app_actions.AppActions` — what keys, palette and slash commands do (compact, clear, history,
  help, sessions, export, model);
- `slash_interceptor.SlashInterceptor` — a `/` line runs a command instead of a turn.

The parts hold no state: it is all set here, in `CoTuiApp.__init__`, with `chat` and
`_refresh_title`, which every part uses.

Start-up order matters (the TUI must paint before pydantic and pydantic-ai load): this module and
its parts import no pydantic, pydantic-ai, provider SDK or domain package at module level. The chat
screen paints first; then one thread worker loads the settings, shows a resumed conversation from
the store's raw rows and builds the session (which imports pydantic-ai). A prompt sent before the
session is ready waits in a queue.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Union

from textual.app import App
from textual.worker import Worker

from co_tui.tui.app_actions import AppActions
from co_tui.tui.palette import SlashCommandProvider
from co_tui.tui.screens.chat import ChatScreen
from co_tui.tui.session_opening import SessionFactory, SessionOpening
from co_tui.tui.slash_interceptor import SlashInterceptor
from co_tui.tui.turn_jobs import TurnJobs

if TYPE_CHECKING:
    from co_tui.config import Settings
    from co_tui.session.chat import ChatSession
    from co_tui.tui.session_opening import _Shown

__all__ = ["CoTuiApp", "SessionFactory", "SettingsSource", "run_app"]

SettingsSource = Union["Settings", Callable[[], "Settings"]]
"""`Settings`, or a loader called in the start-up worker after the first paint (raises `SettingsError`)."""


class CoTuiApp(SessionOpening, TurnJobs, AppActions, SlashInterceptor, App[int]):
    """The full-screen chat. `session_factory` builds the session in a worker after the first paint."""

    TITLE = "co-tui"
    # The chat screen is the base screen (`get_default_screen`), which Textual does not load a
    # stylesheet for: it is read with the app's, in the one parse before the first frame.
    CSS_PATH = Path(__file__).parent / "screens" / "chat.tcss"
    COMMANDS = App.COMMANDS | {SlashCommandProvider}
    # The keys of the registry are bound on ChatScreen (so they do not fire behind a dialog).

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
        # A loader is called in the start-up worker: pydantic-settings must not delay the first frame.
        self._load_settings: Callable[[], Settings] | None = settings if callable(settings) else None
        self.settings: Settings | None = None if callable(settings) else settings
        self.workspace = Path(workspace)
        self.session_factory = session_factory
        self.resume_id = resume_id
        self.continue_latest = continue_latest
        self.session: ChatSession | Any | None = None
        self.failure: str | None = None  # one line printed by run_app when the session cannot open
        self._queued: list[str] = []  # prompts sent before the session was ready
        self._opening: str | None = None  # a session chosen to replace the current one, loading
        self._job: Worker[None] | None = None  # the running turn or compaction
        self._job_kind = ""  # "turn" | "compact"
        self._pending_approval: asyncio.Future[bool] | None = None
        self._shown: _Shown | None = None  # the preview on screen until its session is ready

    def get_default_screen(self) -> ChatScreen:
        # The chat is the base screen: the first frame is the chat, not a blank screen switched away from.
        # The meter's trigger mark is set again when the settings are loaded (it shows "starting…" until then).
        return ChatScreen(trigger=self.settings.compact_threshold if self.settings else 0.8)

    @property
    def chat(self) -> ChatScreen:
        """The chat screen (at the bottom of the screen stack)."""
        for screen in self.screen_stack:
            if isinstance(screen, ChatScreen):
                return screen
        raise LookupError("chat screen not mounted")

    def _refresh_title(self) -> None:
        bar = self.chat.title_bar
        session = self.session
        if session is None:
            return
        bar.model_name = session.model_name
        bar.offline = bool(session.is_offline)
        bar.session_title = session.title


def run_app(settings: SettingsSource, workspace: Path, resume_id: str | None = None,
            continue_latest: bool = False) -> int:
    """Run the TUI until the user quits; returns the process exit code.

    When the settings or the session cannot be loaded, the app exits by itself and the one line
    saying why is printed here, after the terminal is restored (exit 2 for settings and usage).
    Otherwise, when the session has turns, one line says how to resume it (`resume_hint`).
    """
    app = CoTuiApp(settings, workspace, resume_id=resume_id, continue_latest=continue_latest)
    app.run()
    if app.failure:
        print(f"co-tui: {app.failure}", file=sys.stderr)
    else:
        from co_tui.session.commands import resume_hint

        hint = resume_hint(app.session)
        if hint:
            print(hint)
    return app.return_code or 0

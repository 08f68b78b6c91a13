"""Opening sessions for the TUI: at start-up (with `--resume`/`--continue`'s preview or bare `--resume`'s
picker) and in place of the open one (`/sessions`, a fork).

`SessionOpening` owns the settings (loaded on first use, in a worker: pydantic-settings must not
delay the first frame), the session factory and the resume choice. It builds a session in a thread
worker and posts what came of it to the app (`SessionPreview`, `SessionReady`, `SessionFailed`,
tui/messages.py); the app's handlers hand those to `preview_shown`, `ready` and `failed`, which
give the controller what it shows.

Start-up order (docs/architecture.md, Start-up): a resumed conversation is first shown from the
store's raw rows, then the settings are loaded and the session built (which imports pydantic-ai),
never on the UI thread.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, Union

from co_tui.tui.gc_pause import release_collections_after_start_up
from co_tui.tui.messages import SessionFailed, SessionPreview, SessionReady

if TYPE_CHECKING:
    from textual.app import App

    from co_tui.config import Settings
    from co_tui.session import SessionCatalog, SessionPort
    from co_tui.tui.approval_asking import ApprovalAsking
    from co_tui.tui.controller import ChatController
    from co_tui.tui.mention_pricing import MentionPricing
    from co_tui.tui.screens.chat import ChatScreen

__all__ = ["PREVIEW_WAIT_S", "SessionFactory", "SessionOpening", "SettingsSource"]

SettingsSource = Union["Settings", Callable[[], "Settings"]]
"""`Settings`, or a loader called in the start-up worker after the first paint (raises `SettingsError`)."""

SessionFactory = Callable[..., "SessionPort"]
"""`(settings, workspace, *, resume_id, continue_latest, ask, store) -> SessionPort`;
the default is `co_tui.session.open_session` (tests pass a fake with the same shape).
`store` is None (the factory opens the data dir's) or the one the start-up worker or the
sessions picker already opened."""

PREVIEW_WAIT_S = 3.0  # the start-up worker waits this long at most for the preview to be on screen


class SessionOpening:
    """How one app's sessions open (see module docstring): for its `controller`, shown on its `chat`;
    asked about through `approvals`; `mentions` priced once one is ready. `resume_id` "" is bare
    `--resume`: pick first."""

    def __init__(
        self,
        app: App[Any],
        controller: ChatController,
        chat: ChatScreen,
        settings: SettingsSource,
        *,
        approvals: ApprovalAsking,
        mentions: MentionPricing,
        factory: SessionFactory | None,
        resume_id: str | None,
        continue_latest: bool,
    ) -> None:
        self.app = app
        self.controller = controller
        self.chat = chat
        self.approvals = approvals
        self.mentions = mentions
        self.workspace = controller.workspace
        self._load_settings: Callable[[], Settings] | None = settings if callable(settings) else None
        self.settings: Settings | None = None if callable(settings) else settings
        self.factory = factory
        self.resume_id = resume_id
        self.continue_latest = continue_latest

    def start(self) -> None:
        """After the first frame: open the start-up session (bare `--resume`: after the picker)."""
        if self.resume_id == "":
            self.app.run_worker(self._pick_then_open(), group="session", exit_on_error=False)
        else:
            self.open(self.resume_id, self.continue_latest, preview=True)

    def switch(self, session_id: str, store: SessionCatalog | None = None) -> None:
        """Open saved session `session_id` in place of the current one (what /sessions does once one
        is picked); until it is ready, prompts wait for it and commands refuse. `store`: the catalog
        it was picked from, which the new session is saved in too (None: the factory opens one)."""
        self.controller.opening(session_id)
        self.open(session_id, False, store)

    def ensure_settings(self) -> Settings:
        """The settings, loading them on first use (from a worker). Raises `SettingsError`."""
        if self.settings is None:
            assert self._load_settings is not None
            self.settings = self._load_settings()
        return self.settings

    def data_dir(self) -> Path:
        """The data dir, without building the settings when they are not loaded yet (falls back to
        them when it is unclear: their error names the bad value). Raises `SettingsError`."""
        if self.settings is None:
            from co_tui.paths import data_dir_without_settings

            data_dir = data_dir_without_settings()
            if data_dir is not None:
                return data_dir
        return self.ensure_settings().resolved_data_dir

    def _factory(self) -> SessionFactory:
        if self.factory is None:
            from co_tui.session import open_session

            self.factory = open_session
        return self.factory

    def open(self, resume_id: str | None, continue_latest: bool, store: Any = None, *, preview: bool = False) -> None:
        """Build the session (new, or resumed by id/prefix or `continue_latest`) in a thread worker and
        post `SessionReady`, or `SessionFailed` with one line. With `preview` (start-up), a resumed
        conversation is first shown from the store's rows, before the settings are built and
        pydantic-ai is imported."""
        work = partial(self._open, resume_id, continue_latest, store, preview=preview)
        self.app.run_worker(work, thread=True, group="session", exit_on_error=False)

    def _open(self, resume_id: str | None, continue_latest: bool, store: Any, *, preview: bool) -> None:
        post = self.app.post_message
        try:
            if preview and (resume_id or continue_latest):
                # Before the settings: the conversation needs only the store (docs/architecture.md).
                from co_tui.session import open_store_at

                store = store or open_store_at(self.data_dir())
                resume_id, continue_latest = self._preview(store, resume_id, continue_latest), False
        except Exception as exc:  # SettingsError, OpenSessionError, StoreError: one line
            post(SessionFailed(str(exc) or type(exc).__name__, getattr(exc, "exit_code", 2)))
            return
        try:
            settings = self.ensure_settings()
        except Exception as exc:  # SettingsError: one line naming the setting, exit 2
            post(SessionFailed(str(exc) or type(exc).__name__, 2))
            return
        try:
            session = self._factory()(
                settings,
                self.workspace,
                resume_id=resume_id,
                continue_latest=continue_latest,
                ask=self.approvals.ask,
                store=store,
            )
        except Exception as exc:  # OpenSessionError and anything else: one line
            from co_tui.session import SessionBusy, exit_code_for

            busy = isinstance(exc, SessionBusy)
            post(SessionFailed(str(exc) or type(exc).__name__, exit_code_for(exc), busy=busy))
            return
        post(SessionReady(session))

    def _preview(self, store: Any, resume_id: str | None, continue_latest: bool) -> str | None:
        """(In the start-up worker.) Resolve the session to resume and post its newest entries,
        read from the store's raw rows; wait until they are on screen. Returns the full id (None: a
        new session). Raises `OpenSessionError`/`StoreError` when there is nothing to resume."""
        from co_tui.session import resolve_session_id
        from co_tui.tui.transcript_view import RESUME_ENTRIES, tail_shows, window_items

        session_id = resolve_session_id(store, self.workspace, resume_id=resume_id, continue_latest=continue_latest)
        if session_id is None:
            return None
        try:
            tail = store.load_tail(session_id, tail_shows(RESUME_ENTRIES))
            items = window_items(tail.rows, tail.start)
        except Exception:  # damaged or unreadable: the full load says so, in one line
            return session_id
        shown = threading.Event()
        self.app.post_message(
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

    async def _pick_then_open(self) -> None:
        app = self.app
        try:
            settings = await asyncio.to_thread(self.ensure_settings)  # imports pydantic: off the UI thread
            from co_tui.session import open_store
            from co_tui.tui.screens.sessions import SessionsScreen

            store = await asyncio.to_thread(open_store, settings)
        except Exception as exc:  # SettingsError, OpenSessionError: one line, exit 2
            app.post_message(SessionFailed(str(exc), getattr(exc, "exit_code", 2)))
            return
        chosen = await app.push_screen_wait(SessionsScreen(store, self.workspace))
        self.open(chosen, False, store, preview=True)

    async def preview_shown(self, message: SessionPreview) -> None:
        """Show a saved conversation while its session loads (`ChatController.preview`); sets
        `message.shown` in every case, so the start-up worker never waits on it for nothing."""
        try:
            if not self.chat.gone:
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

    async def ready(self, session: SessionPort) -> None:
        """The session opened: hand it to the controller (which starts its MCP servers), then price the
        prompt's mentions, show the footer's keys and the prompt's popups, preload prices and mount the entries of a
        resumed conversation above the first screen. Its grants start empty ("always allow" holds for one session, /permissions)."""
        if session.approvals is not None:
            session.approvals.on_granted = self.approvals.granted
        release_collections_after_start_up()
        if self.chat.gone:  # quit while the session was loading
            return
        try:
            await self.controller.session_ready(session)
        except Exception:
            if not self.chat.gone:
                raise
            return  # the app quit while the session was being shown: nothing is left to show it on
        if self.chat.gone:  # the app began quitting while the session was shown
            return
        self.mentions.price(again=True)  # `@path` typed while it loaded
        # Once the ready session is on screen: the footer's keys and the prompt's popups, held
        # back so as not to compete with the worker for the interpreter lock.
        self.app.call_after_refresh(self.chat.finish_start_up)
        self.app.call_after_refresh(self._preload_pricing)
        self.app.call_after_refresh(self._mount_earlier)

    def _mount_earlier(self) -> None:
        """A resumed conversation's entries above the first screen, once the ready session is on
        screen (the preview mounts a screenful: docs/architecture.md, Start-up)."""
        if not self.chat.gone and self.chat.earlier_pending:
            self.controller.host.spawn(self.chat.mount_earlier())

    def _preload_pricing(self) -> None:
        """genai-prices' table, deferred while the session was built, loaded in a thread before a
        first answer needs it."""
        from co_tui.session import preload_pricing

        self.app.run_worker(preload_pricing, thread=True, group="pricing", exit_on_error=False)

    async def failed(self, message: SessionFailed) -> None:
        """A session did not open (`ChatController.session_failed`: at start-up the app leaves)."""
        release_collections_after_start_up()
        await self.controller.session_failed(message.message, message.exit_code, busy=message.busy)

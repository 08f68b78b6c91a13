"""Start-up and opening a session: settings after the first paint, the resume preview, the picker.

`SessionOpening` is one part of `CoTuiApp` (see `co_tui/tui/app.py`). After the first frame one
thread worker loads the settings, shows a resumed conversation from the store's raw rows
(`SessionStore.load_tail`, no pydantic-ai) and builds the session (which imports pydantic-ai);
`SessionReady` / `SessionFailed` bring the outcome back to the UI thread. `/sessions` reuses the
same worker to switch to another saved session.

Like the app module, this one imports no pydantic, pydantic-ai, provider SDK or domain package at
module level: they load inside the worker, after the first paint.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from textual import work

from co_tui.tui.messages import OutputsTruncated, SessionFailed, SessionPreview, SessionReady
from co_tui.tui.screens.chat import RESUME_ENTRIES, ChatScreen

if TYPE_CHECKING:
    from co_tui.config import Settings

SessionFactory = Callable[..., Any]
"""`(settings, workspace, *, resume_id, continue_latest, approver, store) -> ChatSession`;
the default is `co_tui.session.commands.open_session` (tests pass a fake with the same shape)."""


PREVIEW_WAIT_S = 3.0  # the start-up worker waits this long at most for the preview to be on screen


@dataclass(frozen=True)
class _Shown:
    """A conversation shown from the store's rows (`SessionPreview`) before its session was ready:
    its id and how many messages and cuts it had, to tell whether the session is that one."""

    session_id: str
    messages: int
    banners: int


class SessionOpening:
    """The part of `CoTuiApp` that opens sessions: at start-up (new, `--resume [ID]`, `--continue`)
    and from `/sessions`. Posts and handles `SessionPreview`, `SessionReady`, `SessionFailed`.

    A mixin: it holds no state of its own. It reads and sets the app's `settings`,
    `_load_settings`, `session_factory`, `workspace`, `resume_id`, `continue_latest`, `session`,
    `failure`, `_shown` and `_opening` (cleared when the chosen session opens or fails), uses `chat` and `_refresh_title` (`CoTuiApp`), and sends the prompts
    queued meanwhile with `_send_queued` (`TurnJobs`), whose `approve_shell` is the session's
    shell approver. Textual finds its `on_*` handlers by walking the app's MRO.
    """

    def on_mount(self) -> None:
        # After the first frame: building the session imports pydantic and pydantic-ai (hundreds of ms).
        self.call_after_refresh(self._start_session)

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

    def _factory(self) -> SessionFactory:
        if self.session_factory is None:
            from co_tui.session.commands import open_session

            self.session_factory = open_session
        return self.session_factory

    @work(thread=True, exit_on_error=False, group="session")
    def _open_session(self, resume_id: str | None, continue_latest: bool, store: Any = None, *,
                      preview: bool = False) -> None:
        """Build the session (new, or resumed by id/prefix or `continue_latest`) and post
        `SessionReady`, or `SessionFailed` with one line. With `preview` (start-up), a resumed
        conversation is first shown from the store's rows, before pydantic-ai is imported."""
        try:
            settings = self._ensure_settings()
        except Exception as exc:  # noqa: BLE001 - SettingsError: one line naming the setting, exit 2
            self.post_message(SessionFailed(str(exc) or type(exc).__name__, 2))
            return
        try:
            if preview and (resume_id or continue_latest):
                from co_tui.session.commands import open_store

                store = store or open_store(settings)
                resume_id, continue_latest = self._preview(store, resume_id, continue_latest), False
            session = self._factory()(
                settings,
                self.workspace,
                resume_id=resume_id,
                continue_latest=continue_latest,
                approver=self.approve_shell,
                store=store,
            )
        except Exception as exc:  # noqa: BLE001 - OpenSessionError and anything else: one line
            from co_tui.session.store_errors import StoreError

            code = getattr(exc, "exit_code", 2 if isinstance(exc, StoreError) else 1)  # as open_session
            self.post_message(SessionFailed(str(exc) or type(exc).__name__, code))
            return
        self.post_message(SessionReady(session))

    def _preview(self, store: Any, resume_id: str | None, continue_latest: bool) -> str | None:
        """(In the start-up worker.) Resolve the session to resume and post its newest entries,
        read from the store's raw rows; wait until they are on screen. Returns the full id (None: a
        new session). Raises `OpenSessionError`/`StoreError` when there is nothing to resume."""
        from co_tui.session.commands import resolve_session_id
        from co_tui.tui.transcript_view import tail_shows, transcript_items, window_items

        session_id = resolve_session_id(store, self.workspace, resume_id=resume_id, continue_latest=continue_latest)
        if session_id is None:
            return None
        try:
            tail = store.load_tail(session_id, tail_shows(RESUME_ENTRIES))
            items = window_items(tail.rows, tail.start)
            # The whole conversation's items from its outline (no tool results): for the counts.
            every = transcript_items(tail.outline)
        except Exception:  # noqa: BLE001 - damaged or unreadable: the full load says so, in one line
            return session_id
        shown = threading.Event()
        self.post_message(SessionPreview(
            session_id=session_id, title=tail.meta.title, items=items,
            banners=list(zip(tail.ledger_positions, tail.ledger)), entries=len(every) + len(tail.ledger),
            turns=sum(1 for item in every if item.kind == "user"), messages=tail.messages, shown=shown,
        ))
        # Mounting the preview and importing pydantic-ai would share one interpreter lock: the
        # conversation first, then the model.
        shown.wait(PREVIEW_WAIT_S)
        return session_id

    @work(exit_on_error=False, group="session")
    async def _pick_then_open(self) -> None:
        try:
            settings = await asyncio.to_thread(self._ensure_settings)  # imports pydantic: off the UI thread
            from co_tui.session.commands import open_store
            from co_tui.tui.screens.sessions import SessionsScreen

            store = open_store(settings)
        except Exception as exc:  # noqa: BLE001 - SettingsError, OpenSessionError: one line, exit 2
            self.post_message(SessionFailed(str(exc), getattr(exc, "exit_code", 2)))
            return
        chosen = await self.push_screen_wait(SessionsScreen(store, self.workspace))
        self._open_session(chosen, False, store, preview=True)

    def _chat_gone(self) -> bool:
        """The chat screen is gone: the app is shutting down (a worker's message came too late)."""
        return not any(isinstance(screen, ChatScreen) for screen in self.screen_stack)

    async def on_session_preview(self, message: SessionPreview) -> None:
        try:
            if self.session is None and not self._chat_gone():  # a ready session shows itself
                await self._show_conversation(message.session_id, message.title, message.items, message.banners,
                                              turns=message.turns, messages=message.messages,
                                              entries=message.entries)
                self._shown = _Shown(message.session_id, message.messages, len(message.banners))
        finally:
            message.shown.set()

    async def on_session_ready(self, message: SessionReady) -> None:
        if self._chat_gone():  # quit while the session was loading
            return
        previous, self.session = self.session, message.session
        self._opening = None
        shown, self._shown = self._shown, None
        chat = self.chat
        self._refresh_title()
        chat.meter.trigger = self.settings.compact_threshold
        chat.meter.reading = self.session.meter_reading()
        session = self.session
        if shown is not None and previous is None and (shown.session_id, shown.messages, shown.banners) == (
                session.id, len(session.transcript), len(session.ledger)):
            # The same conversation is on screen: no remount, only the badges (they need the context).
            self._show_truncated()
        else:
            if previous is not None or session.transcript or shown is not None:
                await chat.clear_log()
            if session.transcript or session.ledger:
                await self._show_saved()
            else:
                await chat.add_notice(
                    f"New conversation in {self.workspace.name or self.workspace} · "
                    "/ for commands · F1 for help · esc interrupts a reply"
                )
        if self._queued:
            chat.clear_hint()  # "the model is still loading — your prompt will be sent…": it is sent now
        self._send_queued()

    async def _show_saved(self) -> None:
        from co_tui.tui.transcript_view import transcript_items

        session = self.session
        items = transcript_items(session.transcript)
        turns = sum(1 for item in items if item.kind == "user")
        await self._show_conversation(session.id, session.title, items,
                                      list(zip(session.ledger_positions, session.ledger)),
                                      turns=turns, messages=len(session.transcript))
        self._show_truncated()

    async def _show_conversation(self, session_id: str, title: str, items: list[Any], banners: list[Any], *,
                                 turns: int, messages: int, entries: int | None = None) -> None:
        """Mount a saved conversation's newest entries (banners at their cuts) and the "Resumed"
        line. `entries`: the whole conversation's, when `items` are only its newest part."""
        chat = self.chat
        chat.title_bar.session_title = title
        # One mount for the newest entries, banners at their cuts (not one mount per ledger event).
        await chat.show_items(items, banners=banners, entries=entries)
        await chat.add_notice(f"Resumed “{title or session_id[:8]}” · {turns} turns · {messages} messages")

    def _show_truncated(self) -> None:
        """The `truncated` badges of the tool calls whose output the model now sees shortened."""
        from co_tui.tui.transcript_view import truncated_tool_call_ids

        self.chat.on_outputs_truncated(OutputsTruncated(truncated_tool_call_ids(self.session.context)))

    async def on_session_failed(self, message: SessionFailed) -> None:
        if self.session is None:
            # Nothing to chat with: leave, and let run_app print the line with the CLI's exit code.
            self.failure = message.message
            self.exit(message.exit_code, return_code=message.exit_code)  # the process's exit status
            return
        from co_tui.session.events import ErrorEvent

        # A session chosen in /sessions did not open: this one stays, and what was typed meanwhile goes to it.
        self._opening = None
        await self.chat.show_event(ErrorEvent(message=message.message, kind="config"))
        self._send_queued()

"""What the keys, the command palette and the slash commands do: the app's `action_*` methods.

`AppActions` is one part of `CoTuiApp` (see `co_tui/tui/app.py`). The keys are bound on
`ChatScreen` and name these actions; the palette and `SlashInterceptor` run them too, so each
command has one implementation. An action that needs the session says so in a hint while it loads;
one that needs the model idle says so while a turn runs.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual import work

from co_tui.tui.messages import Compact, Interrupt


class AppActions:
    """The part of `CoTuiApp` holding the actions (interrupt, compact, clear, history, help,
    sessions, export, model) and the `Compact` intent's handler.

    A mixin: it holds no state of its own. It reads the app's `session`, `workspace` and `_job`, sets `_opening`,
    uses `chat` and `_refresh_title` (`CoTuiApp`), starts a compaction with `_start_compact`
    (`TurnJobs`) and switches sessions with `_open_session` (`SessionOpening`). Textual finds its
    `action_*` and `on_*` methods by walking the app's MRO.
    """

    def action_interrupt(self) -> None:
        """Esc: stop the running turn (the partial answer stays) or compaction."""
        self.post_message(Interrupt())

    def action_compact(self, focus: str | None = None) -> None:
        """ctrl+k, /compact [focus]: summarise the conversation into a short recap."""
        self.post_message(Compact(focus))

    def on_compact(self, message: Compact) -> None:
        if not self._ready_and_idle("compact"):
            return
        self._start_compact(message.focus)

    def action_clear(self) -> None:
        """ctrl+l, /clear: after a confirm, start a fresh conversation (the old one stays saved)."""
        if not self._ready_and_idle("clear"):
            return
        from co_tui.tui.screens.confirm_clear import ConfirmClear, clear_summary

        session = self.session
        reading = session.meter_reading()
        turns = _count_user_turns(session.context)
        saved = session.store is not None and bool(session.transcript)
        body = clear_summary(len(session.context), reading.context_tokens, turns, saved, session.title)
        self.push_screen(ConfirmClear(body), self._clear_confirmed)

    async def _clear_confirmed(self, confirmed: bool | None) -> None:
        if not confirmed or self.session is None or self._job is not None:
            return
        chat = self.chat
        trim = self.session.clear()
        await chat.clear_log()
        await chat.show_event(trim)
        chat.meter.reading = self.session.meter_reading()
        self._refresh_title()

    def action_show_history(self) -> None:
        """f2, /history: the history inspector (what the model sees vs the whole transcript)."""
        if not self._session_ready("history"):
            return
        from co_tui.tui.screens.history import HistoryScreen

        self.push_screen(HistoryScreen(self.session))

    def action_show_help(self) -> None:
        """f1, /help: keys and commands."""
        from co_tui.tui.screens.help import HelpScreen

        self.push_screen(HelpScreen())

    def action_show_sessions(self) -> None:
        """/sessions: pick a saved session to resume."""
        if not self._ready_and_idle("sessions"):
            return
        store = getattr(self.session, "store", None)
        if store is None:
            self.chat.show_hint("sessions are not being saved (no store)")
            return
        from co_tui.tui.screens.sessions import SessionsScreen

        def chosen(session_id: str | None) -> None:
            if session_id and session_id != self.session.id:
                self._opening = session_id  # until it is ready, prompts wait and commands refuse
                self._open_session(session_id, False, store)

        self.push_screen(SessionsScreen(store, self.workspace, current_id=self.session.id), chosen)

    async def action_export(self, args: str = "") -> None:
        """/export [md|json] [path]: write this session to a new file (default: the data dir's
        exports folder; `export.write_export` never overwrites and makes it mode 0600).

        A relative path is taken from the workspace; an existing directory gets the default file
        name. Says where the file went, or one line on what was wrong.
        """
        chat = self.chat
        try:
            fmt, target = _parse_export_args(args)
        except ValueError as exc:
            chat.show_hint(str(exc))
            return
        if not self._session_ready("export"):
            return
        session = self.session
        if session.store is None or not session.transcript:
            chat.show_hint("nothing saved to export yet", info=True)
            return
        try:
            from co_tui.session.export import EXPORTS_DIR, default_export_path, render_export, write_export

            loaded = session.store.load(session.id)
            text = render_export(loaded, fmt)
            exports = self.settings.resolved_data_dir / EXPORTS_DIR
            path = write_export(text, default_export_path(loaded.meta, fmt, exports),
                                None if target is None else self.workspace / target.expanduser())
        except Exception as exc:  # noqa: BLE001 - one line, the app keeps running
            from co_tui.session.events import ErrorEvent

            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
            where = f" ({exc.filename})" if isinstance(exc, OSError) and exc.filename else ""
            await chat.show_event(ErrorEvent(message=f"export failed: {reason}{where}", kind="storage"))
            return
        await chat.add_notice(f"Exported {fmt} to {path}")

    async def action_model(self, name: str = "") -> None:
        """/model [name]: show the model, or switch to `name` for the following turns."""
        if not self._session_ready("model"):
            return
        if not name:
            offline = " (offline, built in)" if self.session.is_offline else ""
            await self.chat.add_notice(f"Model: {self.session.model_name}{offline} · /model NAME switches")
            return
        if self._job is not None:
            self.chat.show_hint("wait for the running turn to finish (or press esc) before switching models")
            return
        self._switch_model(name)

    @work(thread=True, exit_on_error=False, group="session")
    def _switch_model(self, name: str) -> None:
        try:
            self.session.set_model(name)
        except Exception as exc:  # noqa: BLE001 - ModelConfigError: one line, the old model stays
            self.call_from_thread(self.chat.show_hint, f"{exc}")
            return
        self.call_from_thread(self._model_switched)

    async def _model_switched(self) -> None:
        self._refresh_title()
        self.chat.meter.reading = self.session.meter_reading()
        await self.chat.add_notice(f"Model switched to {self.session.model_name}")

    def _session_ready(self, what: str) -> bool:
        """True when the session is open; else a hint that `/what` waits for the model to load."""
        if self.session is None:
            self.chat.show_hint(f"/{what}: the model is still loading", info=True)
            return False
        if self._opening is not None:
            self.chat.show_hint(f"/{what}: a session is opening", info=True)
            return False
        return True

    def _ready_and_idle(self, what: str) -> bool:
        """True when the session is open and no job runs; else a hint saying which is missing."""
        if not self._session_ready(what):
            return False
        if self._job is not None:
            self.chat.show_hint(f"/{what}: a turn is running — press esc to interrupt it first")
            return False
        return True


EXPORT_FORMATS = ("md", "json")


def _parse_export_args(args: str) -> tuple[str, Path | None]:
    """`[md|json] [path]` → (format, path or None). Without a format word the path's suffix
    decides (`.json` → json, else md). A bare word that is neither a format nor path-like
    (no `/`, `.` or `~`) is taken as a mistyped format: ValueError with one line."""
    words = args.split(maxsplit=1)
    if not words:
        return "md", None
    if words[0] in EXPORT_FORMATS:
        return words[0], Path(words[1].strip()) if len(words) > 1 else None
    raw = args.strip()
    if not any(c in raw for c in "/.~"):
        raise ValueError(f"unknown export format '{words[0]}' — use /export [md|json] [path]")
    path = Path(raw)
    return ("json" if path.suffix.lower() == ".json" else "md"), path


def _count_user_turns(messages: list[Any]) -> int:
    """The user turns in `messages`, for the `/clear` confirmation."""
    try:
        from co_tui.governance import split_turns

        return len(split_turns(messages))
    except ImportError:  # governance not merged yet: count user prompts directly
        return sum(
            1 for m in messages for p in getattr(m, "parts", ()) if type(p).__name__ == "UserPromptPart"
        )

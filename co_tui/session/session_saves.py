"""`SessionSaves`: how a `ChatSession` keeps its conversation — in its store when it has one
(`SessionWriter`: the claim, the save, the rescue copy), and its rewind marks in memory either way.

It is the session's `TurnSaves` (its `TurnRunner`'s) and `EditSaves` (its `EditApplier`'s):
persistence.py. A failed save is said, never raised: "kept in memory, not saved" where the process
keeps it (not for a one-shot session: print mode exits after its turn, its rescue copy keeps it).
"""

from __future__ import annotations

import copy
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from co_tui.session.events import ErrorEvent, Notice
from co_tui.session.writer import SaveInfo, SessionWriter
from co_tui.text import one_line

if TYPE_CHECKING:
    from pydantic_ai.messages import ModelMessage

    from co_tui.governance.meter import TokenMeter
    from co_tui.session.history import History, HistorySnapshot
    from co_tui.store.session_store import SessionStore

__all__ = ["KEPT_IN_MEMORY", "TITLE_CHARS", "Conversation", "SessionSaves", "make_title"]

TITLE_CHARS = 60
# Said after a failed save: true in the TUI, which keeps the change; not for a one-shot session
# (print mode exits after its turn: its rescue copy keeps it).
KEPT_IN_MEMORY = " (kept in memory, not saved)"


def make_title(prompt: str) -> str:
    """A session title from the first user prompt: one line, at most TITLE_CHARS characters."""
    return one_line(prompt, TITLE_CHARS)


class Conversation(Protocol):
    """What a save writes beside the history, read from the session at each save (`ChatSession`)."""

    id: str
    title: str
    workspace: Path

    @property
    def model_name(self) -> str:
        """The model the session talks to."""
        ...

    @property
    def meter(self) -> TokenMeter:
        """The meter whose figure is saved."""
        ...


class SessionSaves:
    """Keeps `conversation`'s `history` in `store` (None: in memory only). `created`: the session
    is in the store already (a resumed one); a new one is created at its first save, so opening
    and quitting leaves no empty session. `one_shot`: the process exits after one turn."""

    def __init__(
        self,
        store: SessionStore | None,
        conversation: Conversation,
        history: History,
        *,
        created: bool,
        one_shot: bool = False,
    ) -> None:
        self.writer = SessionWriter(store, created=created)
        self.conversation, self.history, self.one_shot = conversation, history, one_shot

    @property
    def store(self) -> SessionStore | None:
        """The session database (None: not saved)."""
        return self.writer.store

    @property
    def created(self) -> bool:
        """Whether the session is in its store (a resumed one, or a new one saved once)."""
        return self.store is not None and self.writer.created

    def info(self, context: Sequence[ModelMessage] | None = None) -> SaveInfo:
        """The session's figures a save writes, `context`'s meter figure (None: the history's)."""
        c = self.conversation
        return SaveInfo(
            session_id=c.id,
            title=c.title,
            model_name=c.model_name,
            workspace=c.workspace,
            tokens=c.meter.reading(self.history.context if context is None else context).tokens,
            cost_usd=self.history.cost(),
        )

    # --- EditSaves -------------------------------------------------------------------------------

    def write(self, snapshot: HistorySnapshot, context: Sequence[ModelMessage] | None = None) -> str | None:
        """Save `snapshot` (and `context` instead of its own); the store's line when it failed. Blocking."""
        return self.writer.save(snapshot, self.info(context), context=context)

    def not_saved(self, error: str) -> str:
        """A failed save's line: the store's words, and, where the process keeps it, that it is kept."""
        return f"{error}{'' if self.one_shot else KEPT_IN_MEMORY}"

    # --- TurnSaves -------------------------------------------------------------------------------

    def mark_prompt(self, history: History, meter: TokenMeter) -> None:
        """Keep what the model is about to be sent before the prompt going out: what a rewind to it
        restores (in memory; saved with the turn)."""
        history.mark_turn(meter.reading(history.context).tokens, time.time(), copy.copy(meter))

    def save_step(self, prompt: str, context: list[ModelMessage]) -> None:
        """A step's checkpoint (see `TurnSaves`); a failure is reported by the turn's save."""
        self.save_turn(prompt, context)

    def save_turn(self, prompt: str | None, context: list[ModelMessage] | None = None) -> ErrorEvent | Notice | None:
        """Save what is new since the last save (`context` instead of the history's: a step's
        checkpoint); the first prompt names a new session. A storage failure is reported; so is a
        repair the store made on its own to save it (a damaged search index rebuilt)."""
        if prompt and not self.conversation.title:
            self.conversation.title = make_title(prompt)
        error = self.write(self.history.snapshot(), context)
        if error is not None:
            return ErrorEvent(message=self.not_saved(error), kind="storage")
        store = self.store
        if context is not None or store is None:  # a step's checkpoint: the turn's save says it
            return None
        notices = store.take_notices()
        return Notice(message="; ".join(notices)) if notices else None

    # --- what the store lacks --------------------------------------------------------------------

    def unsaved(self) -> bool:
        """Whether the store lacks part of this conversation: its last save failed. Asks the store."""
        return self.writer.unsaved(self.history.snapshot(), self.conversation.id)

    def write_rescue_copy(self, snapshot: HistorySnapshot | None = None) -> Path | None:
        """Write the whole conversation (`snapshot`, None: as it is now) as a JSON export beside the
        database; the file, or None when it could not be written (`SessionWriter.write_rescue_copy`)."""
        return self.writer.write_rescue_copy(snapshot or self.history.snapshot(), self.info())

    def export(self, fmt: str, where: Path | None = None) -> Path:
        """The saved conversation as `fmt` in a new private file (`export.export_saved`). Raises
        `ValueError` when nothing is saved, `StoreError`, `OSError`. Blocking."""
        if self.store is None or not self.created:
            raise ValueError("nothing saved to export yet")
        from co_tui.session.export import export_saved

        return export_saved(self.store, self.conversation.id, fmt, where)

    def start_new(self) -> None:
        """`/clear`: let the old session go (its claim released); the next save creates a new one."""
        self.writer.release()
        self.writer = SessionWriter(self.writer.store, created=False)

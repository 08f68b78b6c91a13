"""What a turn and an edit ask of where a conversation is kept: two small protocols, and `NoStore`,
the keeping of a conversation that lives in memory only (a subagent's turns).

- `TurnSaves` (the `TurnRunner`'s): keep a rewind mark before a prompt goes out, save a step's
  checkpoint while the run goes on, save the turn at its end;
- `EditSaves` (the `EditApplier`'s, applying.py): save the history after an applied edit, and word
  a failed save.

`ChatSession` keeps its conversation with a `SessionSaves` (session_saves.py: the store, or memory
when it has none, rewinds included).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from pydantic_ai.messages import ModelMessage

    from co_tui.governance.meter import TokenMeter
    from co_tui.session.events import ErrorEvent, Notice
    from co_tui.session.history import History, HistorySnapshot

__all__ = ["EditSaves", "NoStore", "TurnSaves"]


class TurnSaves(Protocol):
    """How a `TurnRunner` keeps its turns. The saves are blocking (the runner calls them in a thread)."""

    def mark_prompt(self, history: History, meter: TokenMeter) -> None:
        """A user prompt is about to go out at `history`'s end: keep what a rewind to it restores."""
        ...

    def save_step(self, prompt: str, context: list[ModelMessage]) -> None:
        """Save the steps the running turn completed, with `context` (the run so far, repaired) in
        place of the history's, so a kill loses at most the step in flight. A failure is said by
        the turn's own save."""
        ...

    def save_turn(self, prompt: str | None) -> ErrorEvent | Notice | None:
        """Save the turn (`prompt`: as the user typed it: a new session's title); the storage
        error to show when it failed (the session lives on), or a notice of a repair the store
        made on its own to save it (a damaged search index rebuilt)."""
        ...


class EditSaves(Protocol):
    """How an `EditApplier` keeps an applied edit."""

    def write(self, snapshot: HistorySnapshot) -> str | None:
        """Save `snapshot`; the store's one line when it failed. Blocking (called in a thread)."""
        ...

    def not_saved(self, error: str) -> str:
        """A failed save's line, as the operation that made the edit says it."""
        ...


class NoStore:
    """A conversation kept in memory only, with no rewinds (no marks kept): a subagent's. Satisfies
    `TurnSaves` and `EditSaves`; nothing it does can fail."""

    def mark_prompt(self, history: History, meter: TokenMeter) -> None:
        """No rewinds: nothing to keep."""

    def save_step(self, prompt: str, context: list[ModelMessage]) -> None:
        """Nothing is saved."""

    def save_turn(self, prompt: str | None) -> ErrorEvent | Notice | None:
        """Nothing is saved, so nothing fails."""
        return None

    def write(self, snapshot: HistorySnapshot) -> str | None:
        """Nothing is saved, so nothing fails."""
        return None

    def not_saved(self, error: str) -> str:
        """Never called (nothing fails); the error as it is."""
        return error

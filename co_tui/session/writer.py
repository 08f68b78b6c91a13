"""`SessionWriter`: where a session's history goes — its claim on the session, the save, the
rescue copy.

A session is created in the store at its first save (opening and quitting leaves no empty
session). Each save writes what the store does not hold yet (`SessionStore.save_history`: the
store knows how much it holds, nothing here counts it). A failed save is returned as one line,
never raised: the caller says it where the user looks, and `unsaved` stays true until a save
succeeds, so a front end about to exit writes a rescue copy. Blocking: call it in a thread.
"""

from __future__ import annotations

import time
import weakref
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from co_tui.store.errors import StoreError

if TYPE_CHECKING:
    from pydantic_ai.messages import ModelMessage

    from co_tui.session.history import HistorySnapshot
    from co_tui.store.session_store import SessionStore

__all__ = ["SaveInfo", "SessionWriter"]


@dataclass(frozen=True)
class SaveInfo:
    """The session's figures a save writes beside its history."""

    session_id: str
    title: str
    model_name: str
    workspace: Path
    tokens: int
    cost_usd: float | None


class SessionWriter:
    """Saves one session to `store` (None: nothing is ever saved). See module docstring."""

    def __init__(self, store: SessionStore | None, *, created: bool) -> None:
        self.store = store
        # Whether the session exists in the store (a resumed one does; a new one after its first save).
        self.created = created
        # This process's claim on the session in the store (session_lock.py): taken before a resume
        # loads, or at the first save of a new session; released by `release`.
        self._claim: Any = None

    def save(
        self, history: HistorySnapshot, info: SaveInfo, *, context: Sequence[ModelMessage] | None = None
    ) -> str | None:
        """Write what the store lacks of `history` (and `context` instead of its own, when given).
        Returns None, or the store's one line when the save failed (the history is unchanged)."""
        if self.store is None or (not self.created and not history.transcript_len):
            return None
        try:
            if not self.created:
                self.claim(info.session_id)
                self.store.create_session(
                    model=info.model_name, workspace=info.workspace, title=info.title, session_id=info.session_id
                )
                self.created = True
            self.store.save_history(
                info.session_id,
                history,
                context=context,
                title=info.title or None,
                model=info.model_name,
                tokens=info.tokens,
                cost_usd=info.cost_usd,
            )
        except StoreError as exc:
            return str(exc)
        return None

    def unsaved(self, history: HistorySnapshot, session_id: str) -> bool:
        """Whether the store lacks part of `history` (a save failed): asked of the store itself."""
        if self.store is None:
            return False
        if not self.created:
            return history.transcript_len > 0
        try:
            transcript_len, ledger_len, pins = self.store.saved_figures(session_id)
            branch = self.store.branch_in_use(session_id)
        except StoreError:  # it cannot even be read: nothing says it holds the conversation
            return True
        saved = (transcript_len, ledger_len, pins, branch)
        return saved != (history.transcript_len, len(history.entries), history.pins, history.branch)

    def write_rescue_copy(self, history: HistorySnapshot, info: SaveInfo) -> Path | None:
        """Write the whole conversation as a JSON export (`--format json`, mode 600) beside the
        database, complete or not at all. Returns the file, or None when it could not be written
        either (or there is no store, or nothing to keep)."""
        if self.store is None or not history.transcript_len:
            return None
        # Only after a failed save: the export's writer and records stay out of a session's opening.
        from co_tui.session.export import export_json, write_private
        from co_tui.session.saved_session import LoadedSession, SessionMeta

        now = datetime.now(UTC)
        meta = SessionMeta(
            id=info.session_id,
            title=info.title,
            created=now,
            updated=now,
            model=info.model_name,
            workspace=info.workspace,
            messages=history.transcript_len,
        )
        entries = history.entries
        loaded = LoadedSession(
            meta,
            history.transcript[: history.transcript_len],
            list(history.context),
            [e.event for e in entries],
            [e.position for e in entries],
        )
        path = self.store.path.parent / f"rescued-{info.session_id[:8]}-{time.strftime('%Y%m%d-%H%M%S')}.json"
        try:
            # a new file, complete or absent (never empty, even on a full disk); a symlink planted
            # at the name is never followed
            return write_private(path, export_json(loaded))
        except (OSError, ValueError):  # ValueError: text that cannot be serialised (never expected)
            return None

    # --- the claim -------------------------------------------------------------------------------

    def claim(self, session_id: str) -> None:
        """Claim `session_id` in the store for this process (once)."""
        if self._claim is None and self.store is not None:
            from co_tui.session.session_lock import claim_session  # a new session's first save

            self.hold(claim_session(self.store.path.parent, session_id))

    def hold(self, claim: Any) -> None:
        """Keep `claim` (taken before a resume loaded the session) until `release`."""
        self.release()
        self._claim = claim
        weakref.finalize(self, claim.release)  # a session dropped without `close` lets go too

    def release(self) -> None:
        """Let other processes open the session. Idempotent."""
        claim, self._claim = self._claim, None
        if claim is not None:
            claim.release()

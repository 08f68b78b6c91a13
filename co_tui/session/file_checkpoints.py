"""Where a session's file checkpoints go: its store (table `file_checkpoints`), under the
`checkpoint_max_bytes` cap; a session without a store keeps them in memory under the same cap.

Checkpoints hold each edited file's previous content verbatim (a restore must be byte-exact), in
the private sessions.db; the diff the model and the transcript see is redacted like any message.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from co_tui.agent.checkpoints import FileCheckpoint, MemoryCheckpoints, cap_refusal
from co_tui.agent.file_edits import FileEdits

if TYPE_CHECKING:
    from co_tui.store.session_store import SessionStore


class StoreCheckpoints:
    """A `CheckpointSink` writing to the store, for the session `session_id()` names."""

    def __init__(
        self,
        store: SessionStore,
        session_id: Callable[[], str],
        at_message: Callable[[], int],
        max_bytes: int,
        branch: Callable[[], int] = lambda: 0,
    ) -> None:
        self.store = store
        self.session_id = session_id
        self.at_message = at_message
        self.max_bytes = max_bytes
        self.branch = branch
        self._used: dict[str, int] = {}  # per session id: bytes kept, read from the store once

    def _used_by(self, sid: str) -> int:
        if sid not in self._used:
            self._used[sid] = self.store.file_checkpoint_bytes(sid)
        return self._used[sid]

    def room_for(self, checkpoint: FileCheckpoint) -> str | None:
        """See `CheckpointSink.room_for`."""
        return cap_refusal(self._used_by(self.session_id()), checkpoint, self.max_bytes)

    def save(self, checkpoint: FileCheckpoint) -> None:
        """Write the checkpoint's row (StoreError when the store fails: the edit is not made)."""
        sid = self.session_id()
        used = self._used_by(sid)
        self.store.add_file_checkpoint(sid, checkpoint, at_message=self.at_message(), branch=self.branch())
        self._used[sid] = used + checkpoint.size


def session_file_edits(
    store: SessionStore | None,
    session_id: Callable[[], str],
    at_message: Callable[[], int],
    max_bytes: int,
    branch: Callable[[], int] = lambda: 0,
) -> FileEdits:
    """A session's `FileEdits`: what the model has seen, and its checkpoints in `store` (or in memory),
    each tied to the transcript length and the branch in use when it was made."""
    if store is None:
        return FileEdits(sink=MemoryCheckpoints(max_bytes))
    return FileEdits(sink=StoreCheckpoints(store, session_id, at_message, max_bytes, branch))

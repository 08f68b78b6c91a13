"""Checkpoints of the files the agent edits: each edit's previous content, kept so that a rewind can
put the files back (issue 30: "file edits that rewind with the conversation").

Pure Python. A `FileCheckpoint` is one edit: the file (relative to the workspace), its content
before (None: the edit created it, so restoring deletes it) and a hash of what the edit wrote.
`restore_plan` turns the checkpoints taken after a point of the conversation into what to write
back, and names the files changed since by something else (a restore would lose that change, so it
is the user's call). The session keeps them in its data (`co_tui/store/checkpoints.py`, table
`file_checkpoints`), capped per session (`checkpoint_max_bytes`); an edit beyond the cap is refused
before anything is written.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Protocol


def sha256(data: bytes) -> str:
    """The hex SHA-256 of `data`."""
    return hashlib.sha256(data).hexdigest()


@dataclass(frozen=True)
class FileCheckpoint:
    """One edit of one file. `tool_call_id` ties it to the tool call in the transcript (where a
    rewind to an earlier prompt finds the edits made after it); `seq` orders a session's checkpoints
    (set by the store)."""

    path: str
    before: bytes | None
    after_sha256: str
    tool: str = ""
    tool_call_id: str = ""
    created: float = field(default_factory=time.time)
    seq: int = 0

    @property
    def size(self) -> int:
        """Bytes this checkpoint keeps (the previous content)."""
        return len(self.before) if self.before is not None else 0


class CheckpointSink(Protocol):
    """Where a session's checkpoints go. `room_for` says why one would be refused (None: it fits);
    `save` keeps it (raising when it cannot: the edit is then not made)."""

    def room_for(self, checkpoint: FileCheckpoint) -> str | None:
        """None when `checkpoint` fits under the cap, else the one-line reason it does not."""
        ...

    def save(self, checkpoint: FileCheckpoint) -> None:
        """Keep `checkpoint`; raises when it cannot."""
        ...


DEFAULT_MAX_BYTES = 20_000_000


def cap_refusal(used: int, checkpoint: FileCheckpoint, cap: int) -> str | None:
    """The refusal when keeping `checkpoint` would take a session's checkpoints (`used` bytes) over `cap`."""
    if used + checkpoint.size <= cap:
        return None
    return (
        f"keeping {checkpoint.path}'s previous content ({checkpoint.size:,} bytes) would take this session's "
        f"checkpoints to {used + checkpoint.size:,} bytes, over checkpoint_max_bytes ({cap:,}); "
        "start a new session (/clear) or raise the setting"
    )


@dataclass
class MemoryCheckpoints:
    """Checkpoints kept in memory (a session without a store), under the same cap."""

    max_bytes: int = DEFAULT_MAX_BYTES
    kept: list[FileCheckpoint] = field(default_factory=list)

    def room_for(self, checkpoint: FileCheckpoint) -> str | None:
        """See `CheckpointSink.room_for`."""
        return cap_refusal(sum(c.size for c in self.kept), checkpoint, self.max_bytes)

    def save(self, checkpoint: FileCheckpoint) -> None:
        """See `CheckpointSink.save`."""
        self.kept.append(checkpoint)


@dataclass(frozen=True)
class RestorePlan:
    """What restoring files to before a set of edits does: `write` (path → content), `delete`
    (files the edits created) and `conflicts` (files whose content is no longer what the newest
    edit wrote: something else changed them since, and restoring would lose that)."""

    write: dict[str, bytes]
    delete: tuple[str, ...]
    conflicts: tuple[str, ...]


def restore_plan(checkpoints: Iterable[FileCheckpoint], current: Callable[[str], bytes | None]) -> RestorePlan:
    """How to put every file touched by `checkpoints` (the edits after a point, any order) back to
    its content before the first of them. `current(path)` reads the file now (None: missing)."""
    ordered = sorted(checkpoints, key=lambda c: c.seq)
    first: dict[str, FileCheckpoint] = {}
    last: dict[str, FileCheckpoint] = {}
    for checkpoint in ordered:
        first.setdefault(checkpoint.path, checkpoint)
        last[checkpoint.path] = checkpoint
    write: dict[str, bytes] = {}
    delete: list[str] = []
    conflicts: list[str] = []
    for path, oldest in first.items():
        now = current(path)
        if now is None or sha256(now) != last[path].after_sha256:
            conflicts.append(path)
        if oldest.before is None:
            delete.append(path)
        else:
            write[path] = oldest.before
    return RestorePlan(write, tuple(delete), tuple(conflicts))

"""Putting files back with a rewind (docs/context-governance.md, "Rewind and branches"): the edits
the agent made with `write_file` / `edit_file` after a prompt of the branch in use, from their
checkpoints (`agent/checkpoints.py`, table `file_checkpoints`).

An edit belongs to the branch in use when that branch made it, or when an ancestor made it within
the part of its transcript the branch shares (at most its fork point). `files_back` says what a
rewind to a prompt could put back; `put_files_back` does it, leaving a file that changed on disk
since the newest edit (by the user, `run_shell`, an MCP tool, another branch) as it is unless told
to overwrite it. Changes made by `run_shell` or MCP tools have no checkpoints: they cannot be put back.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from co_tui.agent.checkpoints import FileCheckpoint, restore_plan

if TYPE_CHECKING:
    from co_tui.session.history import BranchInfo

__all__ = ["FilesBack", "edits_after", "files_back", "put_files_back"]

CheckpointRow = tuple[int, int, FileCheckpoint]
"""(branch, transcript length when the edit was made, checkpoint)."""


@dataclass(frozen=True)
class FilesBack:
    """What a rewind to a prompt could put back: the `paths` its later edits touched (in order),
    how many `edits` those were, and the `conflicts`, files changed on disk since the newest edit."""

    paths: tuple[str, ...] = ()
    edits: int = 0
    conflicts: tuple[str, ...] = ()

    def describe(self) -> str:
        """One line for the rewind picker."""
        from co_tui.text import plural

        if not self.edits:
            return "no file edits by the agent after it"
        names = ", ".join(self.paths[:4]) + (" …" if len(self.paths) > 4 else "")
        line = f"{plural(self.edits, 'file edit')} after it can be put back ({names})"
        if self.conflicts:
            line += f"; {plural(len(self.conflicts), 'file')} changed since and would be left as is"
        return line


def edits_after(
    rows: Sequence[CheckpointRow], tree: Sequence[BranchInfo], branch: int, position: int
) -> list[FileCheckpoint]:
    """The checkpoints of the edits made after transcript index `position` of branch `branch`."""
    by_id = {info.id: info for info in tree}
    limits: dict[int, float] = {branch: float("inf")}  # branch -> the transcript length it shares
    child = by_id.get(branch)
    while child is not None and child.parent is not None:
        limits[child.parent] = min(limits.get(child.parent, float("inf")), child.fork_at)
        child = by_id.get(child.parent)
    return [cp for b, at, cp in rows if b in limits and position < at <= limits[b]]


def files_back(
    rows: Sequence[CheckpointRow], tree: Sequence[BranchInfo], branch: int, position: int, root: Path
) -> FilesBack:
    """`FilesBack` for a rewind to `position` (reads the files now: blocking)."""
    edits = edits_after(rows, tree, branch, position)
    if not edits:
        return FilesBack()
    plan = restore_plan(edits, lambda path: _read(root, path))
    paths = tuple(dict.fromkeys(cp.path for cp in sorted(edits, key=lambda c: c.seq)))
    return FilesBack(paths, len(edits), plan.conflicts)


def put_files_back(
    rows: Sequence[CheckpointRow],
    tree: Sequence[BranchInfo],
    branch: int,
    position: int,
    root: Path,
    *,
    overwrite: bool = False,
) -> str:
    """Put the files the edits after `position` touched back as they were before the first of them;
    a file changed since is left as is unless `overwrite`. Returns one line saying what happened."""
    from co_tui.agent.file_edits import put_back
    from co_tui.agent.workspace import Workspace
    from co_tui.text import plural

    edits = edits_after(rows, tree, branch, position)
    if not edits:
        return "no file edits to put back"
    plan = restore_plan(edits, lambda path: _read(root, path))
    done, failed = put_back(Workspace(root), plan, skip=() if overwrite else plan.conflicts)
    line = f"put back {plural(len(done), 'file')}" + (f" ({', '.join(done[:4])})" if done else "")
    kept = [] if overwrite else list(plan.conflicts)
    if kept:
        line += f"; left {', '.join(kept[:4])} as is: changed since the agent's edit"
    if failed:
        line += f"; could not put back {'; '.join(failed[:2])}"
    return line


def _read(root: Path, path: str) -> bytes | None:
    """The file now (None: missing, unreadable, a path outside the workspace, or not a regular
    file). Opened without blocking and checked on the open descriptor, as `writable` refuses such
    files: a FIFO planted at the name would block the read (the rewind picker, then the exit) for
    good. A file larger than an edit can be is not read either: it is not what an edit wrote."""
    import os
    import stat

    from co_tui.agent.file_edits import EDIT_MAX_BYTES
    from co_tui.agent.workspace import Workspace, WorkspaceError

    try:
        real = Workspace(root).resolve(path)
        fd = os.open(real, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0))
    except (OSError, WorkspaceError):
        return None
    try:
        with os.fdopen(fd, "rb") as file:
            info = os.fstat(fd)
            if not stat.S_ISREG(info.st_mode) or info.st_size > EDIT_MAX_BYTES:
                return None
            return file.read(EDIT_MAX_BYTES + 1)
    except OSError:
        return None

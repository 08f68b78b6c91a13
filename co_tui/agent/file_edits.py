"""File edits the agent makes (`write_file`, `edit_file`): planned, shown as a diff, approved,
checkpointed, then written — never over a change the model has not seen.

Pure Python (no pydantic-ai); `tools.py` wraps it as tools. Confinement is the read tools'
(`Workspace.resolve`: `..`, absolute paths elsewhere and symlinks that lead out are refused), plus:
nothing is written inside `.git` (a hook there runs code), only UTF-8 text files up to
`EDIT_MAX_BYTES`, and a file is replaced atomically (a temporary file in the same directory, then
`os.replace`), so a crash leaves the old or the new content, never half of one.

Staleness: `FileViews` remembers, per file, its size and modification time when the model last read
it (`read_file`) or wrote it. An edit of a file that changed on disk since is refused; so is
`write_file` over an existing file the model never read (it would replace content it has not seen).
Between the approval and the write the file is read again and compared byte for byte with what
the diff was made from: a change made while the dialog was open is not overwritten either.
"""

from __future__ import annotations

import difflib
import os
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from co_tui.agent.checkpoints import CheckpointSink, FileCheckpoint, MemoryCheckpoints, RestorePlan, sha256
from co_tui.agent.workspace import Workspace, WorkspaceError, binary_kind
from co_tui.text import plural

EditTool = Literal["write_file", "edit_file"]
EDIT_TOOLS: tuple[EditTool, ...] = ("write_file", "edit_file")
EDIT_MAX_BYTES = 1_000_000
"""A file over this size is neither edited nor written: its diff, its checkpoint and the model's
view of it would be too large to review."""
RESULT_DIFF_CHARS = 2_000  # the diff in the tool's result (the model's view of what changed), capped
_NEVER_WRITTEN = frozenset({".git", ".hg", ".svn"})


@dataclass(frozen=True)
class _Stamp:
    size: int
    mtime_ns: int


def _stamp(real: Path) -> _Stamp | None:
    try:
        st = real.stat()
    except OSError:
        return None
    return _Stamp(st.st_size, st.st_mtime_ns)


@dataclass
class FileViews:
    """What the model last saw of each file (by real path): recorded by `saw`, checked by `check`."""

    _seen: dict[Path, _Stamp] = field(default_factory=dict)

    def saw(self, real: Path) -> None:
        """The model has just read or written `real` as it is on disk now."""
        stamp = _stamp(real)
        if stamp is not None:
            self._seen[real] = stamp

    def check(self, real: Path, rel: str, *, whole: bool) -> None:
        """Refuse (WorkspaceError) an edit of `real` that would overwrite what the model has not
        seen: a change on disk since it last read or wrote the file, or — `whole`, a `write_file` —
        an existing file it never read."""
        now = _stamp(real)
        if now is None:
            return
        before = self._seen.get(real)
        if before is None:
            if whole:
                raise WorkspaceError(
                    f"not written: {rel} exists and you have not read it in this session; "
                    "read it first (or change part of it with edit_file)"
                )
            return
        if now != before:
            raise WorkspaceError(
                f"not written: {rel} changed on disk since you last read or wrote it "
                f"({before.size:,} → {now.size:,} bytes); read it again, then make the edit"
            )


@dataclass(frozen=True)
class PlannedEdit:
    """An edit ready to be approved and applied: the file's content `before` (None: a new file)
    and `after`, the unified `diff` between them, and `summary`, one line saying what changes."""

    tool: EditTool
    path: str  # as the model gave it
    real: Path
    rel: str
    before: bytes | None
    after: bytes
    summary: str
    diff: str


@dataclass
class FileEdits:
    """A session's file-edit state: the model's `views` and where checkpoints go (`sink`)."""

    views: FileViews = field(default_factory=FileViews)
    sink: CheckpointSink = field(default_factory=MemoryCheckpoints)


def writable(ws: Workspace, path: str) -> tuple[Path, str]:
    """(real path, shown name) of a file the agent may write; WorkspaceError otherwise."""
    real = ws.resolve(path)
    rel = ws.relative(real) if real != ws.root else "."
    if real == ws.root or real.is_dir():
        raise WorkspaceError(f"refused: {path} is a directory; give a file path")
    # Case-insensitively: on a case-insensitive file system (macOS, Windows) `.Git` is `.git`.
    if _NEVER_WRITTEN & {part.casefold() for part in real.relative_to(ws.root).parts}:
        raise WorkspaceError(f"refused: {rel} is inside version-control data, which co-tui never writes")
    if real.exists() and not real.is_file():
        raise WorkspaceError(f"refused: {rel} is not a regular file")
    return real, rel


def current_text(real: Path, rel: str) -> tuple[bytes | None, str | None]:
    """(bytes, text) of the file now; (None, None) when it does not exist. WorkspaceError for a
    file too large, binary, or not UTF-8 (an edit would corrupt it)."""
    if not real.exists():
        return None, None
    size = real.stat().st_size
    if size > EDIT_MAX_BYTES:
        raise WorkspaceError(f"refused: {rel} is {size:,} bytes; co-tui edits files up to {EDIT_MAX_BYTES:,} bytes")
    if binary_kind(real) is not None:
        raise WorkspaceError(f"refused: {rel} is not a text file")
    data = real.read_bytes()
    try:
        return data, data.decode("utf-8")
    except UnicodeDecodeError:
        raise WorkspaceError(f"refused: {rel} is not UTF-8 text; co-tui edits UTF-8 files only") from None


def plan_write(ws: Workspace, views: FileViews, path: str, content: str) -> PlannedEdit:
    """`write_file`: `content` replaces the file (or creates it). WorkspaceError when refused."""
    real, rel = writable(ws, path)
    after = content.encode("utf-8")
    if len(after) > EDIT_MAX_BYTES:
        raise WorkspaceError(
            f"refused: {len(after):,} bytes is over the {EDIT_MAX_BYTES:,}-byte limit for a file co-tui writes"
        )
    views.check(real, rel, whole=True)
    before, text = current_text(real, rel)
    if before == after:
        raise WorkspaceError(f"nothing to write: {rel} already holds exactly this content")
    lines = plural(_line_count(content), "line")
    if text is None:
        summary = f"wrote {rel}: a new file, {lines}, {plural(len(after), 'byte')}"
    else:
        summary = f"wrote {rel}: {plural(_line_count(text), 'line')} replaced by {lines} ({len(before or b''):,} → {len(after):,} bytes)"
    return PlannedEdit("write_file", path, real, rel, before, after, summary, unified_diff(rel, text, content))


def plan_edit(ws: Workspace, views: FileViews, path: str, old: str, new: str) -> PlannedEdit:
    """`edit_file`: the one occurrence of `old` replaced by `new`. Refused (WorkspaceError) when
    `old` is empty, absent or not unique, or when `old` and `new` are the same."""
    real, rel = writable(ws, path)
    if not old:
        raise WorkspaceError("edit_file needs a non-empty old_string (to create a file, use write_file)")
    if old == new:
        raise WorkspaceError("nothing to change: old_string and new_string are the same")
    before, text = current_text(real, rel)
    if before is None or text is None:
        raise WorkspaceError(f"not found: {path} (to create it, use write_file)")
    views.check(real, rel, whole=False)
    count = text.count(old)
    if count == 0:
        raise WorkspaceError(f"old_string is not in {rel}: copy it exactly, whitespace and line breaks included")
    if count > 1:
        lines = _occurrence_lines(text, old)
        raise WorkspaceError(
            f"old_string occurs {count} times in {rel} (lines {', '.join(map(str, lines[:8]))}"
            f"{', …' if len(lines) > 8 else ''}); include more of the text around it so it is unique"
        )
    at = text.index(old)
    line = text.count("\n", 0, at) + 1
    result = text[:at] + new + text[at + len(old) :]
    after = result.encode("utf-8")
    if len(after) > EDIT_MAX_BYTES:
        raise WorkspaceError(f"refused: the result, {len(after):,} bytes, is over the {EDIT_MAX_BYTES:,}-byte limit")
    removed, added = _line_count(old), _line_count(new)
    summary = (
        f"edited {rel}: replaced 1 occurrence at line {line:,} ({plural(removed, 'line')} → {plural(added, 'line')})"
    )
    return PlannedEdit("edit_file", path, real, rel, before, after, summary, unified_diff(rel, text, result))


def checkpoint_of(ws: Workspace, plan: PlannedEdit, *, tool_call_id: str = "") -> FileCheckpoint:
    """The checkpoint `plan` needs: the file's content before it, and a hash of what it writes."""
    return FileCheckpoint(
        path=plan.real.relative_to(ws.root).as_posix(),
        before=plan.before,
        after_sha256=sha256(plan.after),
        tool=plan.tool,
        tool_call_id=tool_call_id,
    )


def room_for(ws: Workspace, edits: FileEdits, plan: PlannedEdit) -> None:
    """Refuse (WorkspaceError) a `plan` whose checkpoint would not fit under the session's cap:
    asked before the approval, so nobody approves an edit that cannot be made."""
    refusal = edits.sink.room_for(checkpoint_of(ws, plan))
    if refusal:
        raise WorkspaceError(f"not written: {refusal}")


def apply_edit(ws: Workspace, edits: FileEdits, plan: PlannedEdit, *, tool_call_id: str = "") -> str:
    """Checkpoint the file's previous content, then write `plan.after`; returns the tool's result
    (the summary and the diff, capped). WorkspaceError when the file changed since the plan was
    made (nothing is written) or the checkpoint is refused or fails (nothing is written)."""
    real, rel = writable(ws, plan.path)
    now, _ = current_text(real, rel)
    if real != plan.real or now != plan.before:
        raise WorkspaceError(f"not written: {rel} changed on disk while the edit waited for approval; read it again")
    room_for(ws, edits, plan)
    try:
        edits.sink.save(checkpoint_of(ws, plan, tool_call_id=tool_call_id))
    except Exception as exc:  # a failed save: no checkpoint, no write
        raise WorkspaceError(f"not written: its checkpoint could not be saved ({exc})") from None
    _replace(real, plan.after)
    edits.views.saw(real)
    diff = plan.diff if len(plan.diff) <= RESULT_DIFF_CHARS else plan.diff[:RESULT_DIFF_CHARS] + "\n[…diff cut]"
    return f"{plan.summary}\n{diff}".rstrip("\n")


def unified_diff(rel: str, before: str | None, after: str) -> str:
    """The unified diff (3 lines of context) from `before` (None: no file) to `after`."""
    diff = difflib.unified_diff(
        [] if before is None else _lines(before),
        _lines(after),
        fromfile="/dev/null" if before is None else f"a/{rel}",
        tofile=f"b/{rel}",
        n=3,
    )
    out: list[str] = []
    for line in diff:
        out.append(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n")
    return "".join(out)


def _lines(text: str) -> list[str]:
    """`text`'s lines, each with its `\n`: split at newlines only. `splitlines` also breaks at `\r`,
    U+2028 and other separators: the diff then lost them and noted a missing final newline."""
    lines = [line + "\n" for line in text.split("\n")]
    lines[-1] = lines[-1][:-1]
    return lines if lines[-1] else lines[:-1]


def _replace(real: Path, data: bytes) -> None:
    """Write `data` to `real` atomically, keeping an existing file's permission bits."""
    real.parent.mkdir(parents=True, exist_ok=True)
    mode = real.stat().st_mode & 0o7777 if real.exists() else None
    fd, tmp = tempfile.mkstemp(dir=real.parent, prefix=".co-tui-edit-")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        if mode is not None:
            os.chmod(tmp, mode)
        else:
            umask = os.umask(0)
            os.umask(umask)
            os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, real)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _line_count(text: str) -> int:
    return len(text.splitlines()) or (1 if text else 0)


def _occurrence_lines(text: str, old: str) -> list[int]:
    lines: list[int] = []
    start = text.find(old)
    while start >= 0:
        lines.append(text.count("\n", 0, start) + 1)
        start = text.find(old, start + 1)
    return lines


def put_back(ws: Workspace, plan: RestorePlan, *, skip: Iterable[str] = ()) -> tuple[list[str], list[str]]:
    """Carry out a rewind's `plan` (`checkpoints.restore_plan`) in the workspace, leaving the files
    in `skip` (its conflicts, unless the user chose to overwrite them) as they are. Each path is
    confined as an edit's is (`writable`): a checkpoint naming a path outside is refused. Returns
    (files put back, one line per file that could not be)."""
    skipped = set(skip)
    done: list[str] = []
    failed: list[str] = []
    for path in [*plan.write, *plan.delete]:
        if path in skipped:
            continue
        try:
            real, rel = writable(ws, path)
            if path in plan.write:
                _replace(real, plan.write[path])
            else:
                real.unlink(missing_ok=True)
        except (WorkspaceError, OSError) as exc:
            failed.append(f"{path}: {exc}")
            continue
        done.append(rel)
    return done, failed

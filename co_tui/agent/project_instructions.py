"""Project instructions: `AGENTS.md` (else `CLAUDE.md`) from the workspace root and from the config dir.

The convention of the field (Codex reads AGENTS.md, Claude Code CLAUDE.md): the user's own rules for
the agent, in a file. co-tui sends them with its own instructions on every request (pydantic-ai's
`instructions=`, so trimming never drops them) — docs/configuration.md, "Project instructions".

`ProjectInstructions` holds what was loaded. `refresh()` is called before each turn: it compares a
cheap signature (path, mtime, size of each candidate file; four `stat` calls, no watcher thread) and
reads the files again only when it changed. A file over `MAX_CHARS` is cut with a notice the model
reads; an unreadable, non-UTF-8 or binary (NUL bytes: a sparse file reads as NULs) file, or a
symlink loop, is skipped with one line saying why.

A repository is untrusted: the project file gets `read_file`'s confinement (`Workspace.resolve`), so
an `AGENTS.md` that is a symlink to `/proc/self/environ` or `~/.ssh/id_rsa` is skipped, not sent.
Either file must be a regular file, and only what can be sent is read (`read_head`), so a 500 MB
file costs a few hundred kilobytes.
"""

from __future__ import annotations

import codecs
import errno
import os
import stat
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, Protocol

INSTRUCTION_FILES = ("AGENTS.md", "CLAUDE.md")
"""Looked for in this order in each directory; the first one that exists is used."""

MAX_CHARS = 40_000
"""A file longer than this is cut to its first MAX_CHARS characters, with a notice."""

_UTF8_MAX_BYTES = 4
"""The most bytes one character takes in UTF-8: `max_chars` characters are in the first
`max_chars * 4` bytes, so nothing past those is ever read."""

Scope = Literal["global", "project"]

Signature = tuple[tuple[str, int, int], ...]


def file_signature(paths: Iterable[Path]) -> Signature:
    """(path, mtime_ns, size) of each of `paths` that exists, in order: equal signatures mean no file
    appeared, changed or went away (what a `refresh` compares; one `stat` a path, no reads)."""
    found = []
    for path in paths:
        try:
            st = os.stat(path)
        except OSError:
            continue
        found.append((str(path), st.st_mtime_ns, st.st_size))
    return tuple(found)


class _Rereadable(Protocol):
    loaded_signature: Signature | None

    def signature(self) -> Signature: ...

    @property
    def text(self) -> str | None: ...

    def reload(self) -> object: ...


def reread_if_changed(files: _Rereadable) -> bool:
    """Before a turn (`ProjectInstructions.refresh`, `MemoryFiles.refresh`): read `files` again when
    their signature differs from the one of the last `reload` (which records it in
    `loaded_signature`). True when what the model is sent (`text`) changed."""
    if files.signature() == files.loaded_signature:
        return False
    before = files.text
    files.reload()
    return files.text != before


@dataclass(frozen=True)
class InstructionFile:
    """One loaded (or failed) instructions file.

    `scope`: `global` (the config dir, the user's own rules) or `project` (the workspace root).
    `text` is what the model is sent (cut to MAX_CHARS); `chars` the file's full length in
    characters, or None when the file was too long to read whole (then `size`, its bytes, says how
    long); `error` one line when the file could not be used (then `text` is empty).
    """

    scope: Scope
    path: Path
    text: str = ""
    chars: int | None = 0
    cut: bool = False
    error: str | None = None
    size: int = 0

    @property
    def length(self) -> str:
        """The file's full length for the user: `45,008 chars`, or `500,000,000 bytes` when it
        was not read whole."""
        return f"{self.chars:,} chars" if self.chars is not None else f"{self.size:,} bytes"

    @property
    def label(self) -> str:
        """How the file is named to the user: `AGENTS.md` for the workspace's, `~/…` for the global one."""
        if self.scope == "project":
            return self.path.name
        home = Path.home()
        try:
            return "~/" + str(self.path.relative_to(home))
        except ValueError:
            return str(self.path)


def default_global_dir() -> Path:
    """The directory of the global instructions: the one holding config.toml (platformdirs, or
    beside `CO_TUI_CONFIG_FILE` when that is set)."""
    from co_tui.paths import default_config_file

    return default_config_file().parent


def find_instructions(directory: Path) -> Path | None:
    """The first of INSTRUCTION_FILES that exists in `directory` (a dangling link does not), or None.
    Whether it may be used (a regular file, inside the workspace) `read_instructions` decides, so a
    FIFO, a directory named AGENTS.md or a link to itself gets its one line rather than being passed
    over in silence."""
    for name in INSTRUCTION_FILES:
        candidate = directory / name
        if candidate.exists() or _loops(candidate):  # a link to itself gets its line too
            return candidate
    return None


def _loops(path: Path) -> bool:
    """Whether `path` is a symbolic link that never reaches a file (it points to itself, or round)."""
    try:
        os.stat(path)
    except OSError as exc:
        return exc.errno == errno.ELOOP
    return False


class _Refused(Exception):
    """An instruction file that must not be read; `str()` is the one line saying why."""


def _open_regular(path: Path, workspace: Path | None) -> int:
    """An fd open on `path`'s real file, after the checks: inside `workspace` when given (the
    project file, as `read_file` confines), and a regular file (not a FIFO, device or directory)."""
    from co_tui.agent.workspace import Workspace, WorkspaceError

    if workspace is not None:
        try:
            real = Workspace(workspace).resolve(str(path))
        except WorkspaceError as exc:
            raise _Refused(f"{str(exc).removeprefix('refused: ')}; not sent to the model") from None
    else:
        try:
            real = path.resolve()
        except RuntimeError:  # a symlink loop (Python 3.11; later ones raise OSError)
            raise _Refused(f"{path}: a symlink loop; skipped") from None
    # O_NOFOLLOW on the resolved path: a link swapped in after the check is refused, not followed.
    # O_NONBLOCK: a FIFO swapped in must not block the open.
    fd = os.open(real, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise _Refused(f"{path}: not a regular file; skipped")
    # A file under /proc or /sys says it is regular but has no size: not instructions anyone wrote.
    if any(real.is_relative_to(system) for system in ("/proc", "/sys", "/dev")):
        os.close(fd)
        raise _Refused(f"{path}: a system file ({real}); skipped")
    return fd


def read_head(fd: int, max_bytes: int) -> tuple[bytes, bool]:
    """At most `max_bytes` from `fd` (read in chunks, never more), and whether the end was reached."""
    chunks: list[bytes] = []
    left = max_bytes + 1  # one more byte says whether there is more
    while left > 0:
        chunk = os.read(fd, min(left, 1 << 16))
        if not chunk:
            return b"".join(chunks), True
        chunks.append(chunk)
        left -= len(chunk)
    data = b"".join(chunks)
    return data[:max_bytes], len(data) <= max_bytes


def read_instructions(
    path: Path, scope: Scope, *, max_chars: int = MAX_CHARS, workspace: Path | None = None
) -> InstructionFile:
    """Read one instructions file: cut past `max_chars` with a notice; never raises (an unreadable,
    non-UTF-8, non-regular file, or one outside `workspace` when given, comes back with `error` set
    to one line). Reads at most `max_chars * 4` bytes, whatever the file's size."""
    try:
        fd = _open_regular(path, workspace)
    except _Refused as exc:
        return InstructionFile(scope, path, error=str(exc))
    except OSError as exc:
        return InstructionFile(scope, path, error=f"{path}: cannot be read ({exc.strerror or exc})")
    try:
        size = os.fstat(fd).st_size
        raw, whole = read_head(fd, max_chars * _UTF8_MAX_BYTES)
    except OSError as exc:
        return InstructionFile(scope, path, error=f"{path}: cannot be read ({exc.strerror or exc})")
    finally:
        os.close(fd)
    try:
        # Not `final` when the read stopped early: a character split at the stop is not an error.
        text = codecs.getincrementaldecoder("utf-8")().decode(raw, final=whole)
    except UnicodeDecodeError as exc:
        return InstructionFile(scope, path, error=f"{path}: not UTF-8 text (byte {exc.start}); skipped")
    size = max(size, len(raw))
    if "\0" in text:  # valid UTF-8, but not instructions anyone wrote (a sparse file reads as NULs)
        text = text[: text.index("\0")]
        if not text.strip():
            return InstructionFile(scope, path, error=f"{path}: binary content (NUL bytes); skipped", size=size)
        notice = f"\n\n[… {path.name} was cut here by co-tui: binary content (NUL bytes) follows, which is not sent.]"
        return InstructionFile(scope, path, text=text[:max_chars] + notice, chars=None, cut=True, size=size)
    chars = len(text) if whole else None
    if whole and len(text) <= max_chars:
        return InstructionFile(scope, path, text=text, chars=chars, size=size)
    length = f"{len(text):,} characters" if whole else f"{size:,} bytes"
    notice = (
        f"\n\n[… {path.name} was cut here by co-tui: it is {length} long and only the "
        f"first {max_chars:,} characters are sent. Ask the user for the rest if you need it.]"
    )
    return InstructionFile(scope, path, text=text[:max_chars] + notice, chars=chars, cut=True, size=size)


def instructions_block(file: InstructionFile) -> str:
    """The text one file adds to the agent's instructions: a header naming it, then its content."""
    whose = (
        "The user's own instructions for every project"
        if file.scope == "global"
        else "The project's instructions (from the workspace root)"
    )
    return f"{whose}, from {file.path.name}; follow them unless the user says otherwise:\n\n{file.text.strip()}"


def instructions_text(files: Sequence[InstructionFile]) -> str | None:
    """The project-instructions part of the agent's instructions (global first, then the project's,
    the more specific last), or None when no file was loaded."""
    blocks = [instructions_block(f) for f in files if f.error is None and f.text.strip()]
    return "\n\n".join(blocks) if blocks else None


def describe_files(files: Sequence[InstructionFile]) -> str | None:
    """One line for the user about the loaded files (`instructions: AGENTS.md · ~/.config/co-tui/AGENTS.md
    (cut at 40,000 chars)`), or None when there is none. Errors are not listed here (see `errors`)."""
    loaded = [f for f in files if f.error is None]
    if not loaded:
        return None
    parts = [f.label + (f" (cut at {MAX_CHARS:,} of {f.length})" if f.cut else "") for f in loaded]
    return "instructions: " + ", ".join(parts)


class ProjectInstructions:
    """The instruction files of one session: loaded at start, on `/clear` and when they change.

    `enabled=False` (setting `project_instructions = false`) loads nothing and never looks again.
    Blocking (it stats and reads files): a front end with a UI loop calls it off that loop.
    """

    def __init__(self, workspace: Path, *, global_dir: Path | None = None, enabled: bool = True) -> None:
        self.workspace = Path(workspace)
        self.global_dir = global_dir if global_dir is not None else default_global_dir()
        self.enabled = enabled
        self.files: tuple[InstructionFile, ...] = ()
        self.loaded_signature: Signature | None = None
        if enabled:
            self.reload()

    def _dirs(self) -> list[tuple[Scope, Path]]:
        dirs: list[tuple[Scope, Path]] = [("global", self.global_dir), ("project", self.workspace)]
        # A workspace that is the config dir would send the same file twice.
        if self.global_dir.resolve() == self.workspace.resolve():
            dirs = dirs[1:]
        return dirs

    def signature(self) -> Signature:
        """(path, mtime_ns, size) of every candidate file that exists: what `refresh` compares."""
        return file_signature(directory / name for _, directory in self._dirs() for name in INSTRUCTION_FILES)

    def reload(self) -> tuple[InstructionFile, ...]:
        """Read the files again (start, `/clear`); returns them."""
        if not self.enabled:
            return self.files
        self.loaded_signature = self.signature()
        files = []
        for scope, directory in self._dirs():
            path = find_instructions(directory)
            if path is not None:
                # The project's file is the repository's: confined to it, as read_file is.
                confine = self.workspace if scope == "project" else None
                files.append(read_instructions(path, scope, workspace=confine))
        self.files = tuple(files)
        return self.files

    def refresh(self) -> bool:
        """Before a turn: reload when a file appeared, changed or went away. True when it did and what
        the model is sent changed."""
        return self.enabled and reread_if_changed(self)

    @property
    def text(self) -> str | None:
        """The instructions the files add (None: nothing loaded). Read by the agent on every request."""
        return instructions_text(self.files)

    @property
    def errors(self) -> list[str]:
        """One line per file that could not be used."""
        return [f.error for f in self.files if f.error is not None]

    def summary(self) -> str | None:
        """`describe_files` of the loaded files."""
        return describe_files(self.files)


__all__ = [
    "INSTRUCTION_FILES",
    "MAX_CHARS",
    "InstructionFile",
    "ProjectInstructions",
    "default_global_dir",
    "describe_files",
    "file_signature",
    "find_instructions",
    "instructions_block",
    "instructions_text",
    "read_head",
    "read_instructions",
    "reread_if_changed",
]

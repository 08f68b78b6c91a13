"""Memory the user controls: notes kept across sessions in two Markdown files, one entry a line.

Where (docs/configuration.md, "Memory"):
- the workspace's: `.co-tui/memory.md` under the workspace root (`#note`, `/remember note`);
- the user's: `memory.md` in the config dir, beside the global `AGENTS.md` (`/remember --global`).

A separate file rather than a section of `AGENTS.md`: co-tui never rewrites the user's own
instructions file, and an `AGENTS.md` (or `CLAUDE.md`) imports it with one line (`@.co-tui/memory.md`)
for the tools that expand imports. An entry is a Markdown list item (`- note`); other lines (the
header, the user's own prose) are kept as they are and sent as they are.

The files are untrusted (a repository may ship one): they are read as the instruction files are
(`project_instructions.read_instructions`: the workspace's confined to it, no symlink out, regular
files only, UTF-8, cut at `MAX_CHARS` with a notice) and written only to a regular file inside the
workspace (or the config dir), atomically, never through a symlink. A write that would take a file
past `MAX_CHARS` is refused with one line. An entry is one line of at most `ENTRY_MAX_CHARS`, control
characters made spaces. Pure file work, no pydantic-ai: the session (`session/memory.py`) asks and
reports; the `remember` tool (`remember_tool.py`) is the model's way in.
"""

from __future__ import annotations

import os
import re
import stat
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from co_tui.agent.project_instructions import (
    InstructionFile,
    Signature,
    default_global_dir,
    file_signature,
    read_instructions,
    reread_if_changed,
)

__all__ = [
    "ENTRY_MAX_CHARS",
    "MAX_CHARS",
    "MemoryEntry",
    "MemoryFile",
    "MemoryFiles",
    "MemoryRefused",
    "MemoryScope",
    "WORKSPACE_MEMORY",
    "entry_text",
]

WORKSPACE_MEMORY = Path(".co-tui") / "memory.md"
"""The workspace's memory file, relative to the workspace root."""

GLOBAL_MEMORY_NAME = "memory.md"
"""The user's memory file's name in the config dir."""

MAX_CHARS = 16_000
"""A memory file is sent up to this many characters (cut with a notice past it); no write takes it further."""

ENTRY_MAX_CHARS = 500
"""The longest entry: a note, not a document."""

HEADER = "# Memory\n\nNotes kept by co-tui, one a line (`#note` or `/remember` adds one, `/memory` edits them).\n\n"
"""What a new memory file starts with."""

MemoryScope = Literal["workspace", "global"]

_ENTRY = re.compile(r"^\s{0,3}[-*+]\s+(?P<text>\S.*?)\s*$")
_CONTROLS = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]+")


class MemoryRefused(Exception):
    """A memory write that cannot be made; `str()` is the one line saying why (nothing was written)."""


@dataclass(frozen=True)
class MemoryEntry:
    """One remembered note: `text` (without the `- `), the file it is in and its 1-based `line`."""

    scope: MemoryScope
    path: Path
    line: int
    text: str


@dataclass(frozen=True)
class MemoryFile:
    """One memory file as read: `text` what the model is sent (cut past MAX_CHARS with a notice),
    `entries` its list items, `error` one line when it could not be used (then nothing is sent),
    `exists` False when there is no such file yet."""

    scope: MemoryScope
    path: Path
    label: str
    text: str = ""
    entries: tuple[MemoryEntry, ...] = ()
    cut: bool = False
    error: str | None = None
    exists: bool = False

    @property
    def block(self) -> str | None:
        """The text this file adds to the agent's instructions (None: nothing to send)."""
        if self.error is not None or not self.text.strip():
            return None
        whose = "the user's own, for every project" if self.scope == "global" else "this workspace's"
        return (
            f"Memory ({whose}, from {self.label}): notes the user asked you to keep across sessions; "
            f"follow them unless the user says otherwise:\n\n{self.text.strip()}"
        )


def entry_text(text: str) -> str:
    """`text` as one entry: control characters and line breaks made single spaces, a leading list
    marker or `#` dropped, trimmed. Raises `MemoryRefused` when nothing is left or it is too long."""
    one = " ".join(_CONTROLS.sub(" ", text).split())
    one = re.sub(r"^(?:[-*+]\s+|#+\s*)", "", one).strip()
    if not one:
        raise MemoryRefused("nothing to remember: write the note after # (e.g. #use uv, not pip)")
    if len(one) > ENTRY_MAX_CHARS:
        raise MemoryRefused(
            f"a memory entry is one note of at most {ENTRY_MAX_CHARS} characters (this is {len(one):,})"
        )
    return one


def _entries(scope: MemoryScope, path: Path, text: str) -> tuple[MemoryEntry, ...]:
    found = []
    for number, line in enumerate(text.splitlines(), start=1):
        match = _ENTRY.match(line)
        if match:
            found.append(MemoryEntry(scope, path, number, match.group("text")))
    return tuple(found)


def _label(scope: MemoryScope, path: Path, workspace: Path) -> str:
    if scope == "workspace":
        return WORKSPACE_MEMORY.as_posix()
    try:
        return "~/" + path.relative_to(Path.home()).as_posix()
    except ValueError:
        return str(path)


class MemoryFiles:
    """The two memory files of a workspace (see the module docstring): read at start, re-read
    before a turn when one changed (`refresh`), written by `append`, `replace` and `delete`.

    `enabled=False` (setting `project_instructions = false`) sends nothing; the files can still be
    listed and written. Blocking (it stats, reads and writes files): run it off a UI loop.
    """

    def __init__(self, workspace: Path, *, global_dir: Path | None = None, enabled: bool = True) -> None:
        self.workspace = Path(workspace).resolve()
        self.global_dir = global_dir if global_dir is not None else default_global_dir()
        self.enabled = enabled
        self.files: tuple[MemoryFile, ...] = ()
        self.loaded_signature: Signature | None = None
        self.reload()

    def path_of(self, scope: MemoryScope) -> Path:
        """Where `scope`'s memory is kept (whether or not the file exists)."""
        if scope == "global":
            return self.global_dir / GLOBAL_MEMORY_NAME
        return self.workspace / WORKSPACE_MEMORY

    def label_of(self, scope: MemoryScope) -> str:
        """`scope`'s file as the user is shown it: `.co-tui/memory.md`, `~/.config/co-tui/memory.md`."""
        return _label(scope, self.path_of(scope), self.workspace)

    def _scopes(self) -> list[MemoryScope]:
        return ["global", "workspace"]

    def signature(self) -> Signature:
        """(path, mtime_ns, size) of each memory file that exists: what `refresh` compares."""
        return file_signature(self.path_of(scope) for scope in self._scopes())

    def read(self, scope: MemoryScope) -> MemoryFile:
        """`scope`'s file as it is now (never raises: a file that cannot be used has `error`)."""
        path, label = self.path_of(scope), self.label_of(scope)
        if not os.path.lexists(path):
            return MemoryFile(scope, path, label)
        confine = self.workspace if scope == "workspace" else None
        loaded: InstructionFile = read_instructions(
            path, "project" if scope == "workspace" else "global", max_chars=MAX_CHARS, workspace=confine
        )
        if loaded.error is not None:
            return MemoryFile(scope, path, label, error=loaded.error.replace("instructions", "memory"), exists=True)
        return MemoryFile(scope, path, label, loaded.text, _entries(scope, path, loaded.text), loaded.cut, exists=True)

    def reload(self) -> tuple[MemoryFile, ...]:
        """Read both files again; returns them (global first, as the instructions are ordered)."""
        self.loaded_signature = self.signature()
        self.files = tuple(self.read(scope) for scope in self._scopes())
        return self.files

    def refresh(self) -> bool:
        """Before a turn: re-read when a file appeared, changed or went away. True when what the
        model is sent changed."""
        return reread_if_changed(self)

    @property
    def text(self) -> str | None:
        """What memory adds to the agent's instructions (None: nothing, or sending is off)."""
        if not self.enabled:
            return None
        blocks = [block for file in self.files if (block := file.block) is not None]
        return "\n\n".join(blocks) if blocks else None

    @property
    def entries(self) -> list[MemoryEntry]:
        """Every entry of both files, in file order (global first)."""
        return [entry for file in self.files for entry in file.entries]

    # --- writes ------------------------------------------------------------------------------------

    def target(self, scope: MemoryScope) -> Path:
        """The real path a write of `scope` goes to, after the checks (inside the workspace, no symlink
        out, a regular file or none yet). Raises `MemoryRefused` naming the file."""
        path = self.path_of(scope)
        if scope == "workspace":
            from co_tui.agent.workspace import Workspace, WorkspaceError

            try:
                real = Workspace(self.workspace).resolve(WORKSPACE_MEMORY.as_posix())
            except WorkspaceError as exc:
                raise MemoryRefused(f"not written: {exc}") from None
        else:
            try:  # the user's own config dir: a dotfiles link is theirs to make
                real = path.resolve()
            except (RuntimeError, OSError):
                raise MemoryRefused(f"not written: {self.label_of(scope)}: a symlink loop") from None
        try:
            st = os.stat(real)
        except FileNotFoundError:
            return real
        except OSError as exc:
            raise MemoryRefused(f"not written: {self.label_of(scope)}: {exc.strerror or exc}") from None
        if not stat.S_ISREG(st.st_mode):
            raise MemoryRefused(f"not written: {self.label_of(scope)} is not a regular file")
        return real

    def _current(self, scope: MemoryScope) -> str:
        file = self.read(scope)
        if file.error is not None:
            raise MemoryRefused(f"not written: {file.error}")
        if file.cut:
            raise MemoryRefused(f"not written: {file.label} is over {MAX_CHARS:,} characters; /memory deletes entries")
        return file.text

    def plan_append(self, scope: MemoryScope, text: str) -> tuple[Path, str]:
        """(the real file, the exact line) an append of `text` would write; raises `MemoryRefused`
        (an empty or too long note, one already remembered, a full or unusable file). Writes nothing."""
        line = f"- {entry_text(text)}"
        real = self.target(scope)
        current = self._current(scope)
        if any(entry.text == line[2:] for entry in _entries(scope, real, current)):
            raise MemoryRefused(f"already remembered in {self.label_of(scope)}")
        if len(current or HEADER) + len(line) + 1 > MAX_CHARS:
            raise MemoryRefused(
                f"not written: {self.label_of(scope)} would pass {MAX_CHARS:,} characters; /memory deletes entries"
            )
        return real, line

    def append(self, scope: MemoryScope, text: str) -> MemoryEntry:
        """Add `text` as an entry at the end of `scope`'s file (created with a header when new).
        Returns the entry written; raises `MemoryRefused` (nothing written)."""
        real, line = self.plan_append(scope, text)
        current = self._current(scope) if os.path.exists(real) else HEADER
        if current and not current.endswith("\n"):
            current += "\n"
        new = current + line + "\n"
        self._write(real, new)
        self.reload()
        return MemoryEntry(scope, self.path_of(scope), len(new.splitlines()), line[2:])

    def replace(self, entry: MemoryEntry, text: str) -> MemoryEntry:
        """Put `text` in place of `entry` (same file, same line). Raises `MemoryRefused` when the file
        changed under it (the line no longer holds that entry) or `text` is not a valid entry."""
        new_text = entry_text(text)
        lines = self._lines_holding(entry)
        lines[entry.line - 1] = f"- {new_text}"
        self._write(self.target(entry.scope), "\n".join(lines) + "\n")
        self.reload()
        return MemoryEntry(entry.scope, entry.path, entry.line, new_text)

    def delete(self, entry: MemoryEntry) -> None:
        """Remove `entry`'s line from its file. Raises `MemoryRefused` when the file changed under it."""
        lines = self._lines_holding(entry)
        del lines[entry.line - 1]
        self._write(self.target(entry.scope), "\n".join(lines) + ("\n" if lines else ""))
        self.reload()

    def _lines_holding(self, entry: MemoryEntry) -> list[str]:
        lines = self._current(entry.scope).splitlines()
        held = _entries(entry.scope, entry.path, lines[entry.line - 1]) if 0 < entry.line <= len(lines) else ()
        if not held or held[0].text != entry.text:
            raise MemoryRefused(f"{self.label_of(entry.scope)} changed since it was listed: open /memory again")
        return lines

    def _write(self, real: Path, text: str) -> None:
        """Write `text` to `real` atomically (a temporary file renamed over it: a link put there is
        replaced, never followed); the directory is made when missing."""
        try:
            real.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=real.parent, prefix=".co-tui-memory-")
            try:
                with os.fdopen(fd, "w", encoding="utf-8") as handle:
                    handle.write(text)
                os.replace(tmp, real)
            except BaseException:
                Path(tmp).unlink(missing_ok=True)
                raise
        except OSError as exc:
            raise MemoryRefused(f"not written: {real}: {exc.strerror or exc}") from None

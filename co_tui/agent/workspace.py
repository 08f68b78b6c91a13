"""The workspace the agent may look at: path confinement and the read/list/search operations.

Pure Python (no pydantic-ai): `tools.py` wraps these as agent tools and turns `WorkspaceError` into a
failed tool result the model sees. Every path is resolved (symlinks included) and must stay inside
the workspace root: `..`, absolute paths elsewhere and symlinks pointing out are refused.

Outputs are plain text with a one-line header saying what is shown, and a closing `[capped: …]`
line whenever a cap cut something, so neither the model nor the user mistakes a part for the whole.
"""

from __future__ import annotations

import mimetypes
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from co_tui.agent.output_limit import OUTPUT_MAX_CHARS
from co_tui.text import escape_controls, one_line, plural

# Caps: large enough to be useful, small enough that one call cannot flood the context window.
# `read_file` keeps what its lines hold whole (governance previews a big read to the model and
# keeps it whole for `recall`); only co-tui's limit on one output bounds its characters.
READ_LIMIT_LINES = 400
READ_MAX_LINES = 2000
READ_MAX_CHARS = OUTPUT_MAX_CHARS
LINE_MAX_CHARS = 1_000
LIST_MAX_ENTRIES = 200
SEARCH_MAX_MATCHES = 100
SEARCH_MAX_CHARS = 16_000
SEARCH_LINE_CHARS = 300
SEARCH_MAX_FILE_BYTES = 2_000_000
SEARCH_MAX_FILES = 5_000
COUNT_MAX_BYTES = 50_000_000  # beyond this a file's total line count is not computed
SNIFF_BYTES = 8192

# Directories a text search never descends into (version control, environments, caches).
SKIPPED_DIRS = frozenset(
    {
        ".git",
        ".hg",
        ".svn",
        ".venv",
        "venv",
        "node_modules",
        "__pycache__",
        ".mypy_cache",
        ".pytest_cache",
        ".ruff_cache",
        ".hypothesis",
        ".tox",
        ".nox",
        ".idea",
        ".eggs",
        "dist",
        "build",
    }
)

# Leading bytes of common binary formats, for a better description than "binary data".
_SIGNATURES: tuple[tuple[bytes, str], ...] = (
    (b"\x89PNG\r\n\x1a\n", "PNG image"),
    (b"\xff\xd8\xff", "JPEG image"),
    (b"GIF87a", "GIF image"),
    (b"GIF89a", "GIF image"),
    (b"%PDF-", "PDF document"),
    (b"PK\x03\x04", "ZIP archive (or a zip-based format: jar, docx, whl…)"),
    (b"\x1f\x8b", "gzip-compressed data"),
    (b"\x7fELF", "ELF executable or library"),
    (b"SQLite format 3\x00", "SQLite database"),
    (b"BZh", "bzip2-compressed data"),
    (b"\xfd7zXZ\x00", "xz-compressed data"),
    (b"RIFF", "RIFF container (WAV/AVI/WebP)"),
    (b"\x00asm", "WebAssembly module"),
    (b"\xca\xfe\xba\xbe", "Java class file or Mach-O universal binary"),
)


class WorkspaceError(Exception):
    """A refused or failed workspace operation. `str(err)` is one line meant for the model and user."""


@dataclass(frozen=True)
class Workspace:
    """A directory tree the agent may read. `root` is resolved (absolute, symlinks followed)."""

    root: Path

    def __post_init__(self) -> None:
        object.__setattr__(self, "root", Path(self.root).expanduser().resolve())

    # --- confinement -----------------------------------------------------------------------------

    def resolve(self, path: str) -> Path:
        """The real path of `path` (relative to the root, or absolute), refusing anything outside.

        Raises `WorkspaceError` naming the path when it leaves the workspace, lexically (`..`,
        another absolute path) or through a symlink, or when a name in it or the whole of it is
        longer than the file system allows (`_check_length`). Existence is not checked here.
        """
        text = (path or ".").strip() or "."
        if "\x00" in text:
            raise WorkspaceError(f"refused: {text!r} is not a valid path")
        candidate = Path(text).expanduser()
        if not candidate.is_absolute():
            candidate = self.root / candidate
        lexical = Path(os.path.normpath(candidate))
        if not _inside(lexical, self.root):
            raise WorkspaceError(f"refused: {text} is outside the workspace {self.root}")
        _check_length(text, lexical)
        try:
            real = candidate.resolve()
        except (RuntimeError, OSError):  # a symlink loop (Python 3.11 raises RuntimeError)
            raise WorkspaceError(f"cannot resolve {text}: a symlink loop") from None
        if not _inside(real, self.root):
            raise WorkspaceError(f"refused: {text} is a symlink that leads outside the workspace {self.root}")
        return real

    def relative(self, real: Path) -> str:
        """`real` as shown to the model: relative to the root, `.` for the root itself, control
        characters escaped (a file name with a newline must not forge a line of the output)."""
        rel = real.relative_to(self.root).as_posix()
        return shown_name(rel or ".")

    def _existing(self, path: str) -> Path:
        real = self.resolve(path)
        if not real.exists():
            raise WorkspaceError(f"not found: {path} (paths are relative to the workspace {self.root})")
        return real

    # --- operations ------------------------------------------------------------------------------

    def read_file(self, path: str, offset: int = 0, limit: int = READ_LIMIT_LINES) -> str:
        """Lines `offset`… (0-based, at most `limit`, capped at READ_MAX_LINES) of a text file.

        Binary files are described (size, type guess), never dumped. Long lines and long outputs
        are cut with a note saying so and how to continue.
        """
        real = self._existing(path)
        if real.is_dir():
            raise WorkspaceError(f"{path} is a directory: use list_dir to see what it holds")
        if not real.is_file():
            raise WorkspaceError(f"{path} is not a regular file")
        offset = max(0, int(offset))
        limit = max(1, min(int(limit), READ_MAX_LINES))
        rel = self.relative(real)
        size = real.stat().st_size
        kind = binary_kind(real)
        if kind is not None:
            return f"{rel}: binary file, {size:,} bytes, {kind}. Not shown: it is not text."
        shown: list[str] = []
        chars = 0
        char_capped = False
        long_lines = 0
        total = 0
        with real.open("r", encoding="utf-8", errors="replace", newline=None) as handle:
            for number, (line, length) in enumerate(_bounded_lines(handle, LINE_MAX_CHARS)):
                total = number + 1
                if number < offset or len(shown) >= limit or char_capped:
                    continue
                if length > LINE_MAX_CHARS:
                    line = line[:LINE_MAX_CHARS] + f" …[line cut: {length:,} chars]"
                    long_lines += 1
                if chars + len(line) + 1 > READ_MAX_CHARS and shown:
                    char_capped = True
                    continue
                shown.append(line)
                chars += len(line) + 1
                if size > COUNT_MAX_BYTES and (len(shown) >= limit or char_capped):
                    break  # huge file: don't scan to the end just to count its lines
        counted = size <= COUNT_MAX_BYTES
        total_text = f"{total:,}" if counted else "?"
        if not shown:
            if total == 0:
                return f"{rel}: empty file (0 lines, {size:,} bytes)"
            return f"{rel}: offset {offset:,} is past the end ({total_text} lines)"
        first, last = offset + 1, offset + len(shown)
        out = [f"{rel}: lines {first:,}-{last:,} of {total_text} ({size:,} bytes)", *shown]
        if last < total or not counted:
            reason = f"{READ_MAX_CHARS:,} chars" if char_capped else f"{len(shown):,} lines"
            out.append(f"[capped at {reason}: {total_text} lines in total; continue with offset={last}]")
        if long_lines:
            out.append(f"[{long_lines} long line(s) cut at {LINE_MAX_CHARS:,} chars]")
        return "\n".join(out)

    def list_dir(self, path: str = ".") -> str:
        """The entries of one directory (not recursive): directories first (`name/`), then files with sizes."""
        real = self._existing(path)
        if not real.is_dir():
            raise WorkspaceError(f"{path} is a file, not a directory: use read_file to read it")
        try:
            entries = sorted(os.scandir(real), key=lambda e: e.name)
        except OSError as exc:
            raise WorkspaceError(f"cannot list {path}: {exc.strerror}") from None
        dirs: list[str] = []
        files: list[str] = []
        for entry in entries:
            name = shown_name(entry.name)
            try:
                if entry.is_symlink():
                    link = shown_name(os.readlink(entry.path))
                    try:
                        target = Path(entry.path).resolve()
                    except RuntimeError:  # a symlink loop
                        files.append(f"{name} -> {link} (a symlink loop)")
                        continue
                    where = "" if _inside(target, self.root) else " (leads outside the workspace)"
                    (dirs if target.is_dir() else files).append(
                        f"{name}{'/' if target.is_dir() else ''} -> {link}{where}"
                    )
                elif entry.is_dir():
                    dirs.append(name + "/")
                else:
                    files.append(f"{name}  ({entry.stat().st_size:,} bytes)")
            except OSError:
                files.append(f"{name}  (unreadable)")
        rel = self.relative(real)
        header = f"{rel if rel == '.' else rel + '/'}: {plural(len(dirs), 'directory', many='directories')}, {plural(len(files), 'file')}"
        listed = dirs + files
        out = [header, *listed[:LIST_MAX_ENTRIES]]
        if len(listed) > LIST_MAX_ENTRIES:
            out.append(f"[capped: showing {LIST_MAX_ENTRIES} of {len(listed):,} entries]")
        if not listed:
            out.append("(empty)")
        return "\n".join(out)

    def search_text(self, pattern: str, path: str = ".") -> str:
        """Lines matching `pattern` (a regular expression) in the text files under `path`.

        Smart case: an all-lowercase pattern matches case-insensitively. An invalid regular
        expression is searched literally (and the header says so). Skips binary files, files over
        SEARCH_MAX_FILE_BYTES and the directories in SKIPPED_DIRS; output is capped.
        """
        if not pattern:
            raise WorkspaceError("search_text needs a non-empty pattern")
        real = self._existing(path)
        flags = 0 if any(c.isupper() for c in pattern) else re.IGNORECASE
        literal = False
        try:
            regex = re.compile(pattern, flags)
        except re.error:
            regex = re.compile(re.escape(pattern), flags)
            literal = True
        matches: list[str] = []
        chars = 0
        total = 0
        files_with: dict[str, int] = {}
        scanned = 0
        capped_files = False
        for file in self._walk_files(real):
            if scanned >= SEARCH_MAX_FILES:
                capped_files = True
                break
            scanned += 1
            rel = self.relative(file)
            for number, line in _text_lines(file):
                if not regex.search(line):
                    continue
                total += 1
                files_with[rel] = files_with.get(rel, 0) + 1
                if len(matches) < SEARCH_MAX_MATCHES and chars < SEARCH_MAX_CHARS:
                    text = line.strip()
                    if len(text) > SEARCH_LINE_CHARS:
                        text = text[:SEARCH_LINE_CHARS] + " …"
                    entry = f"{rel}:{number}: {text}"
                    matches.append(entry)
                    chars += len(entry) + 1
        # The root by name: "under ." read as "under .." once a sentence ended after it.
        where = "the workspace" if real == self.root else self.relative(real)
        how = " (not a valid regular expression: searched literally)" if literal else ""
        header = f"{plural(total, 'match', many='matches')} for {pattern!r} in {plural(len(files_with), 'file')} under {where}{how}"
        out = [header, *matches]
        if total > len(matches):
            out.append(f"[capped: showing {len(matches)} of {total:,} matches; narrow the pattern or the path]")
        if capped_files:
            out.append(f"[capped: searched the first {SEARCH_MAX_FILES:,} files only]")
        return "\n".join(out)

    def _walk_files(self, real: Path) -> Iterator[Path]:
        """Files under `real` in a stable order, without leaving the workspace or entering SKIPPED_DIRS."""
        if real.is_file():
            yield real
            return
        for current, dirnames, filenames in os.walk(real, followlinks=False):
            dirnames[:] = sorted(d for d in dirnames if not skipped_dir(d))
            for name in sorted(filenames):
                file = Path(current, name)
                try:
                    if file.is_symlink() and not _inside(file.resolve(), self.root):
                        continue
                    if not file.is_file() or file.stat().st_size > SEARCH_MAX_FILE_BYTES:
                        continue
                except (OSError, RuntimeError):  # RuntimeError: a symlink loop
                    continue
                yield file


def skipped_dir(name: str) -> bool:
    """Whether a walk of the workspace (a text search, `@path` completion) leaves directory `name`
    out: version control, environments and caches (`SKIPPED_DIRS`), and hidden directories."""
    return name in SKIPPED_DIRS or name.startswith(".")


def shown_name(name: str) -> str:
    """`name` with control characters and line breaks escaped (`\\n`, `\\x1b`…): one line, always."""
    return escape_controls(name)


def _inside(path: Path, root: Path) -> bool:
    return path == root or path.is_relative_to(root)


READ_CHUNK_CHARS = 65_536


def _bounded_lines(handle: TextIO, keep: int) -> Iterator[tuple[str, int]]:
    """(the first `keep`+ characters of each line, its full length), without its newline. Reads at
    most READ_CHUNK_CHARS at a time: a 300 MB one-line file costs 64 KB of memory, not 600 MB."""
    while True:
        head = handle.readline(keep + 1)
        if not head:
            return
        if head.endswith("\n"):
            yield head[:-1], len(head) - 1
            continue
        length = len(head)
        if length > keep:  # a long line: measure the rest without keeping it
            while chunk := handle.readline(READ_CHUNK_CHARS):
                if chunk.endswith("\n"):
                    length += len(chunk) - 1
                    break
                length += len(chunk)
        yield head, length


def _text_lines(file: Path) -> Iterator[tuple[int, str]]:
    """(1-based number, line) of a text file; nothing for binary or unreadable files."""
    try:
        if binary_kind(file) is not None:
            return
    except WorkspaceError:
        return
    try:
        with file.open("r", encoding="utf-8", errors="replace") as handle:
            for number, line in enumerate(handle, start=1):
                yield number, line.rstrip("\n")
    except OSError:
        return


def binary_kind(file: Path) -> str | None:
    """A description of `file`'s type if it looks binary (NUL bytes or not UTF-8), else None."""
    try:
        with file.open("rb") as handle:
            head = handle.read(SNIFF_BYTES)
    except OSError as exc:
        raise WorkspaceError(f"cannot read {file.name}: {exc.strerror}") from None
    for signature, kind in _SIGNATURES:
        if head.startswith(signature):
            return kind
    if b"\x00" not in head and _mostly_text(head):
        return None
    guessed, _ = mimetypes.guess_type(file.name)
    return f"type guess from its name: {guessed}" if guessed else "unknown binary data"


def _mostly_text(head: bytes) -> bool:
    try:
        head.decode("utf-8")
        return True
    except UnicodeDecodeError as exc:
        # A multi-byte character cut at the sniff boundary is still text.
        if exc.start >= len(head) - 3:
            return True
    # Legacy encodings (latin-1 etc.): text if control characters are rare.
    controls = sum(1 for b in head if b < 9 or 13 < b < 32)
    return controls <= len(head) // 100


def _limit(root: Path, name: str, default: int) -> int:
    try:
        return int(os.pathconf(root, name))
    except (OSError, ValueError, AttributeError):  # not on this system, or no limit given
        return default


def _check_length(text: str, lexical: Path) -> None:
    """Refuse a path the file system would reject as too long (ENAMETOOLONG): a name over NAME_MAX
    bytes (255 on most), or the whole over PATH_MAX (4,096). One line, the path cut short."""
    shown = one_line(shown_name(text), 60)
    base = Path(lexical.anchor or "/")
    name_max, path_max = _limit(base, "PC_NAME_MAX", 255), _limit(base, "PC_PATH_MAX", 4096)
    longest = max((len(os.fsencode(part)) for part in lexical.parts), default=0)
    if longest > name_max:
        raise WorkspaceError(f"refused: {shown} has a name of {longest:,} bytes; names stop at {name_max:,}")
    size = len(os.fsencode(str(lexical)))
    if size >= path_max:
        raise WorkspaceError(f"refused: {shown} is {size:,} bytes long; paths stop at {path_max - 1:,}")

"""`@path` in a prompt: completing workspace paths as they are typed, and attaching what they name.

A mention is `@` at the start of the prompt or after a space, followed by a path with no spaces
(`@src/parser.py`, `@docs/`). Every path goes through `Workspace.resolve`, as `read_file`'s does:
`..`, absolute paths and symlinks leading out of the workspace are refused. Completion lists what
`list_dir` would (one directory's entries) plus, for a bare name, files and folders anywhere below
whose path holds it, walking as `search_text` walks (`skipped_dir`: no `.git`, `node_modules`,
hidden directories…) and no further than `WALK_MAX_ENTRIES`. A name with a space or a control
character cannot be written as one mention, so it is not offered.

Attaching: a file's text is what `read_file` returns for it (the first 400 lines, each cut at
1,000 characters, binary files described, never dumped), a folder's is its `list_dir` listing; each goes
after the prompt in an `<attached path="…">` block, and all of them together stop at
`ATTACH_MAX_CHARS`. A mention that names nothing is left as typed (an `@name` is not always a
path); one that looks like a path (it has a `/` or a `.`) but is missing or refused gets a
one-line problem saying why. Pure Python, no pydantic: the TUI completes with it, the session
attaches with it.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Literal

from co_tui.agent.workspace import (
    SEARCH_MAX_FILES,
    Workspace,
    WorkspaceError,
    shown_name,
    skipped_dir,
)
from co_tui.text import format_tokens, one_line, plural

__all__ = [
    "AT",
    "ATTACH_MAX_CHARS",
    "Attached",
    "Attachments",
    "attach",
    "complete_paths",
    "mention_being_typed",
    "mentions",
    "priced",
    "split_attachments",
    "walk_index",
]

AT = "@"
MENTION = re.compile(r"(?<!\S)@(?P<path>[^\s@]+)")
TYPING = re.compile(r"(?<!\S)@(?P<path>[^\s@]*)\Z")
TRAILING = ".,;:!?)]}'\""  # "look at @README.md." — the sentence's full stop is not the file's
ATTACH_MAX_CHARS = 64_000
MAX_MENTIONS = 20
COMPLETE_MAX = 40
WALK_MAX_ENTRIES = SEARCH_MAX_FILES
_UNWRITABLE = re.compile(r"[\s\x00-\x1f\x7f@]")  # a name no mention can spell


@dataclass(frozen=True)
class Attached:
    """One attached path: as typed (`mention`, without `@`), as shown (`path`, relative), what it is,
    and the `text` that goes to the model (`read_file`'s or `list_dir`'s output)."""

    mention: str
    path: str
    kind: Literal["file", "folder"]
    text: str

    def block(self) -> str:
        """The `<attached path="…">` block the model reads (its closing tag escaped inside the text)."""
        path = self.path.replace('"', '\\"')
        body = self.text.replace("</attached>", "<\\/attached>")
        return f'<attached path="{path}">\n{body}\n</attached>'


@dataclass(frozen=True)
class Attachments:
    """What a prompt's mentions attach, in order, and the problems of those that attach nothing.
    `tokens`: what they add to the request, in the meter's tokens (set by the session)."""

    attached: tuple[Attached, ...] = ()
    problems: tuple[str, ...] = ()
    tokens: int = 0

    def __bool__(self) -> bool:
        return bool(self.attached or self.problems)

    @property
    def chars(self) -> int:
        """Characters the blocks add to the prompt."""
        return sum(len(a.block()) + 2 for a in self.attached)

    def prompt(self, typed: str) -> str:
        """The prompt the model is sent: `typed` as typed, then one block per attached path."""
        if not self.attached:
            return typed
        return "\n\n".join([typed, *(a.block() for a in self.attached)])

    def describe(self) -> str:
        """One line for the chat: `attached README.md (file), src/ (folder listing)`."""
        what = ", ".join(f"{a.path} ({'folder listing' if a.kind == 'folder' else 'file'})" for a in self.attached)
        if not what:
            return ""
        cost = f" · ~{format_tokens(self.tokens)} tokens" if self.tokens else ""
        return f"attached {what}{cost}"

    def lines(self) -> list[str]:
        """What the chat says when the prompt is sent: what was attached, then each problem."""
        return [line for line in (self.describe(), *self.problems) if line]


def priced(attachments: Attachments, ratio: float) -> Attachments:
    """`attachments` with `tokens` set: the blocks' estimate times the meter's `ratio`."""
    from co_tui.governance.tokens import estimate_text_tokens

    blocks = "\n\n".join(a.block() for a in attachments.attached)
    return replace(attachments, tokens=round(ratio * estimate_text_tokens(blocks)) if blocks else 0)


_BLOCK = re.compile(r'\n\n<attached path="(?P<path>(?:[^"\\]|\\.)*)">\n(?P<text>.*?)\n</attached>', re.S)


def split_attachments(prompt: str) -> tuple[str, list[tuple[str, str]]]:
    """(the prompt as typed, (path, text) of each block `Attachments.prompt` added after it); a
    prompt with no blocks is returned whole, with []."""
    found = [(m.group("path").replace('\\"', '"'), m.group("text")) for m in _BLOCK.finditer(prompt)]
    if not found:
        return prompt, []
    return prompt[: prompt.index('\n\n<attached path="')], found


# Print mode's piped input, attached before the prompt (co_tui/print_input.py `build_prompt`): data,
# not typed. A README piped in names files with `@` (`@src/parser.py`); they are not the user's
# mentions. Greedy to the block's last end: text the pipe carried never counts.
_STDIN_BLOCK = re.compile(r"\A<stdin>\n.*\n</stdin>\n\n", re.S)


def mentions(text: str) -> list[str]:
    """The paths mentioned in `text` (`@path`, without the `@`), each once, in order; a leading
    `<stdin>` block (print mode's piped input) is data and mentions nothing."""
    seen: list[str] = []
    for match in MENTION.finditer(_STDIN_BLOCK.sub("", text, count=1)):
        path = match.group("path")
        if path not in seen:
            seen.append(path)
    return seen


def mention_being_typed(before_cursor: str) -> str | None:
    """The path typed so far when the text before the cursor ends in a mention (`…@src/pa` →
    `src/pa`, `@` alone → ``), else None."""
    match = TYPING.search(before_cursor)
    return match.group("path") if match else None


def attach(root: Path, text: str) -> Attachments:
    """What the mentions in `text` attach in workspace `root` (see the module docstring). Reads
    files: blocking. Never raises."""
    ws = Workspace(root)
    attached: list[Attached] = []
    problems: list[str] = []
    total = 0
    for mention in mentions(text)[:MAX_MENTIONS]:
        shown = one_line(shown_name(mention), 80)
        try:
            found = _attachment(ws, mention)
        except WorkspaceError as exc:
            problems.append(f"@{shown} not attached: {exc}")
            continue
        except OSError as exc:  # never raised: an unreadable file is not attached, in one line
            problems.append(f"@{shown} not attached: {exc.strerror or exc}")
            continue
        if found is None:
            if "/" in mention or "." in mention.rstrip(TRAILING):
                problems.append(f"@{shown} not attached: no such file or folder in the workspace")
            continue
        if any(a.path == found.path for a in attached):
            continue
        size = len(found.block()) + 2
        if total + size > ATTACH_MAX_CHARS:
            problems.append(
                f"@{shown} not attached: a prompt's attachments stop at {ATTACH_MAX_CHARS:,} characters "
                f"(this one would make {total + size:,})"
            )
            continue
        total += size
        attached.append(found)
    if len(mentions(text)) > MAX_MENTIONS:
        problems.append(f"only the first {plural(MAX_MENTIONS, 'mention')} are attached")
    return Attachments(tuple(attached), tuple(problems))


def _attachment(ws: Workspace, mention: str) -> Attached | None:
    """The attachment `mention` names, None when it names nothing; raises `WorkspaceError` when it
    is refused (outside the workspace, unreadable)."""
    candidates = [mention]
    if (bare := mention.rstrip(TRAILING)) and bare != mention:
        candidates.append(bare)
    refused: WorkspaceError | None = None
    for candidate in candidates:
        try:
            real = ws.resolve(candidate)
        except WorkspaceError as exc:
            refused = refused or exc
            continue
        if real.is_dir():
            return Attached(mention, _rel(ws, real, folder=True), "folder", ws.list_dir(candidate))
        if real.exists():
            return Attached(mention, _rel(ws, real), "file", ws.read_file(candidate))
    if refused is not None:
        raise refused
    return None


def _rel(ws: Workspace, real: Path, *, folder: bool = False) -> str:
    rel = ws.relative(real)
    return f"{rel}/" if folder and rel != "." else rel


def complete_paths(
    root: Path, fragment: str, limit: int = COMPLETE_MAX, *, index: list[str] | None = None
) -> list[str]:
    """Workspace paths for a mention typed as `fragment`: folders end in `/`. First the entries of
    the folder it names whose names start with its last part (hidden ones only when that part
    starts with `.`), then — for a fragment with no `/` — paths anywhere below holding it, from
    `index` (`walk_index(root)`, kept while one mention is typed) or a walk now. Refused fragments
    (`..`, absolute, `~`, a symlink out) complete to nothing. Never raises."""
    if fragment.startswith(("/", "~")) or ".." in fragment.split("/"):
        return []
    ws = Workspace(root)
    folder, _, stem = fragment.rpartition("/")
    try:
        base = ws.resolve(folder or ".")
    except WorkspaceError:
        return []
    found = _children(ws, base, stem)
    if "/" not in fragment and stem:
        low = stem.lower()
        below = [p for p in (index if index is not None else walk_index(root)) if low in p.lower()]
        found += [p for p in _shortest(below, limit + len(found)) if p not in found]
    return found[:limit]


def _children(ws: Workspace, base: Path, stem: str) -> list[str]:
    try:
        entries = sorted(os.scandir(base), key=lambda e: e.name.lower())
    except OSError:
        return []
    folders: list[str] = []
    files: list[str] = []
    for entry in entries:
        name = entry.name
        if not name.lower().startswith(stem.lower()) or _UNWRITABLE.search(name):
            continue
        if name.startswith(".") and not stem.startswith("."):
            continue
        try:
            real = Path(entry.path).resolve()
        except (OSError, RuntimeError):  # RuntimeError: a symlink loop
            continue
        if not (real == ws.root or real.is_relative_to(ws.root)):
            continue  # a symlink leading out: not offered, as read_file would refuse it
        rel = Path(entry.path).relative_to(ws.root).as_posix()
        if real.is_dir():
            if not skipped_dir(name) or stem.startswith("."):
                folders.append(rel + "/")
        else:
            files.append(rel)
    return folders + files


def walk_index(root: Path) -> list[str]:
    """Every path below workspace `root` a mention may name (folders end in `/`), breadth first,
    each folder's entries by name: the walk prunes as `search_text`'s does (`skipped_dir`), leaves
    out hidden names, names no mention can spell and symlinks leading out (a link's folder is listed,
    not entered), and stops after `WALK_MAX_ENTRIES` entries. Never raises."""
    ws = Workspace(root)
    paths: list[str] = []
    seen = 0
    folders = [(ws.root, "")]
    while folders:
        folder, prefix = folders.pop(0)
        try:
            with os.scandir(folder) as listing:
                entries = sorted(listing, key=lambda e: e.name)
        except OSError:
            continue
        for entry in entries:
            seen += 1
            if seen > WALK_MAX_ENTRIES:
                return paths
            name = entry.name
            if name.startswith(".") or _UNWRITABLE.search(name):
                continue
            try:
                link = entry.is_symlink()
                is_dir = entry.is_dir()  # follows a link
            except OSError:
                continue
            if link and not _inside(ws, Path(entry.path)):
                continue
            if is_dir:
                if skipped_dir(name):
                    continue
                paths.append(f"{prefix}{name}/")
                if not link:
                    folders.append((Path(entry.path), f"{prefix}{name}/"))
            else:
                paths.append(prefix + name)
    return paths


def _inside(ws: Workspace, path: Path) -> bool:
    try:
        return path.resolve().is_relative_to(ws.root)
    except (OSError, RuntimeError):  # RuntimeError: a symlink loop
        return False


def _shortest(paths: list[str], limit: int) -> list[str]:
    return sorted(paths, key=lambda p: (p.count("/") - p.endswith("/"), len(p), p))[:limit]

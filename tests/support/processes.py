"""Finding the real processes a test started, in `/proc` (Linux): by working directory, by command
line, by parent; whether one still lives; killing what a failing run left behind, by pid."""

from __future__ import annotations

import os
import signal
from pathlib import Path


def _state(pid: int | str) -> str | None:
    """The one-letter state of `pid` (`Z`: a zombie), None once it is gone."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0]
    except (OSError, IndexError):
        return None


def alive(pid: int) -> bool:
    """Whether `pid` runs: a zombie counts as gone (it has ended, only its status waits)."""
    return _state(pid) not in (None, "Z")


def processes_in(directory: Path) -> list[int]:
    """The pids of live processes whose working directory is `directory` (a command run there and
    its children; a zombie has none)."""
    target = directory.resolve()
    pids = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if Path(os.readlink(entry / "cwd")) == target:
                    pids.append(int(entry.name))
            except OSError:
                continue
    return pids


def running(marker: str, *, anywhere: bool = False) -> list[int]:
    """The pids of live processes whose command line (arguments joined by spaces, a space after the
    last) starts with `marker` — the program itself, not a shell whose script names it — or, with
    `anywhere`, holds it."""
    pids = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        found = marker in cmdline if anywhere else cmdline.startswith(marker)
        if found and alive(int(entry.name)):
            pids.append(int(entry.name))
    return pids


def children(pid: int) -> list[int]:
    """The pids of `pid`'s child processes (started by any of its threads), oldest thread first."""
    found: list[int] = []
    for task in sorted(Path(f"/proc/{pid}/task").iterdir(), key=lambda task: int(task.name)):
        try:
            found += [int(child) for child in (task / "children").read_text().split()]
        except OSError:  # the thread has ended
            continue
    return found


def kill_running(*markers: str) -> None:
    """SIGKILL every live process `running(marker)` finds: what a failing test left behind, found
    by a command line no other test uses (never by a broad name)."""
    for marker in markers:
        for pid in running(marker):
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                continue

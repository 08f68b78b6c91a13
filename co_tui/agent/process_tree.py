"""Every process a command started, found and killed: the shell's background children included.

A command (`run_shell`, a `!command`, a compaction hook) runs in its own session, so killing its
process group kills what stays in that group. A background child escapes the group with `setsid`
(`setsid sleep 40 &`), and one that let go of the output (`sleep 104 >/dev/null 2>&1 &`) was never
waited for: both outlived the command. So each run is tagged: its environment carries
`CO_TUI_RUN=<token>`, which every descendant inherits (through `setsid`, `nohup`, double forks), and
`kill_run` kills every process of this user whose environment holds that token (read from
`/proc/<pid>/environ`, Linux), along with the group. Runs still alive when co-tui exits are killed
then (`atexit`).

Limits (docs/configuration.md, "Shell commands"): a descendant started with a cleared environment
(`env -i`, `sudo`, a daemon that rewrites its own) carries no tag; without `/proc` (macOS, BSD)
only the process group is killed.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import secrets
import signal
import sys
import threading
import time
from collections.abc import Mapping

__all__ = ["RUN_ENV", "kill_run", "kill_run_soon", "new_run", "run_env", "tagged_pids"]

RUN_ENV = "CO_TUI_RUN"

_live: dict[str, int] = {}  # token -> the run's process group, until `kill_run` or exit


def new_run() -> str:
    """A fresh token for one command's processes (kept until `kill_run`, killed at exit)."""
    token = secrets.token_hex(8)
    _live[token] = 0
    return token


def run_env(token: str, base: Mapping[str, str] | None = None) -> dict[str, str]:
    """`base` (this process's environment by default) with the run's tag added."""
    env = dict(os.environ if base is None else base)
    env[RUN_ENV] = token
    return env


def started(token: str, pgid: int) -> None:
    """Record the process group the run's command leads (killed with it at exit)."""
    if token in _live:
        _live[token] = pgid


def tagged_pids(token: str) -> list[int]:
    """The pids of this user's processes whose environment carries `token` ([] without `/proc`)."""
    if not sys.platform.startswith("linux"):
        return []
    needle = f"\0{RUN_ENV}={token}\0".encode()
    me = os.getpid()
    found = []
    with contextlib.suppress(OSError):
        for entry in os.scandir("/proc"):
            if not entry.name.isdigit() or int(entry.name) == me:
                continue
            try:
                with open(f"/proc/{entry.name}/environ", "rb") as file:
                    environ = file.read()
            except OSError:  # gone, or another user's
                continue
            if needle in b"\0" + environ + b"\0":
                found.append(int(entry.name))
    return found


def kill_run(token: str, pgid: int | None = None) -> int:
    """SIGKILL the run's process group (`pgid`, or the one recorded) and every process tagged with
    `token`, until none is left (a few rounds: one may fork while the others die). Returns how many
    tagged processes were killed. Never raises."""
    group = pgid if pgid is not None else _live.get(token, 0)
    _live.pop(token, None)
    if group > 0:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(group, signal.SIGKILL)
        # A fork the leader was making as it was killed shows up once the leader is dead: scan then.
        for _ in range(200):
            if not _alive(group):
                break
            time.sleep(0.001)
    killed: set[int] = set()
    for _ in range(5):
        pids = [pid for pid in tagged_pids(token) if pid not in killed or _alive(pid)]
        if not pids:
            break
        for pid in pids:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
            killed.add(pid)
    return len(killed)


def kill_run_soon(token: str, pgid: int) -> None:
    """`kill_run` for an event loop: the group is killed now, the scan of `/proc` (tens of ms on a
    busy host) runs in a daemon thread, so a command's end never stalls the UI."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signal.SIGKILL)
    threading.Thread(target=kill_run, args=(token, pgid), name=f"kill-run-{token}", daemon=True).start()


def _alive(pid: int) -> bool:
    """Whether `pid` still runs (a killed process not yet reaped is a zombie: dead)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as file:
            return file.read().rpartition(b")")[2].split()[0] != b"Z"
    except (OSError, IndexError):
        return False


@atexit.register
def _kill_all_runs() -> None:
    """co-tui is exiting (Ctrl+Q, a closed terminal, the end of print mode): no command outlives it."""
    for token in list(_live):
        kill_run(token)

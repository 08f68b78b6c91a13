"""One writer per session: a lock a process holds while it has a session open.

Two processes continuing one session (two `co-tui -p … --continue`, or a TUI and a print-mode run)
would each save their own context over the other's: the transcript keeps both turns, but the context
the next request is sent keeps only one of them, silently. So a process claims the session when it
opens (or creates) it and holds the claim until it lets go of it; a second process is refused with
one line naming the holder, before it runs anything (docs/architecture.md, "Sessions on disk").

The claim is an advisory `flock` on `<data_dir>/locks/<session id>.lock`: the kernel drops it when
the process ends, even on SIGKILL, so a crash never leaves a session locked. Within one process a
session may be claimed again (the TUI reopening a session it showed before): claims are counted.
Where locks cannot be taken (no `fcntl`, a read-only data dir) sessions are not locked, and the
store's revision check still refuses a save over another process's (`StoreConflict`).
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

from co_tui.store.errors import StoreLocked

try:
    import fcntl
except ImportError:  # pragma: no cover - not on POSIX
    fcntl = None  # type: ignore[assignment]

_held: dict[Path, list[int]] = {}  # lock file -> [fd, claims in this process]
_guard = threading.Lock()


class SessionBusy(StoreLocked):
    """The session is open in another co-tui process. `str()` is one line for the user."""


class SessionClaim:
    """This process's claim on one session; `release()` (idempotent) lets go of it."""

    def __init__(self, path: Path | None) -> None:
        self._path = path

    def release(self) -> None:
        """Drop this claim; the lock itself goes when the last claim in this process is released."""
        path, self._path = self._path, None
        if path is None:
            return
        with _guard:
            entry = _held.get(path)
            if entry is None:
                return
            entry[1] -= 1
            if entry[1] <= 0:
                del _held[path]
                os.close(entry[0])  # closing the descriptor drops the flock


OPEN_ADVICE = "quit co-tui there (or switch it to another session) first, or start a new session here"
"""What to do about a session open elsewhere: an interactive co-tui does not finish by itself."""


def claim_session(data_dir: Path, session_id: str, *, advice: str = OPEN_ADVICE) -> SessionClaim:
    """Claim `session_id` for this process. Raises `SessionBusy` if another process holds it: one
    line naming the holder, then `advice`."""
    if fcntl is None:
        return SessionClaim(None)
    path = Path(data_dir) / "locks" / f"{session_id}.lock"
    with _guard:
        entry = _held.get(path)
        if entry is not None:
            entry[1] += 1
            return SessionClaim(path)
        try:
            path.parent.mkdir(mode=0o700, exist_ok=True)
            fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
        except OSError:
            return SessionClaim(None)  # read-only data dir: nothing can be saved to conflict with
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            holder = _holder(fd)
            os.close(fd)
            raise SessionBusy(f"session {session_id[:8]} is open in another co-tui process{holder}: {advice}") from None
        os.ftruncate(fd, 0)
        os.write(fd, str(os.getpid()).encode())
        _held[path] = [fd, 1]
        return SessionClaim(path)


def busy_elsewhere(data_dir: Path, session_id: str, *, advice: str = OPEN_ADVICE) -> str | None:
    """The one line `claim_session` would refuse with now (another process has `session_id` open),
    or None. Takes the claim and lets go at once: for asking before a question (a delete) that the
    claim would otherwise refuse after it was answered."""
    try:
        claim_session(data_dir, session_id, advice=advice).release()
    except SessionBusy as exc:
        return str(exc)
    return None


def _holder(fd: int) -> str:
    try:
        pid = os.pread(fd, 32, 0).decode().strip()
    except (OSError, UnicodeDecodeError):
        return ""
    return f" (pid {pid})" if pid.isdigit() else ""

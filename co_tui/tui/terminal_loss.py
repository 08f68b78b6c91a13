"""Closing the terminal never leaves co-tui running: Textual's Linux driver, made to outlive its tty.

When a terminal goes away (its window closed, `tmux kill-session`), the kernel sends the session
leader SIGHUP and SIGCONT, and every write to the tty fails with EIO. Two things in Textual's driver
then froze co-tui for good, its pty gone, SIGTERM ignored, the session lock held (issue 33):

- Its SIGCONT handler resumes application mode whether or not the app was suspended: the hangup's
  SIGCONT started a second writer thread on the dead tty (the first one left waiting in
  `Queue.get`), which died on its first write.
- A writer thread that died leaves its bounded queue (30 writes) with no reader: the 31st write, or
  the stop marker `close()` puts, blocks the main thread in `Queue.put` forever. The event loop
  stops with it, so SIGTERM and SIGHUP, handled on the loop, are never acted on.

`surviving_hangup(driver_class)` returns a subclass that closes both: its output file drops what it
cannot write (the writer never dies, so its queue always drains) and asks the app to quit, as
SIGHUP does (the running turn is kept), at the first failed write; SIGCONT resumes only a suspend
the driver made; and both job-control handlers do their work on the event loop, not inside
whatever the main thread was running when the signal came (a handler that writes while the main
thread holds the output queue's lock would wait on that lock for ever).
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable
from functools import cache
from typing import IO, TYPE_CHECKING, Any

if TYPE_CHECKING:
    from textual.driver import Driver


class TerminalOutput:  # duck-types the `IO[str]` Textual's WriterThread uses: write, flush, fileno, isatty
    """The file Textual's writer thread writes to: `file` until a write or flush fails (the terminal
    is gone: EIO), then nothing, with `on_lost` called once, from the thread that saw the failure."""

    def __init__(self, file: IO[str], on_lost: Callable[[], None]) -> None:
        self._file = file
        self._on_lost = on_lost
        self._lock = threading.Lock()
        self.lost = False

    def write(self, text: str) -> None:
        """Write `text`, or drop it when the terminal is gone."""
        if not self.lost:
            try:
                self._file.write(text)
            except (OSError, ValueError):  # ValueError: the file was closed
                self._lose()

    def flush(self) -> None:
        """Flush, unless the terminal is gone."""
        if not self.lost:
            try:
                self._file.flush()
            except (OSError, ValueError):
                self._lose()

    def fileno(self) -> int:
        """The terminal's file descriptor."""
        return self._file.fileno()

    def isatty(self) -> bool:
        """Whether the file is a terminal (False once it is gone)."""
        return not self.lost and self._file.isatty()

    def _lose(self) -> None:
        with self._lock:
            if self.lost:
                return
            self.lost = True
        self._on_lost()


@cache
def surviving_hangup(driver_class: type[Driver]) -> type[Driver]:
    """A subclass of Textual's Linux driver `driver_class` that outlives its terminal (see the module
    docstring); made once per class. A driver without job-control handlers (Windows, headless) comes
    back unchanged."""
    if not hasattr(driver_class, "_sigcont_application"):
        return driver_class
    base: Any = driver_class  # the Linux driver's private parts are used below (test_textual_internals.py)

    class HangupSafeDriver(base):
        # Textual's Driver keeps the app's event loop as `_loop` (it is created on it).
        _file: Any  # the Linux driver's output file; here a TerminalOutput around it

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self._suspended_by_signal = False
            self._file = TerminalOutput(self._file, self._terminal_lost)

        def _terminal_lost(self) -> None:
            """On the writer thread: quit as SIGHUP does (the app's `action_quit` keeps a running turn)."""
            app = self._app
            self._on_loop(lambda: app.call_later(app.action_quit))

        def _on_loop(self, work: Callable[[], None]) -> None:
            with contextlib.suppress(RuntimeError):  # the loop is closed: co-tui is ending anyway
                self._loop.call_soon_threadsafe(work)

        def _sigtstp_application(self, *args: Any) -> None:
            self._suspended_by_signal = self._auto_restart  # Textual suspends only then
            self._on_loop(lambda: base._sigtstp_application(self, *args))

        def _sigcont_application(self, *args: Any) -> None:
            # A hangup sends SIGCONT too: resuming then started a second writer on the dead tty.
            if not self._suspended_by_signal:
                return
            self._suspended_by_signal = False
            self._on_loop(lambda: base._sigcont_application(self, *args))

    HangupSafeDriver.__name__ = HangupSafeDriver.__qualname__ = f"HangupSafe{driver_class.__name__}"
    return HangupSafeDriver


__all__ = ["TerminalOutput", "surviving_hangup"]

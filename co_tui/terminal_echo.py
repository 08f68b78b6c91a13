"""The terminal's echo, off from the moment co-tui starts until it ends.

Keys typed before the TUI's first frame (while Python starts and imports) were echoed by the
terminal, still in line mode, onto the shell's screen: after quitting, `hello there fast typing`
stayed there, with the resume line glued to it. The TUI takes those keys into its prompt anyway
(tui/early_input.py), so the echo is only noise. `echo_off` turns it off first thing (the line mode
stays: Textual switches to raw mode itself, without flushing what is queued), and its restore puts
the terminal back as it was. Only for a terminal on stdin, and only in the foreground (changing a
terminal from the background would stop the process with SIGTTOU).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable

__all__ = ["echo_off"]


def _nothing() -> None:
    return None


def echo_off(fd: int | None = None) -> Callable[[], None]:
    """Turn echo off on the terminal `fd` (default: stdin) now; return the function that restores
    its settings (call it once, at exit). A no-op, returning a no-op, when `fd` is no terminal, is
    in the background, or has no termios."""
    try:
        import termios
    except ImportError:  # pragma: no cover - not on POSIX
        return _nothing
    try:
        fd = sys.stdin.fileno() if fd is None else fd
        if not os.isatty(fd) or os.tcgetpgrp(fd) != os.getpgrp():
            return _nothing
        before = termios.tcgetattr(fd)
        quiet = list(before)
        quiet[3] &= ~termios.ECHO
        termios.tcsetattr(fd, termios.TCSANOW, quiet)
    except (OSError, ValueError, termios.error):  # a closed or odd stdin: leave it be
        return _nothing

    def restore() -> None:
        try:
            termios.tcsetattr(fd, termios.TCSANOW, before)
        except (OSError, termios.error):
            pass

    return restore

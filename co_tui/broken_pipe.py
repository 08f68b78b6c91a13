"""Standard output closed by its reader (`co-tui --list-sessions | head -3`): exit quietly.

Python ignores SIGPIPE, so a write to a closed pipe raises `BrokenPipeError`, and the final flush
at exit prints a second one. Unix tools die of SIGPIPE instead, silently, and the shell reports
status 128 + 13; co-tui exits with that status and nothing on stderr.
"""

from __future__ import annotations

import os
import signal
import sys

EXIT_BROKEN_PIPE = 128 + signal.SIGPIPE
"""141: the status a shell reports for a command whose output pipe was closed."""


def discard_stdout() -> int:
    """Point file descriptor 1 at /dev/null, so output still buffered (and Python's flush at exit)
    goes nowhere instead of raising again. Returns `EXIT_BROKEN_PIPE`."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):  # no real stdout: nothing left to flush into it
        pass
    return EXIT_BROKEN_PIPE

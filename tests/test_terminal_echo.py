"""The terminal's echo is off while co-tui runs (issue 43 item 12): keys typed before the first
frame were echoed onto the shell's screen and stayed there after exit. A real pseudo-terminal."""

from __future__ import annotations

import os
import sys
import termios

import pytest

from co_tui.terminal_echo import echo_off

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="termios")


def _echo(fd: int) -> bool:
    return bool(termios.tcgetattr(fd)[3] & termios.ECHO)


def test_echo_off_then_restored_on_a_terminal_in_the_foreground() -> None:
    leader, follower = os.openpty()
    pid = os.fork()
    if pid == 0:  # a child in a session of its own, the pty its controlling terminal, in the foreground
        try:
            os.setsid()
            os.close(os.open(os.ttyname(follower), os.O_RDWR))  # acquire it as the controlling terminal
            before = _echo(follower)
            restore = echo_off(follower)
            off = not _echo(follower) and bool(termios.tcgetattr(follower)[3] & termios.ICANON)
            restore()
            os._exit(0 if before and off and _echo(follower) else 1)
        except BaseException:
            os._exit(2)
    _, status = os.waitpid(pid, 0)
    os.close(leader)
    os.close(follower)
    assert os.waitstatus_to_exitcode(status) == 0, "echo on, off (line mode kept), on again"


def test_not_a_terminal_is_left_alone(tmp_path) -> None:
    with open(tmp_path / "f", "w") as f:
        restore = echo_off(f.fileno())
        restore()  # a no-op, no error


def test_a_terminal_from_the_background_is_left_alone() -> None:
    """Not the terminal's foreground process group (this test's pty is no one's controlling
    terminal): nothing changes, so no SIGTTOU could stop co-tui started with `&`."""
    leader, follower = os.openpty()
    try:
        restore = echo_off(follower)
        assert _echo(follower)
        restore()
    finally:
        os.close(leader)
        os.close(follower)

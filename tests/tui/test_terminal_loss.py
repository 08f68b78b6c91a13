"""tui/terminal_loss.py without a terminal: a dead output never blocks Textual's writer queue, the
loss is reported once, and a SIGCONT the driver did not ask for resumes nothing. The real
terminal cases (tmux killed at first paint, ready, mid-stream, with a dialog) are in
test_terminal_closed.py."""

from __future__ import annotations

import io
import signal
import threading

import pytest
from pilot_helpers import poll_until
from textual.drivers._writer_thread import MAX_QUEUED_WRITES, WriterThread

from co_tui.tui.terminal_loss import TerminalOutput, surviving_hangup


class DeadTerminal(io.StringIO):
    """A tty after hangup: every write fails with EIO once `hang_up` is set."""

    def __init__(self) -> None:
        super().__init__()
        self.hang_up = False

    def write(self, text: str) -> int:
        if self.hang_up:
            raise OSError(5, "Input/output error")
        return super().write(text)

    def isatty(self) -> bool:
        return True


def test_a_dead_terminal_never_blocks_the_writer_queue() -> None:
    terminal, losses = DeadTerminal(), []
    output = TerminalOutput(terminal, lambda: losses.append(threading.current_thread().name))
    writer = WriterThread(output)  # type: ignore[arg-type]
    writer.start()
    writer.write("first frame")
    poll_until(lambda: terminal.getvalue() == "first frame", "the first frame written")
    terminal.hang_up = True
    for n in range(MAX_QUEUED_WRITES * 3):  # with Textual's own file the writer died: the 31st put blocked
        writer.write(f"frame {n}")
    stopping = threading.Thread(target=writer.stop, daemon=True)
    stopping.start()
    poll_until(lambda: not stopping.is_alive(), "the writer to stop", timeout=30)
    assert output.lost and losses == ["textual-output"], "reported once, from the writer thread"
    assert terminal.getvalue() == "first frame" and not output.isatty()


def test_a_closed_file_counts_as_a_lost_terminal() -> None:
    terminal, losses = io.StringIO(), []
    output = TerminalOutput(terminal, lambda: losses.append(1))
    terminal.close()
    output.write("x")
    output.flush()
    assert output.lost and losses == [1]


@pytest.fixture
def job_control_handlers():
    saved = signal.getsignal(signal.SIGTSTP), signal.getsignal(signal.SIGCONT)
    yield
    signal.signal(signal.SIGTSTP, saved[0])
    signal.signal(signal.SIGCONT, saved[1])


async def test_sigcont_without_a_suspend_resumes_nothing(job_control_handlers) -> None:
    # The kernel sends SIGHUP and SIGCONT when a terminal closes. Textual resumed application mode on
    # any SIGCONT: a second writer thread on the dead tty.
    from textual.app import App
    from textual.drivers.linux_driver import LinuxDriver

    resumed: list[bool] = []

    class Recording(LinuxDriver):
        def resume_application_mode(self) -> None:
            resumed.append(True)

    driver = surviving_hangup(Recording)(App())
    assert signal.getsignal(signal.SIGCONT) == driver._sigcont_application
    driver._sigcont_application(signal.SIGCONT, None)
    assert resumed == []
    assert isinstance(driver._file, TerminalOutput)


def test_a_driver_without_job_control_is_left_alone() -> None:
    from textual.drivers.headless_driver import HeadlessDriver

    assert surviving_hangup(HeadlessDriver) is HeadlessDriver

"""Closing the terminal ends co-tui, at any moment: the real `co-tui` in a real terminal (tmux), run
as a terminal window runs it (the pane's own process, the session leader), its tmux session killed
at first paint, once ready, mid-stream and with a dialog open. Each time the process must be gone
and its session lock free: the next `--continue` works (issue 33).

A co-tui with no controlling terminal (started by `setsid`, or any launcher that detaches it) gets
no signal at all when the terminal closes: it must notice the dead terminal by itself.

Before the fix, the hangup's SIGCONT made Textual start a second writer thread on the dead tty; it
died on its first write, and once 30 writes had queued up behind it the main thread blocked in
`Queue.put` for good, SIGTERM ignored (tui/terminal_loss.py).
"""

from __future__ import annotations

import fcntl
import os
import shutil
import signal
from pathlib import Path
from typing import Any

import pytest
from cli_process import call_co_tui
from pilot_helpers import Tmux, poll_until
from support.processes import alive, children

from co_tui.store.session_store import SessionStore

ROOT = Path(__file__).resolve().parents[2]
CO_TUI = ROOT / ".venv" / "bin" / "co-tui"

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("tmux") is None or not CO_TUI.exists(), reason="needs tmux and the venv's co-tui"),
]

GONE_WITHIN_S = 30  # a bound for the condition wait, far above the ~0.3 s an exit takes


class Run:
    """One co-tui in a tmux session `t`, as the pane's own process (`detached`: the child of
    `setsid -w`, without a controlling terminal)."""

    def __init__(self, tmp_path: Path, *, detached: bool = False, **env: str) -> None:
        self.ws, self.data, self.config = tmp_path / "ws", tmp_path / "data", tmp_path / "config.toml"
        self.ws.mkdir()
        self.home = tmp_path
        self.tmux = Tmux(f"closed-{tmp_path.name}")
        self.tmux.start_co_tui(
            CO_TUI, tmp_path, data=self.data, config=self.config, cwd=self.ws, leader=True, detached=detached, **env
        )
        self.pid = int(self.tmux("display", "-p", "-t", "t", "#{pane_pid}").strip())
        if detached:  # co-tui is setsid's child
            poll_until(lambda: children(self.pid), "setsid to start co-tui")
            self.pid = children(self.pid)[0]

    def close_terminal(self) -> None:
        self.screen = self.tmux.pane()
        self.tmux("kill-session", "-t", "t")

    def assert_gone_and_unlocked(self) -> None:
        poll_until(
            lambda: not alive(self.pid),  # a zombie (its parent, the tmux server, is gone) counts as gone
            lambda: f"co-tui (pid {self.pid}) to exit after its terminal closed; screen then:\n{self.screen}",
            timeout=GONE_WITHIN_S,
        )
        for lock in sorted((self.data / "locks").glob("*.lock")):
            with lock.open("a") as handle:  # the flock a live co-tui holds would refuse this
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)

    def continue_in_print_mode(self) -> str:
        env = {"HOME": str(self.home), "CO_TUI_DATA_DIR": str(self.data), "CO_TUI_CONFIG_FILE": str(self.config)}
        proc = call_co_tui("--continue", "-p", "hello again", cwd=self.ws, env=env)  # the next run: in-process
        assert proc.returncode == 0, proc.stderr
        return proc.stdout

    def stop(self) -> None:
        if alive(self.pid):  # the test failed: leave nothing running
            os.kill(self.pid, signal.SIGKILL)
        self.tmux("kill-server")


@pytest.fixture
def run(tmp_path: Path):
    runs: list[Run] = []

    def start(**env: Any) -> Run:
        runs.append(Run(tmp_path, **env))
        return runs[-1]

    yield start
    for r in runs:
        r.stop()


def test_closed_at_first_paint(run) -> None:
    co_tui = run()
    co_tui.tmux.wait_for("starting…")  # the first frame: the session is not ready yet
    co_tui.close_terminal()
    co_tui.assert_gone_and_unlocked()


def test_closed_once_ready(run) -> None:
    co_tui = run()
    co_tui.tmux.wait_for("New conversation in ws")
    co_tui.close_terminal()
    co_tui.assert_gone_and_unlocked()


def test_closed_mid_stream_keeps_the_turn(run) -> None:
    co_tui = run(CO_TUI_OFFLINE_DELAY="0.05")
    co_tui.tmux.wait_for("New conversation in ws")
    co_tui.tmux.submit("tell me a long story")
    co_tui.tmux.wait_for("offline stand-in")  # the answer is streaming
    co_tui.close_terminal()
    co_tui.assert_gone_and_unlocked()
    with SessionStore.open(co_tui.data) as store:
        [meta] = store.list_sessions()
        loaded = store.load(meta.id)
    prompts = [p.content for m in loaded.transcript for p in m.parts if p.part_kind == "user-prompt"]
    assert prompts == ["tell me a long story"], "the turn was saved before co-tui ended"
    assert co_tui.continue_in_print_mode().strip()


def test_closed_with_a_dialog_open(run) -> None:
    co_tui = run(CO_TUI_ALLOW_SHELL="1")
    co_tui.tmux.wait_for("New conversation in ws")
    co_tui.tmux.submit("run ls -la")
    co_tui.tmux.wait_for("Deny (n)")  # the approval dialog waits for an answer
    co_tui.close_terminal()
    co_tui.assert_gone_and_unlocked()
    assert co_tui.continue_in_print_mode().strip()


def test_closed_without_a_controlling_terminal(run) -> None:
    # No SIGHUP comes: before the fix the writer thread died at the first write, 30 frames later the
    # main thread blocked for good and SIGTERM was ignored, every time. Now the failed write quits.
    co_tui = run(detached=True)
    co_tui.tmux.wait_for("New conversation in ws")
    co_tui.close_terminal()
    co_tui.assert_gone_and_unlocked()

"""What a new user met walking through co-tui in a real terminal (tmux): the real `co-tui`, a real
SQLite file. Each test is a problem found that way, fixed."""

from __future__ import annotations

import contextlib
import os
import shutil
import sqlite3
from pathlib import Path

import pytest
from cli_process import call_co_tui
from pilot_helpers import Tmux, poll_until

ROOT = Path(__file__).resolve().parents[2]
CO_TUI = ROOT / ".venv" / "bin" / "co-tui"

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("tmux") is None or not CO_TUI.exists(), reason="needs tmux and the venv's co-tui"),
]


@pytest.fixture
def walk(tmp_path: Path):
    """(start, tmux, ws, env): `start(*args)` runs `co-tui args…` in a 100x30 tmux pane in the
    workspace `ws`, its data and config under `tmp_path` (`env`: the same for a print-mode run);
    the exit status lands in `tmp_path/exit-code`, and the pane stays to read what it printed."""
    ws = tmp_path / "ws"
    ws.mkdir()
    env = {"CO_TUI_DATA_DIR": str(tmp_path / "data"), "CO_TUI_CONFIG_FILE": str(tmp_path / "config.toml")}
    tmux = Tmux(f"walk-{tmp_path.name}")

    def start(*args: str) -> None:
        fixed = [f"PATH={os.environ['PATH']}", f"HOME={tmp_path}", "LANG=C.UTF-8", "TERM=tmux-256color"]
        command = " ".join(["env", "-i", *fixed, *(f"{k}={v}" for k, v in env.items()), str(CO_TUI), *args])
        tmux(
            "new-session",
            "-d",
            "-s",
            "t",
            "-x",
            "100",
            "-y",
            "30",
            "-c",
            str(ws),
            f"{command}; echo $? > ../exit-code; sleep 600",
        )

    try:
        yield start, tmux, ws, env
    finally:
        tmux("kill-server")


def test_a_bare_resume_opens_the_session_picker(walk) -> None:
    """`co-tui --resume` without an id started a new conversation: README says it lets you pick one."""
    start, tmux, ws, env = walk
    saved = call_co_tui("-p", "hello from the walk", cwd=ws, env=env)  # the saved session: in-process
    assert saved.returncode == 0, saved.stderr
    start("--resume")
    tmux.wait_for("Sessions in ws")  # the picker, filled in after it opens:
    tmux.wait_for("hello from the walk")
    tmux("send-keys", "-t", "t", "Enter")
    tmux.wait_for("Resumed “hello from the walk”")
    tmux("send-keys", "-t", "t", "C-q")
    poll_until((ws.parent / "exit-code").exists, lambda: f"co-tui to exit:\n{tmux.pane()}")


def _damage(db: Path) -> None:
    """Scribble over every table's and index's root page; the schema stays readable (it spans
    several pages, and a database whose schema cannot be read is refused at start, in one line), so
    the database still opens and the first save fails."""
    with contextlib.closing(sqlite3.connect(db)) as conn:
        size = conn.execute("PRAGMA page_size").fetchone()[0]
        roots = [row[0] for row in conn.execute("SELECT rootpage FROM sqlite_master WHERE rootpage > 1")]
    data = bytearray(db.read_bytes())
    for root in roots:
        start = (root - 1) * size
        for i in range(start, start + size, 7):
            data[i] = 0x5A
    db.write_bytes(bytes(data))


def test_quitting_after_a_failed_save_writes_a_rescue_copy_not_a_resume_hint(walk) -> None:
    """With a damaged database the chat said "the conversation is kept in memory", then quitting
    printed `resume with: co-tui --resume ID` for a session the database never got, and the
    conversation was gone. Nothing is lost: it goes to a rescue copy, and the line says where; the
    exit status says the database does not hold it (issue 40, item 12)."""
    start, tmux, ws, env = walk
    saved = call_co_tui("-p", "hello", cwd=ws, env=env)  # the saved session: in-process
    assert saved.returncode == 0, saved.stderr
    data = Path(env["CO_TUI_DATA_DIR"])
    _damage(data / "sessions.db")
    start()
    tmux.wait_for("Ask anything")
    tmux.submit("a prompt worth keeping")
    tmux.wait_for("kept in memory")
    tmux("send-keys", "-t", "t", "C-q")
    poll_until((ws.parent / "exit-code").exists, lambda: f"co-tui to exit:\n{tmux.pane()}")
    screen = tmux("capture-pane", "-p", "-J", "-t", "t")  # -J: lines the terminal wrapped, joined
    assert "resume with" not in screen
    [rescued] = data.glob("rescued-*.json")
    assert f"co-tui: the conversation could not be saved to the database; it was written to {rescued}" in screen
    assert "a prompt worth keeping" in rescued.read_text()
    # the database lacks the conversation: exit 1, as print mode after a failed save (it said 0)
    assert (ws.parent / "exit-code").read_text().strip() == "1"


def test_the_inspector_of_a_long_session_reaches_its_last_row_on_ctrl_end(walk) -> None:
    """The inspector's tables add their rows a page at a time (issue 33): in a real terminal,
    Ctrl+End still goes to the last message of a 1,600-message transcript."""
    from support.long_sessions import save_long_session

    start, tmux, ws, env = walk
    os.environ.update(env)  # the store the co-tui below opens
    try:
        sid = save_long_session(400, ws.resolve())
    finally:
        for key in env:
            os.environ.pop(key, None)
    start("--resume", sid)
    tmux.wait_for("Resumed “long”")
    tmux.wait_for("OFFLINE")  # the session is ready: the inspector opens
    tmux("send-keys", "-t", "t", "F2")
    tmux.wait_for("Transcript (1600)")
    tmux("send-keys", "-t", "t", "t")
    # The tab's first page on screen, then Ctrl+End, as a person sees the tab before going to its end
    # (sent in the same burst, on a host at load ~6 the key once landed before the table took the focus).
    tmux.wait_for("read file_0.py")
    tmux("send-keys", "-t", "t", "C-End")
    tmux.wait_for("file_399.py defines handler 399.")
    tmux("send-keys", "-t", "t", "Escape", "C-q")
    poll_until((ws.parent / "exit-code").exists, lambda: f"co-tui to exit:\n{tmux.pane()}")

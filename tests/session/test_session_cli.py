"""`co-tui --list-sessions`, `--export`, `--continue`, `--resume` and crash safety, as real processes."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from store_builders import tool_turn

from co_tui.governance.events import HistoryTrimmed
from co_tui.session.store import SessionStore

ROOT = Path(__file__).resolve().parents[2]


def co_tui(*args: str, cwd: Path, data_dir: Path, env: dict[str, str] | None = None,
           timeout: int = 90) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "co_tui", *args], cwd=cwd, capture_output=True, text=True, timeout=timeout,
        stdin=subprocess.DEVNULL,  # stdin joins -p's prompt
        env={**os.environ, "CO_TUI_DATA_DIR": str(data_dir), "PYTHONPATH": str(ROOT), **(env or {})},
    )


@pytest.fixture
def seeded(data_dir: Path, tmp_path: Path) -> tuple[str, str]:
    """Two sessions in one workspace: one with a cut in its ledger, one with a damaged row."""
    with SessionStore.open(data_dir) as store:
        good = store.create_session(model="offline", workspace=tmp_path, title="explain the handlers")
        cut = HistoryTrimmed(reason="token_budget", strategy="turn_trim", dropped_messages=4, dropped_turns=1,
                             tokens_before=9000, tokens_after=5000, budget_tokens=8000)
        store.save_turn(good, new_transcript=tool_turn(0) + tool_turn(1), context=tool_turn(1),
                        new_events=[cut], tokens=5000)
        bad = store.create_session(model="offline", workspace=tmp_path, title="broken one")
        store.save_turn(bad, new_transcript=tool_turn(0), context=tool_turn(0), new_events=[])
    conn = sqlite3.connect(data_dir / "sessions.db")
    conn.execute("UPDATE transcript SET body = '{' WHERE session_id = ? AND seq = 1", (bad,))
    conn.commit()
    conn.close()
    return good, bad


def test_list_and_export(seeded: tuple[str, str], data_dir: Path, tmp_path: Path) -> None:
    good, bad = seeded
    listing = co_tui("--list-sessions", cwd=tmp_path, data_dir=data_dir)
    assert listing.returncode == 0, listing.stderr
    assert good[:8] in listing.stdout and bad[:8] in listing.stdout
    assert "explain the handlers" in listing.stdout and "broken one" in listing.stdout

    md = co_tui("--export", good[:6], "--format", "md", cwd=tmp_path, data_dir=data_dir)
    assert md.returncode == 0, md.stderr
    assert md.stdout.startswith("# explain the handlers")
    assert "> ✂ History trimmed · 4 messages (1 turn)" in md.stdout

    js = co_tui("--export", good, "--format", "json", cwd=tmp_path, data_dir=data_dir)
    assert js.returncode == 0, js.stderr
    doc = json.loads(js.stdout)
    assert len(doc["transcript"]) == 8 and doc["ledger"][0]["strategy"] == "turn_trim"


def test_damaged_session_is_one_line_and_then_flagged(seeded: tuple[str, str], data_dir: Path, tmp_path: Path) -> None:
    _good, bad = seeded
    proc = co_tui("--export", bad, cwd=tmp_path, data_dir=data_dir)
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1 and bad in proc.stderr and "Traceback" not in proc.stderr
    listing = co_tui("--list-sessions", cwd=tmp_path, data_dir=data_dir)
    assert "damaged" in listing.stdout


def test_export_unknown_id(seeded: tuple[str, str], data_dir: Path, tmp_path: Path) -> None:
    proc = co_tui("--export", "ffffffff", cwd=tmp_path, data_dir=data_dir)
    assert proc.returncode == 2 and "no session matches" in proc.stderr and proc.stderr.count("\n") == 1


def test_newer_database_is_refused_by_the_cli(data_dir: Path, tmp_path: Path) -> None:
    SessionStore.open(data_dir).close()
    conn = sqlite3.connect(data_dir / "sessions.db")
    conn.execute("PRAGMA user_version = 7")
    conn.close()
    proc = co_tui("--list-sessions", cwd=tmp_path, data_dir=data_dir)
    assert proc.returncode == 2 and "newer co-tui (schema 7)" in proc.stderr


def _turns_in(data_dir: Path) -> tuple[str, int]:
    with SessionStore.open(data_dir) as store:
        [meta] = store.list_sessions()
        loaded = store.load(meta.id)
    prompts = [m for m in loaded.transcript if m.kind == "request" and any(p.part_kind == "user-prompt" for p in m.parts)]
    return meta.id, len(prompts)


@pytest.mark.slow
def test_sigkill_mid_turn_keeps_every_completed_turn(data_dir: Path, tmp_path: Path) -> None:
    (tmp_path / "README.md").write_text("# demo\nA small project.\n")
    for prompt in ("hello", "read README.md"):
        args = ("-p", prompt) if prompt == "hello" else ("--continue", "-p", prompt)
        done = co_tui(*args, cwd=tmp_path, data_dir=data_dir)
        assert done.returncode == 0, done.stderr
    session_id, completed = _turns_in(data_dir)
    assert completed == 2

    # A third turn, streamed slowly; killed once it is visibly under way.
    proc = subprocess.Popen(
        [sys.executable, "-m", "co_tui", "--continue", "-p", "tell me a long story", "--output-format", "jsonl"],
        cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True,
        env={**os.environ, "CO_TUI_DATA_DIR": str(data_dir), "PYTHONPATH": str(ROOT), "CO_TUI_OFFLINE_DELAY": "0.2"},
    )
    assert proc.stdout is not None
    deltas = 0
    deadline = time.monotonic() + 60
    while deltas < 3 and time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        deltas += json.loads(line)["type"] == "text_delta"
    assert deltas == 3, proc.stderr.read() if proc.poll() is not None else "no streaming"
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=10)
    assert proc.returncode == -signal.SIGKILL

    conn = sqlite3.connect(data_dir / "sessions.db")
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    conn.close()
    resumed_id, kept = _turns_in(data_dir)
    # Every completed turn is there; the killed one never completed (60-odd chunks, 0.2 s apart).
    assert resumed_id == session_id and kept == completed

    # And the session goes on from there.
    after = co_tui("--resume", session_id[:8], "-p", "hello again", cwd=tmp_path, data_dir=data_dir)
    assert after.returncode == 0, after.stderr
    _same, now = _turns_in(data_dir)
    assert now == kept + 1


def test_resume_hint_only_for_a_saved_session_with_turns(tmp_path: Path) -> None:
    import asyncio

    from co_tui.config import load_settings
    from co_tui.session.commands import open_session, resume_hint

    session = open_session(load_settings(), tmp_path)
    assert resume_hint(session) is None  # nothing to come back to

    async def one_turn() -> None:
        async for _event in session.run_turn("hello"):
            pass

    asyncio.run(one_turn())
    assert resume_hint(session) == f"resume with: co-tui --resume {session.id}"
    session.store.close()
    assert resume_hint(None) is None

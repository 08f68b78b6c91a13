"""File checkpoints in the session's data: a real SQLite store, the real ChatSession and the
offline model editing files in plain words (session/file_checkpoints.py, store_checkpoints.py)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from co_tui.agent.checkpoints import FileCheckpoint, restore_plan, sha256
from co_tui.config import load_settings
from co_tui.session import migrations
from co_tui.session.chat import ChatSession
from co_tui.store.session_store import SessionStore


async def approve(request: object) -> str:
    return "once"


async def run(session: ChatSession, prompt: str) -> list:
    return [event async for event in session.run_turn(prompt)]


def results(events: list) -> list:
    return [e for e in events if e.type == "tool_result"]


async def test_every_edit_is_checkpointed_in_the_store_before_the_file_changes(data_dir: Path, tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    with SessionStore.open(data_dir) as store:
        session = ChatSession(load_settings(), workspace=ws, store=store, model="offline", ask=approve)
        await run(session, "write hello to notes.txt")
        at_second = len(session.transcript)
        await run(session, "replace hello with bye in notes.txt")
        assert (ws / "notes.txt").read_text() == "bye\n"
        saved = store.file_checkpoints(session.id)
        assert [(at, c.seq, c.path, c.before, c.tool) for at, c in saved] == [
            (1, 0, "notes.txt", None, "write_file"),
            (at_second + 1, 1, "notes.txt", b"hello\n", "edit_file"),
        ]
        assert saved[1][1].after_sha256 == sha256(b"bye\n")
        assert store.file_checkpoint_bytes(session.id) == 6
        # What a rewind to before the first prompt would do: delete the file it created.
        plan = restore_plan([c for _, c in saved], lambda p: (ws / p).read_bytes())
        assert plan.delete == ("notes.txt",) and plan.conflicts == ()
        session.release_claim()
        store.delete(session.id)
        assert store.file_checkpoints(session.id) == []


async def test_beyond_checkpoint_max_bytes_an_edit_is_refused_with_one_line(data_dir: Path, tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "big.txt").write_text("x" * 5000 + "\n")
    with SessionStore.open(data_dir) as store:
        settings = load_settings(checkpoint_max_bytes=4000)
        session = ChatSession(settings, workspace=ws, store=store, model="offline", ask=approve)
        [result] = results(await run(session, "replace x with y in big.txt"))  # not unique: refused anyway
        [result] = results(await run(session, "replace " + "x" * 5000 + " with y in big.txt"))
        assert result.is_error
        assert "over checkpoint_max_bytes (4,000)" in result.content and "\n" not in result.content
        assert (ws / "big.txt").read_text() == "x" * 5000 + "\n"
        assert store.file_checkpoints(session.id) == []
        session.release_claim()


def test_a_schema_5_database_gains_the_checkpoints_table(data_dir: Path, tmp_path: Path) -> None:
    # A database as schema 5 left it (built by its own migrations), holding one session.
    data_dir.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(data_dir / "sessions.db")
    for statements in migrations.MIGRATIONS[:5]:
        for statement in statements:
            conn.execute(statement)
    conn.execute("PRAGMA user_version = 5")
    sid = "0ld5e551011"
    conn.execute(
        "INSERT INTO sessions (id, title, created, updated, model, workspace) VALUES (?, 'old', 1, 1, 'offline', ?)",
        (sid, str(tmp_path)),
    )
    conn.commit()
    conn.close()
    with SessionStore.open(data_dir) as store:
        assert migrations.schema_version(store.conn) == migrations.SCHEMA_VERSION
        checkpoint = FileCheckpoint(
            path="a.txt", before=b"\x00binary\xff", after_sha256=sha256(b"new"), tool="edit_file"
        )
        assert store.add_file_checkpoint(sid, checkpoint, at_message=3) == 0
        [(at, back)] = store.file_checkpoints(sid)
        assert at == 3 and back.before == b"\x00binary\xff" and back.path == "a.txt"  # bytes kept exactly

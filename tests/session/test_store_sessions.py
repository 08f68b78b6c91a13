"""Listing, latest, delete, id prefixes, and private file modes."""

from __future__ import annotations

import os
import sqlite3
import stat
from pathlib import Path

import pytest
from support.builders import saved_tool_turn

from co_tui.governance.events import HistoryTrimmed
from co_tui.store.errors import StoreError
from co_tui.store.session_store import SessionStore


def _mode(path: Path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


def test_private_modes(data_dir: Path, tmp_path: Path) -> None:
    data_dir.mkdir(parents=True, mode=0o755)
    os.chmod(data_dir, 0o755)
    with SessionStore.open(data_dir) as store:
        sid = store.create_session(model="m", workspace=tmp_path)
        store.save_turn(sid, new_transcript=saved_tool_turn(0), context=saved_tool_turn(0), new_events=[])
        assert _mode(data_dir) == 0o755  # an existing directory is used as it is (it may be shared)
        files = sorted(p.name for p in data_dir.iterdir())
        assert "sessions.db" in files and "sessions.db-wal" in files
        for name in files:
            assert _mode(data_dir / name) == 0o600, name


def test_a_directory_the_store_creates_is_private(data_dir: Path) -> None:
    SessionStore.open(data_dir).close()
    assert _mode(data_dir) == 0o700


def test_a_loose_existing_file_is_tightened(data_dir: Path) -> None:
    SessionStore.open(data_dir).close()
    os.chmod(data_dir / "sessions.db", 0o644)
    SessionStore.open(data_dir).close()
    assert _mode(data_dir / "sessions.db") == 0o600


def test_list_latest_by_workspace_newest_first(store: SessionStore, tmp_path: Path) -> None:
    here, there = tmp_path / "here", tmp_path / "there"
    here.mkdir()
    there.mkdir()
    a = store.create_session(model="m", workspace=here, title="a")
    b = store.create_session(model="m", workspace=there, title="b")
    c = store.create_session(model="m", workspace=here, title="c")
    store.save_turn(a, new_transcript=saved_tool_turn(0), context=saved_tool_turn(0), new_events=[], tokens=77)

    assert [m.id for m in store.list_sessions()] == [a, c, b]
    assert [m.id for m in store.list_sessions(here)] == [a, c]
    assert [m.id for m in store.list_sessions(there / ".." / "there")] == [b]
    latest = store.latest(here)
    assert latest is not None and (latest.id, latest.messages, latest.tokens) == (a, 4, 77)
    assert store.latest(tmp_path / "elsewhere") is None


def test_delete_removes_every_row(store: SessionStore, db: sqlite3.Connection, tmp_path: Path) -> None:
    keep = store.create_session(model="m", workspace=tmp_path)
    gone = store.create_session(model="m", workspace=tmp_path)
    for sid in (keep, gone):
        store.save_turn(
            sid,
            new_transcript=saved_tool_turn(0),
            context=saved_tool_turn(0)[1:],
            new_events=[HistoryTrimmed(reason="clear", strategy="turn_trim")],
        )
    store.delete(gone)
    for table in ("transcript", "context", "ledger"):
        ids = {r[0] for r in db.execute(f"SELECT DISTINCT session_id FROM {table}")}
        assert ids == {keep}, table
    assert [m.id for m in store.list_sessions()] == [keep]
    with pytest.raises(StoreError):
        store.load(gone)


def test_resolve_id(store: SessionStore, tmp_path: Path) -> None:
    ids = [store.create_session(model="m", workspace=tmp_path, session_id=s) for s in ("abc123", "abd456", "abc124")]
    assert store.resolve_id("abd") == ids[1]
    assert store.resolve_id("ABC123") == ids[0]
    assert store.resolve_id("abc123") == "abc123"
    for bad, why in (
        ("abc", "matches 2 sessions"),
        ("fff", "no session matches"),
        ("", "not a session id"),
        ("ab%", "not a session id"),
    ):
        with pytest.raises(StoreError, match=why):
            store.resolve_id(bad)


def test_create_session_ids(store: SessionStore, tmp_path: Path) -> None:
    sid = store.create_session(model="m", workspace=tmp_path)
    assert len(sid) == 32 and int(sid, 16) >= 0
    with pytest.raises(StoreError, match="already exists"):
        store.create_session(model="m", workspace=tmp_path, session_id=sid)

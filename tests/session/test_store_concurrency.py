"""Two processes on one database, a full disk, and saving from a worker thread."""

from __future__ import annotations

import subprocess
import sys
import threading
from pathlib import Path

import pytest
from support.builders import saved_tool_turn

from co_tui.store import database as store_module
from co_tui.store.errors import StoreFull, StoreLocked

# A real second process that takes the write lock and holds it until told to let go (a line on its
from co_tui.store.session_store import SessionStore

# A real second process that takes the write lock and holds it until told to let go (a line on its
# stdin). It prints "locked" once it has the lock.
_HOLDER = r"""
import sqlite3, sys
conn = sqlite3.connect(sys.argv[1], isolation_level=None)
conn.execute("BEGIN IMMEDIATE")
conn.execute("UPDATE sessions SET title = title")
print("locked", flush=True)
sys.stdin.readline()
conn.execute("COMMIT")
"""


def _hold_lock(db_path: Path) -> subprocess.Popen[str]:
    proc = subprocess.Popen(
        [sys.executable, "-c", _HOLDER, str(db_path)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None and proc.stdout.readline().strip() == "locked"
    return proc


@pytest.fixture
def quick_busy_timeout(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(store_module, "BUSY_TIMEOUT_S", 0.5)


@pytest.mark.slow
def test_locked_by_another_process_then_recovers(quick_busy_timeout: None, data_dir: Path, tmp_path: Path) -> None:
    store = SessionStore.open(data_dir)
    sid = store.create_session(model="m", workspace=tmp_path)
    holder = _hold_lock(store.path)
    try:
        with pytest.raises(StoreLocked) as caught:
            store.save_turn(sid, new_transcript=saved_tool_turn(0), context=saved_tool_turn(0), new_events=[])
        assert "session database is locked by another co-tui process" in str(caught.value)
        # Readers are not blocked by the other writer (WAL): the list still works.
        assert [m.id for m in store.list_sessions()] == [sid]
    finally:
        holder.communicate("go\n", timeout=10)
    # The lock is gone: the very same save now goes through, nothing was half-written before.
    store.save_turn(sid, new_transcript=saved_tool_turn(0), context=saved_tool_turn(0), new_events=[])
    assert store.load(sid).transcript == saved_tool_turn(0)
    store.close()


@pytest.mark.slow
def test_waits_for_a_short_lock(data_dir: Path, tmp_path: Path) -> None:
    store = SessionStore.open(data_dir)
    sid = store.create_session(model="m", workspace=tmp_path)
    holder = _hold_lock(store.path)  # until told: let go once the save is waiting for it
    asking = threading.Event()
    store.conn.set_trace_callback(lambda sql: asking.set() if sql.startswith("BEGIN IMMEDIATE") else None)
    saver = threading.Thread(
        target=store.save_turn,
        args=(sid,),
        kwargs=dict(new_transcript=saved_tool_turn(0), context=saved_tool_turn(0), new_events=[]),
    )
    saver.start()
    assert asking.wait(10)  # the save asked for the lock while the other process held it
    holder.communicate("go\n", timeout=10)  # well inside the 3 s busy timeout
    saver.join(10)
    store.conn.set_trace_callback(None)
    assert store.load(sid).transcript == saved_tool_turn(0)
    store.close()


def test_disk_full_writes_nothing_and_the_next_save_catches_up(store: SessionStore, tmp_path: Path) -> None:
    sid = store.create_session(model="m", workspace=tmp_path)
    store.save_turn(sid, new_transcript=saved_tool_turn(0), context=saved_tool_turn(0), new_events=[])
    # Cap the file at its current size: SQLite then fails exactly as on a full disk (SQLITE_FULL).
    pages = store.conn.execute("PRAGMA page_count").fetchone()[0]
    store.conn.execute(f"PRAGMA max_page_count = {pages}")
    big = saved_tool_turn(1, output_chars=200_000)
    with pytest.raises(StoreFull) as caught:
        store.save_turn(sid, new_transcript=big, context=saved_tool_turn(0) + big, new_events=[])
    assert "disk is full" in str(caught.value)
    assert caught.value.kind == "disk_full"
    assert store.load(sid).transcript == saved_tool_turn(0)  # all or nothing

    store.conn.execute("PRAGMA max_page_count = 1073741823")
    store.save_turn(sid, new_transcript=big, context=saved_tool_turn(0) + big, new_events=[])
    loaded = store.load(sid)
    assert loaded.transcript == saved_tool_turn(0) + big
    assert loaded.context == saved_tool_turn(0) + big


def test_save_from_a_worker_thread_while_listing(store: SessionStore, tmp_path: Path) -> None:
    sid = store.create_session(model="m", workspace=tmp_path)
    errors: list[BaseException] = []

    def worker() -> None:
        try:
            transcript: list = []
            for i in range(20):
                transcript += saved_tool_turn(i)
                store.save_turn(sid, new_transcript=saved_tool_turn(i), context=list(transcript), new_events=[])
        except BaseException as exc:  # reported below
            errors.append(exc)

    thread = threading.Thread(target=worker)
    thread.start()
    while thread.is_alive():
        assert len(store.list_sessions()) == 1
    thread.join()
    assert errors == []
    assert len(store.load(sid).transcript) == 80

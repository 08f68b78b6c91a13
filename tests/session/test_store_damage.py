"""Bad data gives one clear line for that session only; newer or foreign files are never modified."""

from __future__ import annotations

import hashlib
import sqlite3
from pathlib import Path

import pytest
from damaged_db import damage_workspace_index
from support.builders import saved_tool_turn

from co_tui.store.errors import StoreCorrupt, StoreError, StoreTooNew
from co_tui.store.session_store import SessionStore


def _two_sessions(store: SessionStore, tmp_path: Path) -> tuple[str, str]:
    ids = []
    for title in ("bad one", "good one"):
        sid = store.create_session(model="m", workspace=tmp_path, title=title)
        store.save_turn(sid, new_transcript=saved_tool_turn(0), context=saved_tool_turn(0), new_events=[])
        ids.append(sid)
    return ids[0], ids[1]


@pytest.mark.parametrize(
    ("sql", "fragment"),
    [
        ('UPDATE transcript SET body = \'{"kind": "request", "parts": [\' WHERE seq = 2', "transcript message 2"),
        ('UPDATE transcript SET body = \'{"kind": "nonsense"}\' WHERE seq = 1', "transcript message 1"),
        ("UPDATE transcript SET body = x'00ff' WHERE seq = 0", "transcript message 0"),
        ("DELETE FROM transcript WHERE seq = 1", "transcript message 1 is missing"),
        ("UPDATE context SET transcript_seq = 99 WHERE ord = 3 * 1048576", "context message 3"),
    ],
)
def test_a_corrupt_row_breaks_only_its_session(
    store: SessionStore, db: sqlite3.Connection, tmp_path: Path, sql: str, fragment: str
) -> None:
    bad, good = _two_sessions(store, tmp_path)
    db.execute(sql.replace("WHERE", f"WHERE session_id = '{bad}' AND"))
    db.commit()

    with pytest.raises(StoreCorrupt) as caught:
        store.load(bad)
    message = str(caught.value)
    assert bad in message and "bad one" in message and fragment in message
    assert "\n" not in message

    assert store.load(good).transcript == saved_tool_turn(0)
    listed = {m.id: m for m in store.list_sessions()}
    assert set(listed) == {bad, good}
    assert listed[bad].damaged and fragment in listed[bad].damaged
    assert listed[good].damaged is None


def test_a_corrupt_ledger_row(store: SessionStore, db: sqlite3.Connection, tmp_path: Path) -> None:
    bad, good = _two_sessions(store, tmp_path)
    db.execute("INSERT INTO ledger (session_id, seq, at_message, created, event) VALUES (?, 0, 0, 0, '[1, 2')", (bad,))
    db.commit()
    with pytest.raises(StoreCorrupt, match="ledger entry 0"):
        store.load(bad)
    store.load(good)


@pytest.mark.parametrize("undo", ['{"before": [999]}', '{"before": ["{not json"]}', "[1, 2"])
def test_a_corrupt_undo_row(store: SessionStore, db: sqlite3.Connection, tmp_path: Path, undo: str) -> None:
    """What undoing a cut needs (ledger.undo) is read with the session: damage names the row."""
    bad, good = _two_sessions(store, tmp_path)
    event = '{"type": "history_trimmed", "reason": "token_budget", "strategy": "turn_trim"}'
    db.execute(
        "INSERT INTO ledger (session_id, seq, at_message, created, event, undo) VALUES (?, 0, 0, 0, ?, ?)",
        (bad, event, undo),
    )
    db.commit()
    with pytest.raises(StoreCorrupt, match="ledger entry 0") as caught:
        store.load(bad)
    assert "\n" not in str(caught.value)
    store.load(good)


def test_odd_metadata_still_lists(store: SessionStore, db: sqlite3.Connection, tmp_path: Path) -> None:
    bad, _good = _two_sessions(store, tmp_path)
    db.execute("UPDATE sessions SET created = 'yesterday', messages = 'many' WHERE id = ?", (bad,))
    db.commit()
    listed = {m.id: m for m in store.list_sessions()}
    assert listed[bad].messages == 0 and listed[bad].created.year == 1970


def _file_hash(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_newer_schema_is_refused_and_left_untouched(data_dir: Path, tmp_path: Path) -> None:
    with SessionStore.open(data_dir) as store:
        store.create_session(model="m", workspace=tmp_path)
    conn = sqlite3.connect(data_dir / "sessions.db")
    conn.execute("PRAGMA journal_mode = DELETE")  # fold the WAL in, so the file alone is the database
    conn.execute("PRAGMA user_version = 99")
    conn.close()
    before = _file_hash(data_dir / "sessions.db")

    with pytest.raises(StoreTooNew) as caught:
        SessionStore.open(data_dir)
    assert "newer co-tui (schema 99)" in str(caught.value) and "refusing to modify it" in str(caught.value)
    assert _file_hash(data_dir / "sessions.db") == before
    assert not (data_dir / "sessions.db-wal").exists()  # not even switched to WAL


def test_a_file_that_is_not_a_database(data_dir: Path) -> None:
    data_dir.mkdir(parents=True)
    (data_dir / "sessions.db").write_bytes(b"this is not sqlite at all, just text " * 200)
    before = _file_hash(data_dir / "sessions.db")
    with pytest.raises(StoreCorrupt, match="is damaged") as caught:
        SessionStore.open(data_dir)
    assert "\n" not in str(caught.value)
    assert _file_hash(data_dir / "sessions.db") == before


def test_unknown_session(store: SessionStore) -> None:
    with pytest.raises(StoreError, match="no session with id abc"):
        store.load("abc")
    with pytest.raises(StoreError, match="no session"):
        store.save_turn("abc", new_transcript=saved_tool_turn(0), context=None, new_events=[])
    with pytest.raises(StoreError, match="no session"):
        store.delete("abc")


def test_a_damaged_workspace_index_is_damage_not_an_empty_list(data_dir: Path, tmp_path: Path) -> None:
    """A damaged index answers a lookup by workspace with no rows and no SQLite error: the store
    says the file is damaged (one line, how to recover) instead of "no sessions here"."""
    with SessionStore.open(data_dir) as store:
        store.create_session(model="m", workspace=tmp_path, title="kept")
    damage_workspace_index(data_dir / "sessions.db", tmp_path)
    with SessionStore.open(data_dir) as store:
        for read in (store.latest, store.list_sessions):
            with pytest.raises(StoreCorrupt) as caught:
                read(tmp_path)
            message = str(caught.value)
            assert "is damaged" in message and "PRAGMA integrity_check" in message and "\n" not in message
        assert store.list_sessions(tmp_path / "elsewhere") == []  # nothing there: still an empty list


def test_the_pickers_check_reads_what_a_resume_reads_not_the_whole_session(
    store: SessionStore, db: sqlite3.Connection, tmp_path: Path
) -> None:
    """`check` (the sessions picker's, before switching) decodes what a resume decodes — the context
    and the newest `LAZY_TAIL` messages — so damage there is caught, and a long session's old rows
    are not read (a resume shows a damaged old row as a one-line notice when it is scrolled to)."""
    from co_tui.store.reader import LAZY_TAIL

    sid = store.create_session(model="m", workspace=tmp_path, title="long")
    turns = [m for i in range(LAZY_TAIL // 4 + 2) for m in saved_tool_turn(i)]
    store.save_turn(sid, new_transcript=turns, context=turns[-4:], new_events=[])
    db.execute(f"UPDATE transcript SET body = x'00ff' WHERE session_id = '{sid}' AND seq = 0")
    db.commit()
    store.check(sid)  # the damaged first row is older than what a resume decodes
    with pytest.raises(StoreCorrupt, match="transcript message 0"):
        store.load(sid)  # the whole session: it is
    newest = len(turns) - 1
    db.execute(f"UPDATE transcript SET body = x'00ff' WHERE session_id = '{sid}' AND seq = {newest}")
    db.commit()
    with pytest.raises(StoreCorrupt, match=f"transcript message {newest}"):
        store.check(sid)

"""Token estimates saved with the rows (schema: token_counts): a resumed session is not counted afresh."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from support.builders import breadcrumb, saved_tool_turn

from co_tui.governance.tokens import ESTIMATOR_VERSION, estimate_each, message_tokens
from co_tui.store.session_store import SessionStore


def _saved_session(store: SessionStore) -> tuple[str, list, list]:
    sid = store.create_session(model="offline", workspace=Path("."))
    transcript = saved_tool_turn(0, output_chars=4000) + saved_tool_turn(1)
    context = [breadcrumb(4, 1), *transcript[4:]]  # a message of the context's own, then references
    store.save_turn(sid, new_transcript=transcript, context=context, new_events=[])
    return sid, transcript, context


def test_every_saved_row_keeps_its_estimate(store: SessionStore, db: sqlite3.Connection) -> None:
    sid, transcript, context = _saved_session(store)
    saved = sorted(t for (t,) in db.execute("SELECT tokens FROM token_counts WHERE session_id = ?", (sid,)))
    assert saved == sorted(estimate_each([*transcript, context[0]]))
    assert {e for (e,) in db.execute("SELECT estimator FROM token_counts")} == {ESTIMATOR_VERSION}


def test_a_loaded_session_takes_its_counts_from_the_rows(data_dir: Path, store: SessionStore) -> None:
    sid, transcript, _ = _saved_session(store)
    conn = sqlite3.connect(data_dir / "sessions.db")
    # Stand-ins no estimator would give: the figures below can only come from these rows.
    conn.execute("UPDATE token_counts SET tokens = tokens + 100000")
    conn.commit()
    conn.close()
    with SessionStore.open(data_dir) as other:
        loaded = other.load(sid)
    fresh = estimate_each(saved_tool_turn(0, output_chars=4000) + saved_tool_turn(1))
    assert [message_tokens(m) for m in loaded.transcript] == [t + 100000 for t in fresh]
    assert message_tokens(loaded.context[0]) == message_tokens(breadcrumb(4, 1)) + 100000


def test_counts_of_another_estimator_version_are_ignored(data_dir: Path, store: SessionStore) -> None:
    sid, transcript, _ = _saved_session(store)
    conn = sqlite3.connect(data_dir / "sessions.db")
    conn.execute("UPDATE token_counts SET tokens = 1, estimator = ?", (ESTIMATOR_VERSION + 1,))
    conn.commit()
    conn.close()
    with SessionStore.open(data_dir) as other:
        loaded = other.load(sid)
    assert [message_tokens(m) for m in loaded.transcript] == estimate_each(transcript)


def test_deleting_a_session_deletes_its_counts(store: SessionStore, db: sqlite3.Connection) -> None:
    sid, _, _ = _saved_session(store)
    store.delete(sid)
    assert db.execute("SELECT count(*) FROM token_counts").fetchone()[0] == 0

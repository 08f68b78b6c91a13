"""A resume reads the ledger once for the preview and the session (`SessionStore._read_ledger`'s
memo), and a lazy load reads only the token counts it primes."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from store_builders import tool_turn

from co_tui.governance.events import HistoryTrimmed
from co_tui.session import store_tail
from co_tui.session.store import SessionStore
from co_tui.session.token_counts import read_counts


def _cut(n: int) -> HistoryTrimmed:
    return HistoryTrimmed(
        reason="token_budget", strategy="turn_trim", dropped_messages=4 * n, dropped_turns=n, budget_tokens=8000
    )


def _saved(store: SessionStore, turns: int) -> str:
    sid = store.create_session(model="offline", workspace=Path("."), title="t")
    transcript: list = []
    for i in range(turns):
        transcript += tool_turn(i)
        store.save_turn(sid, new_transcript=tool_turn(i), context=list(transcript), new_events=[_cut(i + 1)])
    return sid


def _count_ledger_reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    reads: list[str] = []
    real = store_tail.read_ledger

    def counting(conn, session_id, damaged):  # noqa: ANN001, ANN202
        reads.append(session_id)
        return real(conn, session_id, damaged)

    monkeypatch.setattr("co_tui.session.store.read_ledger", counting)
    return reads


def test_preview_then_load_parse_the_ledger_once(data_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with SessionStore.open(data_dir) as store:
        sid = _saved(store, 5)
    reads = _count_ledger_reads(monkeypatch)
    with SessionStore.open(data_dir) as store:
        tail = store.load_tail(sid, lambda tail: True)
        loaded = store.load(sid, lazy=True)
        assert reads == [sid]
        assert tail.ledger == loaded.ledger == [_cut(n) for n in range(1, 6)]
        assert tail.ledger_positions == loaded.ledger_positions
        # The lists are the caller's own: changing one leaves the next load alone.
        loaded.ledger.clear()
        loaded.ledger_positions.append(99)
        again = store.load(sid, lazy=True)
        assert again.ledger == tail.ledger and again.ledger_positions == tail.ledger_positions
        assert reads == [sid]


def test_the_memo_sees_a_new_cut_and_another_session(data_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with SessionStore.open(data_dir) as store:
        sid = _saved(store, 3)
        other = _saved(store, 2)
        reads = _count_ledger_reads(monkeypatch)
        assert len(store.load(sid, lazy=True).ledger) == 3
        assert len(store.load(other, lazy=True).ledger) == 2
        # A cut saved by another process (another connection) is read, not the memo's stale copy.
        with SessionStore.open(data_dir) as writer:
            writer.save_turn(other, new_transcript=tool_turn(9), context=tool_turn(9), new_events=[_cut(7)])
        assert store.load(other, lazy=True).ledger[-1] == _cut(7)
        assert store.load(other).ledger == [_cut(1), _cut(2), _cut(7)]
        assert reads == [sid, other, other]


def test_a_lazy_load_reads_only_the_counts_it_needs(data_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with SessionStore.open(data_dir) as store:
        sid = _saved(store, 4)
    asked: list[int | None] = []
    real = read_counts

    def spy(conn, session_id, digests=None):  # noqa: ANN001, ANN202
        asked.append(None if digests is None else len(digests))
        return real(conn, session_id, digests)

    monkeypatch.setattr("co_tui.session.store.read_counts", spy)
    with SessionStore.open(data_dir) as store:
        store.load(sid, lazy=True)
    assert asked and None not in asked
    db = sqlite3.connect(data_dir / "sessions.db")
    digests = [bytes(d) for (d,) in db.execute("SELECT digest FROM token_counts WHERE session_id = ?", (sid,))]
    everything = read_counts(db, sid)
    assert read_counts(db, sid, digests[:3]) == {d: everything[d] for d in digests[:3]}
    assert read_counts(db, sid, [b"nope", digests[0], digests[0]]) == {digests[0]: everything[digests[0]]}
    db.close()

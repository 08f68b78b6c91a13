"""A resume's preview parses only the ledger events among the rows it shows, the session's lazy
load parses the ledger once (`co_tui.store.reader.read_ledger_memo`'s memo), and a lazy load reads only the
token counts it primes."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from support.builders import saved_tool_turn

from co_tui.governance.events import HistoryTrimmed
from co_tui.session.token_counts import read_counts
from co_tui.store import tail as store_tail
from co_tui.store.session_store import SessionStore


def _cut(n: int) -> HistoryTrimmed:
    return HistoryTrimmed(
        reason="token_budget", strategy="turn_trim", dropped_messages=4 * n, dropped_turns=n, budget_tokens=8000
    )


def _saved(store: SessionStore, turns: int) -> str:
    sid = store.create_session(model="offline", workspace=Path("."), title="t")
    transcript: list = []
    for i in range(turns):
        transcript += saved_tool_turn(i)
        store.save_turn(sid, new_transcript=saved_tool_turn(i), context=list(transcript), new_events=[_cut(i + 1)])
    return sid


def _count_ledger_reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    reads: list[str] = []
    real = store_tail.read_ledger

    def counting(conn, session_id, damaged, first=0):  # noqa: ANN001, ANN202
        reads.append(session_id)
        return real(conn, session_id, damaged, first=first)

    monkeypatch.setattr("co_tui.store.reader.read_ledger", counting)
    return reads


def test_the_preview_parses_only_its_banners_and_load_the_ledger_once(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with SessionStore.open(data_dir) as store:
        sid = _saved(store, 30)  # 120 messages, one cut a turn, after its prompt (4 i + 1)
    parsed: list[int] = []
    real = store_tail.read_ledger

    def counting(conn, session_id, damaged, first=0):  # noqa: ANN001, ANN202
        events, positions = real(conn, session_id, damaged, first=first)
        parsed.append(len(events))
        return events, positions

    monkeypatch.setattr(store_tail, "read_ledger", counting)
    reads = _count_ledger_reads(monkeypatch)
    with SessionStore.open(data_dir) as store:
        tail = store.load_tail(sid, lambda tail: True)  # the newest 64 rows: from message 56
        assert tail.start == 56 and parsed == [16]  # the cuts of turns 14…29, at 57…117
        assert tail.banners == [(4 * i + 1, _cut(i + 1)) for i in range(14, 30)] and tail.cuts == 30
        loaded = store.load(sid, lazy=True)
        assert reads == [sid] and parsed == [16, 30]
        assert loaded.ledger == [_cut(n) for n in range(1, 31)]
        assert tail.ledger_positions == loaded.ledger_positions
        # The lists are the caller's own: changing one leaves the next load alone.
        loaded.ledger.clear()
        loaded.ledger_positions.append(99)
        again = store.load(sid, lazy=True)
        assert again.ledger == [_cut(n) for n in range(1, 31)] and again.ledger_positions == tail.ledger_positions
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
            writer.save_turn(other, new_transcript=saved_tool_turn(9), context=saved_tool_turn(9), new_events=[_cut(7)])
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

    monkeypatch.setattr("co_tui.store.reader.read_counts", spy)
    with SessionStore.open(data_dir) as store:
        store.load(sid, lazy=True)
    assert asked and None not in asked
    db = sqlite3.connect(data_dir / "sessions.db")
    digests = [bytes(d) for (d,) in db.execute("SELECT digest FROM token_counts WHERE session_id = ?", (sid,))]
    everything = read_counts(db, sid)
    assert read_counts(db, sid, digests[:3]) == {d: everything[d] for d in digests[:3]}
    assert read_counts(db, sid, [b"nope", digests[0], digests[0]]) == {digests[0]: everything[digests[0]]}
    db.close()

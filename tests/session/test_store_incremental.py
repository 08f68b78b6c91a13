"""Saving a turn writes only what is new: counted with triggers on the real database file."""

from __future__ import annotations

import sqlite3
from dataclasses import replace
from pathlib import Path

from pydantic_ai.messages import ToolReturnPart
from support.builders import breadcrumb, saved_tool_turn

from co_tui.governance.events import HistoryTrimmed
from co_tui.store.session_store import SessionStore

_AUDIT = """
CREATE TABLE audit (tbl TEXT, op TEXT);
CREATE TRIGGER a_ti AFTER INSERT ON transcript BEGIN INSERT INTO audit VALUES ('transcript', 'insert'); END;
CREATE TRIGGER a_tu AFTER UPDATE ON transcript BEGIN INSERT INTO audit VALUES ('transcript', 'update'); END;
CREATE TRIGGER a_td AFTER DELETE ON transcript BEGIN INSERT INTO audit VALUES ('transcript', 'delete'); END;
CREATE TRIGGER a_ci AFTER INSERT ON context BEGIN INSERT INTO audit VALUES ('context', 'insert'); END;
CREATE TRIGGER a_cd AFTER DELETE ON context BEGIN INSERT INTO audit VALUES ('context', 'delete'); END;
CREATE TRIGGER a_li AFTER INSERT ON ledger BEGIN INSERT INTO audit VALUES ('ledger', 'insert'); END;
"""


def _counts(db: sqlite3.Connection) -> dict[tuple[str, str], int]:
    rows = db.execute("SELECT tbl, op, COUNT(*) FROM audit GROUP BY tbl, op").fetchall()
    db.execute("DELETE FROM audit")
    db.commit()
    return {(t, o): n for t, o, n in rows}


def test_each_turn_writes_only_its_new_rows(store: SessionStore, db: sqlite3.Connection, tmp_path: Path) -> None:
    db.executescript(_AUDIT)
    sid = store.create_session(model="m", workspace=tmp_path)
    transcript: list = []
    for i in range(30):
        turn = saved_tool_turn(i)
        transcript += turn
        store.save_turn(sid, new_transcript=turn, context=list(transcript), new_events=[])
        # Four new messages: four transcript rows, four context rows, nothing rewritten.
        assert _counts(db) == {("transcript", "insert"): 4, ("context", "insert"): 4}
    assert db.execute("SELECT COUNT(*) FROM transcript").fetchone()[0] == 120
    # Every context row is a reference: no message body is stored twice.
    assert db.execute("SELECT COUNT(*) FROM context WHERE body IS NOT NULL").fetchone()[0] == 0


def test_a_cut_deletes_what_left_the_cut_then_saving_is_incremental_again(
    store: SessionStore, db: sqlite3.Connection, tmp_path: Path
) -> None:
    db.executescript(_AUDIT)
    sid = store.create_session(model="m", workspace=tmp_path)
    turns = [saved_tool_turn(i) for i in range(10)]
    transcript = [m for t in turns for m in t]
    store.save_turn(sid, new_transcript=transcript, context=transcript, new_events=[])
    _counts(db)

    # Drop the first 8 turns: their 32 rows go, the breadcrumb arrives, the kept 8 rows stay put.
    context = [breadcrumb(32, 8), *turns[8], *turns[9]]
    ev = HistoryTrimmed(reason="token_budget", strategy="turn_trim", dropped_messages=32, dropped_turns=8)
    store.save_turn(sid, new_transcript=[], context=context, new_events=[ev])
    assert _counts(db) == {("context", "delete"): 32, ("context", "insert"): 1, ("ledger", "insert"): 1}
    assert db.execute("SELECT COUNT(*) FROM context WHERE body IS NOT NULL").fetchone()[0] == 1  # the breadcrumb

    turn = saved_tool_turn(10)
    store.save_turn(sid, new_transcript=turn, context=context + turn, new_events=[])
    assert _counts(db) == {("transcript", "insert"): 4, ("context", "insert"): 4}


def test_equal_copies_are_not_rewritten(store: SessionStore, db: sqlite3.Connection, tmp_path: Path) -> None:
    """A context rebuilt from fresh-but-equal objects (a new list each turn) writes only the tail."""
    db.executescript(_AUDIT)
    sid = store.create_session(model="m", workspace=tmp_path)
    store.save_turn(sid, new_transcript=saved_tool_turn(0), context=saved_tool_turn(0), new_events=[])
    _counts(db)
    store.save_turn(
        sid, new_transcript=saved_tool_turn(1), context=saved_tool_turn(0) + saved_tool_turn(1), new_events=[]
    )
    assert _counts(db) == {("transcript", "insert"): 4, ("context", "insert"): 4}


def _shrunk(message, keep: int = 200):
    """A fresh trimmed copy, as a pure trim_tool_returns would make on every pass."""
    return replace(
        message,
        parts=[
            replace(p, content=p.content[:keep] + " [...truncated]") if isinstance(p, ToolReturnPart) else p
            for p in message.parts
        ],
    )


def test_sliding_window_steady_state_costs_the_same_every_turn(
    store: SessionStore, db: sqlite3.Connection, tmp_path: Path
) -> None:
    """At the budget every turn moves the window: new breadcrumb, oldest turn out, the previous
    turn's tool output shrunk, new turn in. That is a handful of rows, whatever the length."""
    db.executescript(_AUDIT)
    sid = store.create_session(model="m", workspace=tmp_path)
    window = 5
    turns: list[list] = []
    for i in range(40):
        turns.append(saved_tool_turn(i, output_chars=3000))
        recent = turns[-window:]
        dropped = len(turns) - len(recent)
        context = [breadcrumb(4 * dropped, dropped)] if dropped else []
        for t in recent[:-1]:
            context += [t[0], t[1], _shrunk(t[2]), t[3]]  # rebuilt copies every pass
        context += recent[-1]
        store.save_turn(sid, new_transcript=turns[-1], context=context, new_events=[])
        counts = _counts(db)
        if i >= window + 1:
            # breadcrumb out/in, 4 rows of the dropped turn out, previous tool output out, its copy in, 4 new in.
            assert counts == {("transcript", "insert"): 4, ("context", "delete"): 6, ("context", "insert"): 6}
        assert store.load(sid).context == context

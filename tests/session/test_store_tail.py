"""SessionStore.load_tail: the newest rows as plain JSON, the ledger and the counts, read backwards
until the caller has enough — without pydantic-ai — and the same figures `load` gives."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from cli_process import run_python
from pydantic_ai.messages import ModelMessagesTypeAdapter, ModelRequest, UserPromptPart
from support.builders import saved_tool_turn

from co_tui.governance.events import HistoryTrimmed
from co_tui.session.conversation_counts import ConversationCounts
from co_tui.store.errors import StoreCorrupt, StoreError
from co_tui.store.session_store import SessionStore
from co_tui.tui.transcript_view import transcript_items


def _cut(n: int) -> HistoryTrimmed:
    return HistoryTrimmed(
        reason="token_budget",
        strategy="turn_trim",
        dropped_messages=4 * n,
        dropped_turns=n,
        tokens_before=9000,
        tokens_after=5000,
        budget_tokens=8000,
    )


def _saved(store: SessionStore, tmp_path: Path, turns: int) -> str:
    """`turns` tool turns (4 messages each), one cut after every tenth turn; turn 5 has two prompts."""
    sid = store.create_session(model="offline", workspace=tmp_path, title="long one")
    for i in range(turns):
        messages = saved_tool_turn(i)
        if i == 5:
            messages[0] = ModelRequest(parts=[UserPromptPart("one"), UserPromptPart("two")])
        store.save_turn(
            sid, new_transcript=messages, context=messages, new_events=[_cut(i)] if i and i % 10 == 0 else []
        )
    return sid


def test_reads_back_until_enough_and_agrees_with_load(store: SessionStore, tmp_path: Path) -> None:
    sid = _saved(store, tmp_path, 60)  # 240 messages
    seen: list[int] = []

    def enough(tail) -> bool:
        seen.append(tail.start)
        return len(tail.rows) >= 100

    tail = store.load_tail(sid, enough)
    assert seen == [176, 48]  # 64 rows, then 128 more
    loaded = store.load(sid)
    assert tail.start == 48 and tail.messages == len(loaded.transcript) == 240
    assert tail.rows == json.loads(ModelMessagesTypeAdapter.dump_json(loaded.transcript[48:]))
    # The counts of the whole transcript (kept by every save), as the chat log counts them.
    items = transcript_items(loaded.transcript)
    assert tail.counts == ConversationCounts().add(loaded.transcript)
    assert (tail.counts.turns, tail.counts.items) == (61, len(items)) == (61, sum(1 for _ in items))
    # Every cut's position, but only the events among the rows read are parsed (the banners).
    assert tail.ledger_positions == loaded.ledger_positions and tail.cuts == len(loaded.ledger) == 5
    pairs = list(zip(loaded.ledger_positions, loaded.ledger, strict=False))
    assert tail.banners == [(at, event) for at, event in pairs if at >= 48] and 0 < len(tail.banners) < 5
    assert tail.meta.id == sid and tail.meta.title == "long one"


def test_never_enough_reads_to_the_first_message(store: SessionStore, tmp_path: Path) -> None:
    sid = _saved(store, tmp_path, 3)
    tail = store.load_tail(sid, lambda tail: False)
    assert tail.start == 0 and len(tail.rows) == 12 == tail.messages


def test_an_empty_session(store: SessionStore, tmp_path: Path) -> None:
    sid = store.create_session(model="offline", workspace=tmp_path)
    tail = store.load_tail(sid, lambda tail: True)
    assert (tail.start, tail.rows, tail.messages, tail.counts, tail.banners) == (0, [], 0, ConversationCounts(), [])


@pytest.mark.parametrize(
    ("sql", "fragment"),
    [
        ('UPDATE transcript SET body = \'{"kind": "response", "parts": [\' WHERE seq = 9', "cannot be decoded"),
        ("UPDATE transcript SET body = '[1, 2]' WHERE seq = 10", "transcript message 10"),
        ("DELETE FROM transcript WHERE seq = 1", "missing"),
        ("UPDATE ledger SET event = '[1, 2' WHERE seq = 0", "ledger entry 0"),
    ],
)
def test_damage_it_meets_is_one_line(store: SessionStore, tmp_path: Path, sql: str, fragment: str) -> None:
    sid = _saved(store, tmp_path, 12)
    conn = sqlite3.connect(store.path)
    conn.execute(sql.replace("WHERE", f"WHERE session_id = '{sid}' AND"))
    conn.commit()
    conn.close()
    with pytest.raises(StoreCorrupt) as caught:
        store.load_tail(sid, lambda tail: False)
    assert sid in str(caught.value) and fragment in str(caught.value) and "\n" not in str(caught.value)
    assert store.list_sessions()[0].damaged is None  # judging a session is load's job; nothing is written


def test_unknown_session(store: SessionStore) -> None:
    with pytest.raises(StoreError, match="no session with id abc"):
        store.load_tail("abc", lambda tail: True)


@pytest.mark.slow
def test_it_imports_no_pydantic_ai(store: SessionStore, tmp_path: Path, data_dir: Path) -> None:
    sid = _saved(store, tmp_path, 2)
    code = (
        "import sys\n"
        "from co_tui.store.session_store import SessionStore\n"
        f"tail = SessionStore.open({str(data_dir)!r}).load_tail({sid!r}, lambda tail: False)\n"
        "assert tail.messages == 8 and tail.rows[0]['parts'][0]['part_kind'] == 'user-prompt'\n"
        "sys.exit(1 if 'pydantic_ai' in sys.modules else 0)\n"
    )
    result = run_python(code)
    assert result.returncode == 0, result.stderr

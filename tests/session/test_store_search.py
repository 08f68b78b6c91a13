"""Searching saved sessions (issue 32 item 14): titles and full text through the FTS5 indexes, kept in
step by the store's own writes (save, delete, a damaged row's update), redacted text only, any query
text safe, and the migration that backfills a database saved before search existed."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from pydantic_ai.messages import ModelRequest, ModelResponse, SystemPromptPart, TextPart, UserPromptPart
from support.builders import saved_tool_turn

from co_tui.session import hit_segments, migrations
from co_tui.store.errors import StoreError
from co_tui.store.search import HIT_END, HIT_START, match_expression
from co_tui.store.session_store import SessionStore


def _exchange(prompt: str, answer: str, *, system: str = "") -> list:
    first = [SystemPromptPart(system)] if system else []
    return [ModelRequest(parts=[*first, UserPromptPart(prompt)]), ModelResponse(parts=[TextPart(answer)])]


def _save(store: SessionStore, workspace: Path, title: str, messages: list) -> str:
    sid = store.create_session(model="offline", workspace=workspace, title=title)
    store.save_turn(sid, new_transcript=messages, context=messages, new_events=[])
    return sid


def _found(store: SessionStore, query: str, workspace: Path | None = None) -> list[str]:
    return [hit.meta.id for hit in store.search(query, workspace)]


def test_titles_prompts_answers_and_tool_outputs_are_found_newest_first(store: SessionStore, tmp_path: Path) -> None:
    older = _save(store, tmp_path, "Fix the tokenizer", _exchange("why does it choke on quotes?", "It reads NEAR."))
    newer = _save(store, tmp_path, "Read the handler", saved_tool_turn(0))  # tool output: "def handler(request)…"
    assert _found(store, "tokenizer") == [older]  # the title
    assert _found(store, "quotes") == [older]  # the prompt
    assert _found(store, "near") == [older]  # the answer, any case
    assert _found(store, "process") == [newer]  # the tool's output
    assert _found(store, "file_0") == [newer]  # the tool call's arguments (and the prompt)
    assert _found(store, "the") == [newer, older]  # most recently updated first
    assert _found(store, "tok") == [older]  # a bare word is a prefix
    assert _found(store, '"tok"') == []  # a quoted one is whole
    assert _found(store, "quotes choke") == [older]  # every word, in any order
    assert _found(store, "quotes handler") == []  # …in one message (or the title)


def test_a_hit_carries_a_snippet_of_the_newest_matching_message(store: SessionStore, tmp_path: Path) -> None:
    before, after = (" ".join(f"{side}{i}" for i in range(200)) for side in ("before", "after"))
    sid = _save(
        store,
        tmp_path,
        "long",
        _exchange("the parser again", f"{before} the Parser fails here {after}") + _exchange("unrelated", "nothing"),
    )
    [hit] = store.search("pars")
    assert (hit.meta.id, hit.at_message) == (sid, 1)  # the answer, newer than the prompt
    pieces = hit_segments(hit.snippet)
    assert ("Parser", True) in pieces
    shown = "".join(text for text, _ in pieces)
    assert shown.startswith("…") and shown.endswith("…") and len(shown) < 200
    assert "before0 " not in shown and "before199 " in shown  # around the hit, not the message's start
    [title_only] = store.search("long")
    assert (title_only.snippet, title_only.at_message) == ("", None)


def test_search_within_a_workspace(store: SessionStore, tmp_path: Path) -> None:
    here, there = tmp_path / "here", tmp_path / "there"
    here.mkdir(), there.mkdir()
    mine = _save(store, here, "mine", _exchange("migrations please", "ok"))
    theirs = _save(store, there, "theirs", _exchange("migrations too", "ok"))
    assert set(_found(store, "migrations")) == {mine, theirs}
    assert _found(store, "migrations", here) == [mine]


def test_a_hit_in_another_branch_is_a_hit_of_the_session_that_owns_it(
    store: SessionStore, tmp_path: Path, data_dir: Path
) -> None:
    """A rewound session keeps the rows of the branch it left under a storage row (`branch_of` set,
    never listed): the search lists the session, never the storage row."""
    sid = _save(store, tmp_path, "rewound", _exchange("kept words", "ok") + _exchange("abandoned words", "ok"))
    conn = sqlite3.connect(data_dir / "sessions.db")
    left = f"{sid}.b0"
    conn.execute(
        "INSERT INTO sessions (id, title, created, updated, model, workspace, branch_of)"
        " SELECT ?, title, created, updated, model, workspace, id FROM sessions WHERE id = ?",
        (left, sid),
    )
    conn.execute("UPDATE transcript SET session_id = ? WHERE session_id = ? AND seq >= 2", (left, sid))
    conn.commit()
    conn.close()
    [hit] = store.search("abandoned")
    assert hit.meta.id == sid and hit.at_message is None  # found in the other branch
    assert ("abandoned", True) in hit_segments(hit.snippet)
    [own] = store.search("kept")
    assert (own.meta.id, own.at_message) == (sid, 0)
    assert [h.meta.id for h in store.search("rewound")] == [sid]  # the storage row's title is not listed


def test_system_prompts_are_not_searched(store: SessionStore, tmp_path: Path) -> None:
    _save(store, tmp_path, "t", _exchange("hello", "hi", system="You are AGENTSMDWORD's helper"))
    assert _found(store, "agentsmdword") == []


def test_only_redacted_text_is_indexed(
    store: SessionStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, data_dir: Path
) -> None:
    secret = "sk-searchable0secret0value"
    monkeypatch.setenv("OPENAI_API_KEY", secret)
    sid = _save(store, tmp_path, "keys", _exchange(f"my key is {secret}", "noted"))
    assert _found(store, secret) == [] and _found(store, "searchable0secret0value") == []
    [hit] = store.search("redacted")
    assert hit.meta.id == sid and "searchable" not in hit.snippet
    raw = (data_dir / "sessions.db").read_bytes()
    assert b"searchable0secret0value" not in raw and b"searchable0secret0value"[::-1] not in raw


@pytest.mark.parametrize(
    "query",
    [
        'NEAR("a" "b")',
        "NEAR/2",
        '"',
        '"""',
        'quotes" OR "x',
        '"unbalanced',
        "*",
        "^start",
        "text:quotes",
        "{text}: quotes",
        "AND",
        "OR NOT",
        "(",
        "quotes)",
        "-quotes",
        "+",
        "a\x00b",
        "\x00",
        "'; DROP TABLE sessions; --",
        "quotes AND NOT OR NEAR",
        "x" * 10_000,
        " ".join(["quotes"] * 100),
        "\u202equotes",
        "",
        "   ",
    ],
)
def test_hostile_query_text_never_raises(store: SessionStore, tmp_path: Path, query: str) -> None:
    sid = _save(store, tmp_path, "t", _exchange("why does it choke on quotes? AND OR NOT NEAR", "ok"))
    found = _found(store, query)
    assert found in ([], [sid])
    assert len(store.list_sessions()) == 1


def test_operators_are_words() -> None:
    assert match_expression('NEAR(a "b c" OR') == '"NEAR(a"* "b c" "OR"*'
    assert match_expression('say "hi') == '"say"* """hi"*'
    assert match_expression("( ) * :") is None


def test_deleting_a_session_removes_it_from_the_index(store: SessionStore, tmp_path: Path, data_dir: Path) -> None:
    gone = _save(store, tmp_path, "gone", _exchange("ephemeral words", "ok"))
    kept = _save(store, tmp_path, "kept", _exchange("ephemeral too", "ok"))
    store.delete(gone)
    assert _found(store, "ephemeral") == [kept]
    assert _found(store, "gone") == []
    with sqlite3.connect(data_dir / "sessions.db") as conn:
        indexed = conn.execute("SELECT count(*) FROM transcript_search WHERE transcript_search MATCH 'ephemeral'")
        assert indexed.fetchone()[0] == 1


def test_a_renamed_session_is_found_by_its_new_title_only(store: SessionStore, tmp_path: Path) -> None:
    sid = _save(store, tmp_path, "first name", _exchange("hello", "hi"))
    store.save_turn(sid, new_transcript=[], context=None, new_events=[], title="second name")
    assert _found(store, "first") == []
    assert _found(store, "second") == [sid]


def test_a_failed_save_leaves_nothing_in_the_index(store: SessionStore, tmp_path: Path) -> None:
    sid = store.create_session(model="offline", workspace=tmp_path, title="t")
    messages = _exchange("rolledback words", "ok")
    with pytest.raises(StoreError):  # the transcript rows are written, then the transaction fails
        store.save_turn(sid, new_transcript=messages, context=None, new_events=[], event_positions=[1])
    assert _found(store, "rolledback") == []
    store.save_turn(sid, new_transcript=messages, context=None, new_events=[])
    assert _found(store, "rolledback") == [sid]


def test_a_damaged_row_is_written_and_the_rest_still_searches(
    store: SessionStore, tmp_path: Path, data_dir: Path
) -> None:
    sid = _save(store, tmp_path, "t", _exchange("first words", "second words"))
    conn = sqlite3.connect(data_dir / "sessions.db")
    conn.execute("UPDATE transcript SET body = '{not json' WHERE session_id = ? AND seq = 0", (sid,))
    conn.execute("UPDATE transcript SET body = x'00ff' WHERE session_id = ? AND seq = 1", (sid,))
    conn.commit()
    assert _found(store, "first") == [] and _found(store, "second") == []
    conn.execute(
        "UPDATE transcript SET body = ? WHERE session_id = ? AND seq = 0",
        ('{"kind": "request", "parts": [{"part_kind": "user-prompt", "content": "repaired words"}]}', sid),
    )
    conn.commit()
    conn.close()
    assert _found(store, "repaired") == [sid]


def _without_search(path: Path) -> None:
    """The database as a co-tui from before search left it: no search objects, the version before."""
    conn = sqlite3.connect(path)
    for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'trigger' AND name LIKE '%search%'"):
        conn.execute(f"DROP TRIGGER {name}")
    conn.execute("DROP TABLE transcript_search")
    conn.execute("DROP TABLE title_search")
    conn.execute(f"PRAGMA user_version = {migrations.MIGRATIONS.index(migrations.SEARCH_MIGRATION)}")
    conn.commit()
    conn.close()


def test_the_migration_backfills_sessions_saved_before_search(data_dir: Path, tmp_path: Path) -> None:
    with SessionStore.open(data_dir) as store:
        sid = _save(store, tmp_path, "from before", _exchange("backfilled words", "ok"))
    _without_search(data_dir / "sessions.db")
    with sqlite3.connect(data_dir / "sessions.db") as conn:
        assert not conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'transcript_search'").fetchone()
    with pytest.raises(StoreError, match="older schema"):
        SessionStore.open_read_only(data_dir)  # search needs one writable open first
    with SessionStore.open(data_dir) as store:
        assert migrations.schema_version(store.conn) == migrations.SCHEMA_VERSION
        assert _found(store, "backfilled") == [sid]
        assert _found(store, "before") == [sid]
        later = _save(store, tmp_path, "after", _exchange("backfilled later", "ok"))
        assert _found(store, "backfilled") == [later, sid]
    with SessionStore.open_read_only(data_dir) as store:
        assert _found(store, "backfilled") == [later, sid]


def test_hit_segments_escape_what_a_terminal_would_obey() -> None:
    pieces = hit_segments(f"a\x1b]0;pwned\x07 {HIT_START}hit{HIT_END}\nnext")
    assert pieces == [("a\\x1b]0;pwned\\x07 ", False), ("hit", True), (" next", False)]

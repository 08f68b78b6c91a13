"""Rewind and branches on a real ChatSession (offline model) with a real SQLite file
(docs/context-governance.md, "Rewind and branches"): a rewind restores exactly what the model was
about to be sent before that prompt — context with its markers, the ledger as long as it was then,
the pins, the meter — every branch is kept and comes back exactly, across resumes."""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.turns import collect, run_turn

from co_tui.config import load_settings
from co_tui.governance.refused import Refused
from co_tui.session import migrations
from co_tui.session.branching import BranchMoveRefused
from co_tui.session.chat import ChatSession
from co_tui.session.opening import resume_session
from co_tui.store.session_store import SessionStore


def _dump(messages: Any) -> bytes:
    from pydantic_ai.messages import ModelMessagesTypeAdapter

    return ModelMessagesTypeAdapter.dump_json(list(messages))


def _workspace(root: Path) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "README.md").write_text("# demo\n" + "A line of the readme that the tool returns.\n" * 80)
    return root


def _settings(data_dir: Path, budget: int = 2_500) -> Any:
    """A small budget and short tool outputs, so a few turns make cuts with markers."""
    return load_settings(
        context_budget_tokens=budget,
        context_strategy="trim",
        tool_output_trim_chars=200,
        data_dir=data_dir,
    )


def _resume(session: ChatSession, store: SessionStore) -> ChatSession:
    session.release_claim()
    return resume_session(session.settings, workspace=session.workspace, store=store, session_id=session.id)


async def test_rewind_restores_the_context_ledger_and_pins_of_then_and_keeps_the_branch(tmp_path: Path) -> None:
    ws = _workspace(tmp_path / "ws")
    store = SessionStore.open(tmp_path / "data")
    session = ChatSession(_settings(tmp_path / "data"), workspace=ws, store=store)
    await run_turn(session, "hello")
    await session.pin_newest()
    await run_turn(session, "read README.md")
    await run_turn(session, "read README.md again")
    before = (_dump(session.context), list(session.ledger), list(session.pins), session.meter_reading().context_tokens)
    await run_turn(session, "read README.md once more")
    await run_turn(session, "and one last time read README.md")
    assert session.ledger, "the turns made cuts (markers in the context)"
    old = (_dump(session.context), list(session.ledger))

    third = next(p for p in session.rewind_points() if p.turn == 4)
    rewound = await session.rewind(third.position)

    assert rewound.prompt == "read README.md once more"
    assert _dump(session.context) == before[0], "the context the model was about to be sent then"
    assert list(session.ledger[:-1]) == before[1], "cuts made later are no longer in effect"
    assert session.ledger[-1] is rewound.event and rewound.event.reason == "rewind"
    assert rewound.event.branch_from == 0 and rewound.event.branch_to == 1 and rewound.event.rewound_to_turn == 4
    assert list(session.pins) == before[2]
    assert session.meter_reading().context_tokens == before[3], "the meter reads as it did then"
    assert rewound.event.tokens_after == before[3], "the banner and the meter agree"
    assert len(session.transcript) == third.position

    resumed = _resume(session, store)
    assert resumed.history.branch == 1, "resume opens the branch last used"
    assert _dump(resumed.context) == before[0]
    await run_turn(resumed, "read README.md, edited")

    switched = await resumed.switch_branch(0)
    assert switched.reason == "branch_switch" and switched.branch_to == 0
    assert _dump(resumed.context) == old[0], "the branch left comes back exactly"
    assert list(resumed.ledger[:-1]) == old[1]
    rows = {row.info.id: row for row in resumed.branches()}
    assert rows[0].active and not rows[1].active
    assert rows[1].info.parent == 0 and rows[1].info.fork_at == third.position
    assert rows[1].turns == 4 and rows[1].last_prompt == "read README.md, edited"
    assert [s.id for s in store.list_sessions()] == [resumed.id], "a branch is never listed as a session"
    resumed.release_claim()
    store.close()


async def test_refused_in_one_line_while_a_turn_runs_and_for_old_prompts(tmp_path: Path) -> None:
    ws = _workspace(tmp_path / "ws")
    store = SessionStore.open(tmp_path / "data")
    session = ChatSession(_settings(tmp_path / "data"), workspace=ws, store=store)
    await run_turn(session, "hello")
    await run_turn(session, "again")
    session.gate.running = True  # as while a turn runs
    with pytest.raises(Refused) as busy:
        await session.rewind(0)
    assert "\n" not in str(busy.value) and "a turn is running" in str(busy.value)
    with pytest.raises(Refused):
        await session.switch_branch(0)
    session.gate.running = False
    with pytest.raises(BranchMoveRefused, match="no prompt|cannot be rewound"):
        await session.rewind(1)  # the answer, not a prompt
    with pytest.raises(BranchMoveRefused, match="one in use"):
        await session.switch_branch(0)
    # A session saved before marks were kept: its prompts are listed but not rewindable.
    session.release_claim()
    with sqlite3.connect(tmp_path / "data" / "sessions.db") as db:
        db.execute("DELETE FROM marks")
    old = resume_session(session.settings, workspace=ws, store=store, session_id=session.id)
    points = old.rewind_points()
    assert [p.restorable for p in points] == [False, False]
    with pytest.raises(BranchMoveRefused, match="saved before"):
        await old.rewind(points[0].position)
    old.release_claim()
    store.close()


def test_a_session_saved_by_an_earlier_version_opens_as_one_branch(tmp_path: Path) -> None:
    """Schema 6 (before the tree): migrated forward, it is branch 0 of a one-branch tree."""
    data = tmp_path / "data"
    data.mkdir()
    conn = sqlite3.connect(data / "sessions.db", isolation_level=None)
    conn.execute("BEGIN")
    for statements in migrations.MIGRATIONS[:6]:
        for statement in statements:
            conn.execute(statement)
    conn.execute("PRAGMA user_version = 6")
    conn.execute(
        "INSERT INTO sessions (id, title, created, updated, model, workspace) VALUES ('ab', 't', 1, 1, 'offline', ?)",
        (str(tmp_path),),
    )
    conn.execute("COMMIT")
    conn.close()
    with SessionStore.open(data) as store:
        with sqlite3.connect(data / "sessions.db") as db:
            assert db.execute("PRAGMA user_version").fetchone()[0] == migrations.SCHEMA_VERSION
        loaded = store.load("ab")
        assert loaded.branch == 0 and loaded.tree == [] and loaded.marks == []
        assert [s.id for s in store.list_sessions()] == ["ab"]


# --- the property: random sequences, each step followed by a resume --------------------------------

_TURN = st.tuples(st.just("turn"), st.sampled_from(["read README.md", "hello", "list the files"]))
OPS = st.lists(
    st.one_of(
        _TURN,
        _TURN,
        _TURN,
        st.tuples(st.just("compact"), st.none()),
        st.tuples(st.just("undo"), st.none()),
        st.tuples(st.just("pin"), st.none()),
        st.tuples(st.just("evict"), st.integers(0, 30)),
        st.tuples(st.just("rewind"), st.integers(0, 20)),
        st.tuples(st.just("switch"), st.integers(0, 6)),
        st.tuples(st.just("fork"), st.integers(-1, 20)),
    ),
    min_size=4,
    max_size=14,
).map(lambda ops: [("turn", "read README.md"), ("turn", "hello"), *ops])


class _Oracle:
    """What the model was sent, kept by the test: per branch, its context when last in use; per
    (branch, prompt position), the context just before that prompt went out."""

    def __init__(self) -> None:
        self.context: dict[int, bytes] = {}
        self.before: dict[tuple[int, int], tuple[bytes, int, tuple[int, ...]]] = {}


async def _step(session: ChatSession, oracle: _Oracle, op: str, arg: Any) -> None:
    branch = session.history.branch
    if op == "turn":
        oracle.before[(branch, len(session.transcript))] = (
            _dump(session.context),
            len(session.ledger),
            tuple(session.pins),
        )
        await run_turn(session, arg)
    elif op == "compact":
        await collect(session.compact())
    elif op == "rewind":
        points = [p for p in session.rewind_points() if p.restorable]
        if not points:
            return
        point = points[arg % len(points)]
        expected, ledger_len, pins = oracle.before[(branch, point.position)]
        rewound = await session.rewind(point.position)
        assert _dump(session.context) == expected
        assert len(session.ledger) == ledger_len + 1 and session.ledger[-1] is rewound.event
        assert tuple(session.pins) == pins
        new = session.history.branch
        for (b, position), value in list(oracle.before.items()):
            if b == branch and position < point.position:
                oracle.before[(new, position)] = value
        return
    elif op == "fork":  # a new session from now (-1) or from before a prompt: exactly that context
        points = [p for p in session.rewind_points() if p.restorable]
        point = points[arg % len(points)] if points and arg >= 0 else None
        if point is None and not session.transcript:
            return
        expected = _dump(session.context) if point is None else oracle.before[(branch, point.position)][0]
        new_id = await session.fork(None if point is None else point.position)
        store = session.store
        assert store is not None
        fork = resume_session(session.settings, workspace=session.workspace, store=store, session_id=new_id)
        try:
            assert _dump(fork.context) == expected, "the fork holds what the model was sent at that point"
        finally:
            fork.release_claim()
        return
    elif op == "switch":
        ids = [b.id for b in session.history.tree if b.id != branch]
        if not ids:
            return
        target = ids[arg % len(ids)]
        await session.switch_branch(target)
        assert _dump(session.context) == oracle.context[target], f"branch {target} comes back exactly"
        return
    else:
        try:
            if op == "undo":
                await session.undo()
            elif op == "pin":
                await session.pin_newest()
            elif op == "evict":
                await session.evict(arg % max(1, len(session.context)))
        except Refused:
            pass


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ops=OPS)
def test_every_branch_comes_back_as_the_model_was_sent_it_across_resumes(ops: list[tuple[str, Any]]) -> None:
    async def run() -> None:
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp)
            ws = _workspace(root / "ws")
            store = SessionStore.open(root / "data")
            session = ChatSession(_settings(root / "data"), workspace=ws, store=store)
            oracle = _Oracle()
            try:
                for op, arg in ops:
                    await _step(session, oracle, op, arg)
                    oracle.context[session.history.branch] = _dump(session.context)
                    if not session.transcript and not session.history.marks and session.history.branch == 0:
                        continue  # nothing saved yet: there is nothing to resume
                    session = _resume(session, store)
                    assert _dump(session.context) == oracle.context[session.history.branch], (op, arg)
                    ids = {b.id for b in session.history.tree}
                    assert session.history.branch in ids
                    # A branch left before anything was sent on it is dropped; every other one is kept.
                    oracle.context = {b: c for b, c in oracle.context.items() if b in ids}
            finally:
                session.release_claim()
                store.close()

    asyncio.run(run())


async def _approve(request: Any) -> str:
    return "once"


async def test_files_the_agent_edited_after_a_prompt_go_back_with_it(tmp_path: Path) -> None:
    ws = _workspace(tmp_path / "ws")
    store = SessionStore.open(tmp_path / "data")
    session = ChatSession(_settings(tmp_path / "data", 50_000), workspace=ws, store=store, ask=_approve)
    await run_turn(session, "write hello to notes.txt")
    await run_turn(session, "replace hello with bye in notes.txt")
    await run_turn(session, "write first to other.txt")
    points = {p.turn: p for p in session.rewind_points()}
    assert (ws / "notes.txt").read_text() == "bye\n"

    back = session.files_back(points[2].position)
    assert (back.paths, back.edits, back.conflicts) == (("notes.txt", "other.txt"), 2, ())
    assert "2 file edits after it can be put back (notes.txt, other.txt)" == back.describe()
    assert session.files_back(points[3].position).paths == ("other.txt",)

    (ws / "other.txt").write_text("changed by hand\n")  # not the agent's: never silently overwritten
    assert session.files_back(points[2].position).conflicts == ("other.txt",)
    line = await session.put_files_back(points[2].position)
    assert line == "put back 1 file (notes.txt); left other.txt as is: changed since the agent's edit"
    assert (ws / "notes.txt").read_text() == "hello\n" and (ws / "other.txt").read_text() == "changed by hand\n"

    await session.rewind(points[2].position)  # on branch 1 now: turn 1's edit is shared, turns 2-3's are not
    await run_turn(session, "write again to third.txt")
    on_branch = {p.turn: p for p in session.rewind_points()}
    assert session.files_back(on_branch[1].position).paths == ("notes.txt", "third.txt")
    line = await session.put_files_back(on_branch[1].position)
    assert line == "put back 2 files (notes.txt, third.txt)"
    assert not (ws / "notes.txt").exists() and not (ws / "third.txt").exists(), "files the edits created go"
    session.release_claim()
    store.close()


async def test_exports_carry_the_tree_and_mark_where_branches_part(tmp_path: Path) -> None:
    import json

    from co_tui.session.export import render_saved

    ws = _workspace(tmp_path / "ws")
    store = SessionStore.open(tmp_path / "data")
    session = ChatSession(_settings(tmp_path / "data", 50_000), workspace=ws, store=store)
    for prompt in ("one", "two", "three"):
        await run_turn(session, prompt)
    two = next(p for p in session.rewind_points() if p.turn == 2)
    await session.rewind(two.position)
    await run_turn(session, "two, edited")
    session.release_claim()

    _meta, md, problems = render_saved(store, session.id, "md")
    assert not problems
    assert "> ⎇ Branch 0 goes on another way from here: 3 turns, last prompt “three”" in md
    assert md.index("## User\n\none") < md.index("⎇ Branch 0") < md.index("## User\n\ntwo, edited")
    assert "## User\n\nthree" not in md, "the Markdown is the branch in use"
    assert "⎇ Conversation rewound · to before turn 2 (branch 1)" in md

    _meta, text, _problems = render_saved(store, session.id, "json")
    tree = json.loads(text)["tree"]
    assert tree["active"] == 1
    zero, one = tree["branches"]
    assert (one["id"], one["parent"], one["fork_at"], one["fork_turn"]) == (1, 0, two.position, 2)
    own = [m["parts"][0].get("content") for m in zero["transcript"] if m["kind"] == "request"]
    assert own == ["one", "two", "three"], "branch 0's messages from its fork point: the first branch's are all"
    assert zero["context"] and "transcript" not in one
    store.close()


async def test_a_rewind_whose_save_fails_stays_in_memory_and_is_saved_whole_by_the_next_save(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The switch of rows and the rewind's rows are one transaction: a failure leaves the database on
    the branch it was on, whole; the next save moves the rows and writes the new branch."""
    from co_tui.store.errors import StoreFull

    ws = _workspace(tmp_path / "ws")
    store = SessionStore.open(tmp_path / "data")
    session = ChatSession(_settings(tmp_path / "data", 50_000), workspace=ws, store=store)
    for prompt in ("one", "two", "three"):
        await run_turn(session, prompt)
    old = _dump(session.context)
    two = next(p for p in session.rewind_points() if p.turn == 2)
    from co_tui.store import writer

    real_write = writer.write_rows

    def full(*args: Any, **kwargs: Any) -> Any:
        real_write(*args, **kwargs)  # the rows are written inside the transaction, then the disk fills
        raise StoreFull("the disk is full")

    monkeypatch.setattr(writer, "write_rows", full)
    rewound = await session.rewind(two.position)
    assert "not saved" in (rewound.event.note or "") and session.unsaved()
    with sqlite3.connect(tmp_path / "data" / "sessions.db") as db:
        assert db.execute("SELECT branch FROM sessions WHERE branch_of IS NULL").fetchone() == (0,)
        assert db.execute("SELECT count(*) FROM sessions").fetchone() == (1,), "nothing of the switch was written"
    monkeypatch.setattr(writer, "write_rows", real_write)
    await run_turn(session, "two, edited")
    assert not session.unsaved()
    now = _dump(session.context)
    back = _resume(session, store)
    assert back.history.branch == 1 and _dump(back.context) == now
    await back.switch_branch(0)
    assert _dump(back.context) == old, "the branch left was kept whole"
    back.release_claim()
    store.close()


async def test_a_mark_stored_as_the_one_before_plus_its_turn_reads_back_exactly_after_a_resume(tmp_path: Path) -> None:
    """A turn adds a short mark row (the previous mark plus what changed at the end); a resumed
    session reads a mark back through that chain, cuts and markers included."""
    import json

    ws = _workspace(tmp_path / "ws")
    store = SessionStore.open(tmp_path / "data")
    session = ChatSession(_settings(tmp_path / "data"), workspace=ws, store=store)
    before: dict[int, bytes] = {}
    for i, prompt in enumerate(["hello", "read README.md", "hi", "read README.md", "more", "read README.md", "x"]):
        before[i + 1] = _dump(session.context)
        await run_turn(session, prompt)
    assert session.ledger, "cuts were made along the way"
    with sqlite3.connect(tmp_path / "data" / "sessions.db") as db:
        rows = [json.loads(r) for (r,) in db.execute("SELECT context FROM marks ORDER BY position")]
    assert any(isinstance(r, dict) and r["depth"] >= 2 for r in rows), "chained marks"
    assert all(len(json.dumps(r)) < 200 for r in rows if isinstance(r, dict)), "a turn's mark is short"
    resumed = _resume(session, store)
    for point in resumed.rewind_points():
        context = store.mark_context(resumed.id, point.position, resumed.transcript)
        assert context is not None and _dump(context) == before[point.turn], point.turn
    sixth = next(p for p in resumed.rewind_points() if p.turn == 6)
    await resumed.rewind(sixth.position)
    assert _dump(resumed.context) == before[6]
    resumed.release_claim()
    store.close()


async def test_a_branch_left_before_anything_was_sent_on_it_is_not_kept(tmp_path: Path) -> None:
    ws = _workspace(tmp_path / "ws")
    store = SessionStore.open(tmp_path / "data")
    session = ChatSession(_settings(tmp_path / "data", 50_000), workspace=ws, store=store)
    for prompt in ("one", "two", "three"):
        await run_turn(session, prompt)
    points = {p.turn: p for p in session.rewind_points()}
    await session.rewind(points[3].position)  # the wrong prompt: at once back further
    second = await session.rewind(points[2].position)
    assert second.event.branch_from == 0, "the turns after it are in branch 0"
    assert [(b.id, b.parent) for b in session.history.tree] == [(0, None), (1, 0)]
    assert session.history.branch == 1
    await run_turn(session, "two, edited")
    with sqlite3.connect(tmp_path / "data" / "sessions.db") as db:
        assert db.execute("SELECT id, parent FROM branches ORDER BY id").fetchall() == [(0, None), (1, 0)]
        assert db.execute("SELECT id FROM sessions WHERE branch_of IS NOT NULL").fetchall() == [(f"{session.id}.b0",)]
    back = _resume(session, store)
    assert [b.turns for b in back.branches()] == [3, 2]
    back.release_claim()
    store.delete(session.id)  # a session goes with its branches
    with sqlite3.connect(tmp_path / "data" / "sessions.db") as db:
        assert db.execute("SELECT count(*) FROM sessions").fetchone() == (0,)
        assert db.execute("SELECT count(*) FROM transcript").fetchone() == (0,)
    store.close()


async def test_rewinding_a_resumed_session_keeps_its_cost_known(tmp_path: Path) -> None:
    """The new-user walk: rewinding a resumed session made its cost unknown — the meter lost its
    `$0.00` and `--list-sessions` showed `–` for good — because the cost of a prefix of the saved
    messages was taken as unknown. It is the saved cost less what the dropped messages cost."""
    ws = _workspace(tmp_path / "ws")
    store = SessionStore.open(tmp_path / "data")
    session = ChatSession(_settings(tmp_path / "data", budget=100_000), workspace=ws, store=store)
    for prompt in ("hello", "read README.md", "thanks"):
        await run_turn(session, prompt)
    assert session.meter_reading().cost_usd == 0.0
    resumed = _resume(session, store)
    second = [p for p in resumed.rewind_points() if p.first_line == "read README.md"][0]
    await resumed.rewind(second.position)
    assert resumed.meter_reading().cost_usd == 0.0, "the offline model's turns cost 0, known"
    await run_turn(resumed, "read README.md again")
    [meta] = [m for m in store.list_sessions(ws) if m.id == resumed.id]
    assert meta.cost_usd == 0.0


async def test_a_fifo_in_place_of_an_edited_file_is_refused_not_waited_on(tmp_path: Path) -> None:
    """A FIFO planted where the agent wrote a file blocked the rewind picker's read for good (and
    then the exit): it is not a regular file, so it counts as changed since, and is never put back
    over. The read runs in a daemon thread here so that, on the old code, the test fails rather
    than hangs; the FIFO is opened for writing afterwards to let any blocked reader go."""
    import os
    import threading

    ws = _workspace(tmp_path / "ws")
    store = SessionStore.open(tmp_path / "data")
    session = ChatSession(_settings(tmp_path / "data", 50_000), workspace=ws, store=store, ask=_approve)
    await run_turn(session, "write hello to notes.txt")
    await run_turn(session, "replace hello with bye in notes.txt")
    points = {p.turn: p for p in session.rewind_points()}
    (ws / "notes.txt").unlink()
    os.mkfifo(ws / "notes.txt")
    answer: list[Any] = []
    done = threading.Event()

    def read() -> None:
        answer.append(session.files_back(points[2].position))
        done.set()

    threading.Thread(target=read, daemon=True).start()
    try:
        assert done.wait(timeout=30), "files_back blocked on the FIFO"
        assert answer[0].conflicts == ("notes.txt",)
        line = await session.put_files_back(points[2].position, overwrite=True)
        assert line == "put back 0 files; could not put back notes.txt: refused: notes.txt is not a regular file"
        assert (ws / "notes.txt").is_fifo()
    finally:
        with contextlib.suppress(OSError):
            os.close(os.open(ws / "notes.txt", os.O_WRONLY | os.O_NONBLOCK))  # frees a blocked reader
        session.release_claim()
        store.close()

"""`co-tui --list-sessions`, `--export`, `--continue`, `--resume` and crash safety. What the command
says and saves is checked with it called in-process (`call_co_tui`); signals, kills and a second
writer are real processes (`start_co_tui`)."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from cli_process import call_co_tui, start_co_tui
from damaged_db import damage_workspace_index
from pydantic_ai.messages import ModelRequest, UserPromptPart
from support.builders import saved_tool_turn

from co_tui.governance.events import HistoryTrimmed
from co_tui.session import migrations
from co_tui.store.errors import StoreCorrupt, StoreError
from co_tui.store.session_store import SessionStore


def co_tui(*args: str, cwd: Path, data_dir: Path) -> subprocess.CompletedProcess[str]:
    """`co-tui args…` in `cwd` on the store in `data_dir`, called in this process."""
    return call_co_tui(*args, cwd=cwd, env={"CO_TUI_DATA_DIR": str(data_dir)})


@pytest.fixture
def seeded(data_dir: Path, tmp_path: Path) -> tuple[str, str]:
    """Two sessions in one workspace: one with a cut in its ledger, one with a damaged row."""
    with SessionStore.open(data_dir) as store:
        good = store.create_session(model="offline", workspace=tmp_path, title="explain the handlers")
        cut = HistoryTrimmed(
            reason="token_budget",
            strategy="turn_trim",
            dropped_messages=4,
            dropped_turns=1,
            tokens_before=9000,
            tokens_after=5000,
            budget_tokens=8000,
        )
        store.save_turn(
            good,
            new_transcript=saved_tool_turn(0) + saved_tool_turn(1),
            context=saved_tool_turn(1),
            new_events=[cut],
            tokens=5000,
        )
        bad = store.create_session(model="offline", workspace=tmp_path, title="broken one")
        store.save_turn(bad, new_transcript=saved_tool_turn(0), context=saved_tool_turn(0), new_events=[])
    conn = sqlite3.connect(data_dir / "sessions.db")
    conn.execute("UPDATE transcript SET body = '{' WHERE session_id = ? AND seq = 1", (bad,))
    conn.commit()
    conn.close()
    return good, bad


def test_list_and_export(seeded: tuple[str, str], data_dir: Path, tmp_path: Path) -> None:
    good, bad = seeded
    listing = co_tui("--list-sessions", cwd=tmp_path, data_dir=data_dir)
    assert listing.returncode == 0, listing.stderr
    assert good[:8] in listing.stdout and bad[:8] in listing.stdout
    assert "explain the handlers" in listing.stdout and "broken one" in listing.stdout

    md = co_tui("--export", good[:6], "--format", "md", cwd=tmp_path, data_dir=data_dir)
    assert md.returncode == 0, md.stderr
    assert md.stdout.startswith("# explain the handlers")
    assert "> ✂ History trimmed · 4 messages (1 turn)" in md.stdout

    js = co_tui("--export", good, "--format", "json", cwd=tmp_path, data_dir=data_dir)
    assert js.returncode == 0, js.stderr
    doc = json.loads(js.stdout)
    assert len(doc["transcript"]) == 8 and doc["ledger"][0]["strategy"] == "turn_trim"


def test_a_damaged_session_exports_its_good_rows_then_is_flagged_until_repaired(
    seeded: tuple[str, str], data_dir: Path, tmp_path: Path
) -> None:
    # Issue 33: one bad row made --export refuse the whole session, and a repaired row left the
    # session listed as damaged for good.
    good, bad = seeded
    for fmt in ("md", "json"):
        proc = co_tui("--export", bad, "--format", fmt, cwd=tmp_path, data_dir=data_dir)
        assert proc.returncode == 0, proc.stderr
        assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr
        assert f"session {bad[:8]} is damaged: 1 part could not be read" in proc.stderr
        assert "transcript message 1" in proc.stderr and "the rest was exported" in proc.stderr
    md = co_tui("--export", bad, cwd=tmp_path, data_dir=data_dir).stdout
    assert md.startswith("# broken one") and "> ⚠ This message could not be read:" in md
    assert all(block in md for block in ("## User", "**Tool result**", "## Assistant")), "the good rows are there"
    doc = json.loads(co_tui("--export", bad, "--format", "json", cwd=tmp_path, data_dir=data_dir).stdout)
    assert len(doc["transcript"]) == 4 and "co_tui_damaged" in doc["transcript"][1]["metadata"]
    # --export is read-only, so the damage is flagged by the next writable load (a resume).
    assert "damaged" not in co_tui("--list-sessions", cwd=tmp_path, data_dir=data_dir).stdout
    with SessionStore.open(data_dir) as store, pytest.raises(StoreCorrupt):
        store.load(bad)
    assert "damaged" in co_tui("--list-sessions", cwd=tmp_path, data_dir=data_dir).stdout
    conn = sqlite3.connect(data_dir / "sessions.db")  # the row repaired (as `.recover` or a backup would)
    conn.execute(
        """UPDATE transcript SET body = (SELECT body FROM transcript WHERE session_id = ? AND seq = 1)
           WHERE session_id = ? AND seq = 1""",
        (good, bad),
    )
    conn.commit()
    conn.close()
    with SessionStore.open(data_dir) as store:
        store.check(bad)  # the picker's check (a lazy load, as a resume): every row is read again
    assert "damaged" not in co_tui("--list-sessions", cwd=tmp_path, data_dir=data_dir).stdout


def _dir_state(path: Path) -> dict[str, tuple[int, int, bytes]]:
    state = {".": (os.stat(path).st_mode, os.stat(path).st_mtime_ns, b"")}
    for name in sorted(os.listdir(path)):
        st = os.stat(path / name)
        state[name] = (st.st_mode, st.st_mtime_ns, (path / name).read_bytes())
    return state


def test_list_and_export_write_nothing_in_a_read_only_data_dir(
    seeded: tuple[str, str], data_dir: Path, tmp_path: Path
) -> None:
    """Tests run as root, which a chmod does not stop, so prove no write happens instead: no file
    created (-wal/-shm, exports), no mode changed, no byte or mtime changed. The old writable open
    chmod-ed the file back to 0600 and left -wal/-shm behind."""
    good, _bad = seeded
    os.chmod(data_dir / "sessions.db", 0o444)
    os.chmod(data_dir, 0o555)
    try:
        before = _dir_state(data_dir)
        conn = sqlite3.connect(f"file:{data_dir / 'sessions.db'}?immutable=1", uri=True)
        version_before = conn.execute("PRAGMA data_version").fetchone()[0]
        listing = co_tui("--list-sessions", cwd=tmp_path, data_dir=data_dir)
        md = co_tui("--export", good[:8], cwd=tmp_path, data_dir=data_dir)
        assert listing.returncode == 0 and good[:8] in listing.stdout, listing.stderr
        assert md.returncode == 0 and md.stdout.startswith("# explain the handlers"), md.stderr
        assert _dir_state(data_dir) == before
        assert conn.execute("PRAGMA data_version").fetchone()[0] == version_before
        conn.close()
    finally:
        os.chmod(data_dir, 0o700)


def test_list_and_export_without_a_database_create_nothing(data_dir: Path, tmp_path: Path) -> None:
    listing = co_tui("--list-sessions", cwd=tmp_path, data_dir=data_dir)
    assert listing.returncode == 0 and listing.stdout == "no saved sessions\n"
    proc = co_tui("--export", "abcd", cwd=tmp_path, data_dir=data_dir)
    assert proc.returncode == 2 and "no session matches" in proc.stderr and proc.stderr.count("\n") == 1
    assert not data_dir.exists()


def test_read_only_open_refuses_an_older_schema_without_migrating(data_dir: Path) -> None:
    SessionStore.open(data_dir).close()
    conn = sqlite3.connect(data_dir / "sessions.db")
    conn.execute("PRAGMA user_version = 1")
    conn.close()
    with pytest.raises(StoreError, match="older schema"):
        SessionStore.open_read_only(data_dir)
    conn = sqlite3.connect(data_dir / "sessions.db")
    assert conn.execute("PRAGMA user_version").fetchone()[0] == 1
    conn.close()


def test_export_unknown_id(seeded: tuple[str, str], data_dir: Path, tmp_path: Path) -> None:
    proc = co_tui("--export", "ffffffff", cwd=tmp_path, data_dir=data_dir)
    assert proc.returncode == 2 and "no session matches" in proc.stderr and proc.stderr.count("\n") == 1


def test_list_sessions_search(seeded: tuple[str, str], data_dir: Path, tmp_path: Path) -> None:
    """`--search WORDS` (issue 32 item 14): the matching sessions, each with a line around its hit."""
    good, bad = seeded
    with SessionStore.open(data_dir) as store:
        store.save_turn(
            good,
            new_transcript=[
                ModelRequest(parts=[UserPromptPart("where is the \x1b]0;pwned\x07 tokenizer configured?")])
            ],
            context=None,
            new_events=[],
        )
    proc = co_tui("--list-sessions", "--search", "tokenizer", "conf", cwd=tmp_path, data_dir=data_dir)
    assert proc.returncode == 0, proc.stderr
    header, row, snippet = proc.stdout.splitlines()
    assert header.startswith("ID") and row.startswith(good[:8]) and "explain the handlers" in row
    assert snippet.strip() == "› …the \\x1b]0;pwned\\x07 tokenizer configured?"  # escaped, no bold on a pipe
    both = co_tui("--list-sessions", "--search", "handler", cwd=tmp_path, data_dir=data_dir)
    assert [line[:8] for line in both.stdout.splitlines()[1::2]] == [good[:8], bad[:8]]
    assert "handler" in both.stdout.splitlines()[2]
    hostile = co_tui("--list-sessions", "--search", 'NEAR("a', "OR", "*", cwd=tmp_path, data_dir=data_dir)
    assert hostile.returncode == 0 and hostile.stdout == 'no saved session matches “NEAR("a OR *”\n', hostile.stderr
    misuse = co_tui("--search", "x", cwd=tmp_path, data_dir=data_dir)
    assert misuse.returncode == 2 and "--search applies to --list-sessions" in misuse.stderr


def test_newer_database_is_refused_by_the_cli(data_dir: Path, tmp_path: Path) -> None:
    SessionStore.open(data_dir).close()
    conn = sqlite3.connect(data_dir / "sessions.db")
    newer = migrations.SCHEMA_VERSION + 1
    conn.execute(f"PRAGMA user_version = {newer}")
    conn.close()
    proc = co_tui("--list-sessions", cwd=tmp_path, data_dir=data_dir)
    assert proc.returncode == 2 and f"newer co-tui (schema {newer})" in proc.stderr


def _turns_in(data_dir: Path) -> tuple[str, int]:
    with SessionStore.open(data_dir) as store:
        [meta] = store.list_sessions()
        loaded = store.load(meta.id)
    prompts = [
        m for m in loaded.transcript if m.kind == "request" and any(p.part_kind == "user-prompt" for p in m.parts)
    ]
    return meta.id, len(prompts)


@pytest.mark.slow
def test_sigkill_mid_turn_keeps_every_completed_turn(data_dir: Path, tmp_path: Path) -> None:
    (tmp_path / "README.md").write_text("# demo\nA small project.\n")
    for prompt in ("hello", "read README.md"):
        args = ("-p", prompt) if prompt == "hello" else ("--continue", "-p", prompt)
        done = co_tui(*args, cwd=tmp_path, data_dir=data_dir)
        assert done.returncode == 0, done.stderr
    session_id, completed = _turns_in(data_dir)
    assert completed == 2

    # A third turn, streamed slowly; killed once it is visibly under way.
    proc = _start_slow_turn("tell me a long story", tmp_path, data_dir, "--continue")
    _read_until(proc, "text_delta", 3)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=10)
    assert proc.returncode == -signal.SIGKILL

    conn = sqlite3.connect(data_dir / "sessions.db")
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    conn.close()
    resumed_id, kept = _turns_in(data_dir)
    # Every completed turn is there, and the killed one's prompt too: it was saved when it went out
    # (each finished step is saved as it completes); only the answer in flight is lost.
    assert resumed_id == session_id and kept == completed + 1

    # And the session goes on from there.
    after = co_tui("--resume", session_id[:8], "-p", "hello again", cwd=tmp_path, data_dir=data_dir)
    assert after.returncode == 0, after.stderr
    _same, now = _turns_in(data_dir)
    assert now == kept + 1


def test_resume_hint_only_for_a_saved_session_with_turns(tmp_path: Path) -> None:
    import asyncio

    from co_tui.config import load_settings
    from co_tui.session.opening import open_session, resume_hint

    session = open_session(load_settings(), tmp_path)
    assert resume_hint(session) is None  # nothing to come back to

    async def one_turn() -> None:
        async for _event in session.run_turn("hello"):
            pass

    asyncio.run(one_turn())
    assert resume_hint(session) == f"resume with: co-tui --resume {session.id}"
    session.store.close()
    assert resume_hint(None) is None


def _start_slow_turn(
    prompt: str, tmp_path: Path, data_dir: Path, *extra: str, delay: float = 0.2
) -> subprocess.Popen[str]:
    """A -p turn streamed slowly, `delay` s a word (the scenario: a signal or a second process lands
    mid-answer)."""
    return start_co_tui(
        *extra,
        "-p",
        prompt,
        "--output-format",
        "jsonl",
        cwd=tmp_path,
        env={"CO_TUI_DATA_DIR": str(data_dir), "CO_TUI_OFFLINE_DELAY": str(delay)},
    )


def _read_until(proc: subprocess.Popen[str], wanted: str, count: int = 1) -> list[dict]:
    """jsonl events up to the `count`-th of type `wanted` (the process is then visibly past it)."""
    assert proc.stdout is not None
    seen: list[dict] = []
    while sum(e["type"] == wanted for e in seen) < count:
        line = proc.stdout.readline()
        assert line, f"ended before {wanted}: {proc.stderr.read() if proc.stderr else ''}"
        seen.append(json.loads(line))
    return seen


@pytest.mark.slow
@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP])
def test_sigterm_and_sighup_interrupt_and_keep_the_turn(signum: int, data_dir: Path, tmp_path: Path) -> None:
    (tmp_path / "README.md").write_text("# demo\nA small project.\n" * 40)
    proc = _start_slow_turn("read README.md", tmp_path, data_dir)
    try:
        _read_until(proc, "tool_result")
        _read_until(proc, "text_delta", 2)  # the answer is streaming
        proc.send_signal(signum)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, err
    assert [line for line in err.splitlines() if line.strip()] == ["co-tui: interrupted: the partial answer is kept"]
    assert json.loads(out.splitlines()[-1])["interrupted"] is True
    with SessionStore.open(data_dir) as store:
        [meta] = store.list_sessions()
        loaded = store.load(meta.id)
    parts = [p.part_kind for m in loaded.transcript for p in m.parts]
    assert "user-prompt" in parts and "tool-call" in parts and "tool-return" in parts and "text" in parts
    assert [p.part_kind for p in loaded.context[-1].parts][-1] == "text"  # the partial answer is in context


@pytest.mark.slow
def test_sigkill_after_a_tool_step_keeps_that_step(data_dir: Path, tmp_path: Path) -> None:
    (tmp_path / "README.md").write_text("# demo\nA small project.\n" * 40)
    proc = _start_slow_turn("read README.md", tmp_path, data_dir)
    try:
        _read_until(proc, "tool_result")
        _read_until(proc, "text_delta")  # the next step has started: the tool step was saved
    finally:
        proc.kill()
        proc.wait(timeout=10)
    with SessionStore.open(data_dir) as store:
        [meta] = store.list_sessions()
        loaded = store.load(meta.id)
    kinds = [p.part_kind for m in loaded.context for p in m.parts]
    assert kinds == ["user-prompt", "tool-call", "tool-return"]
    assert "A small project." in str(loaded.context[-1].parts[0].content)
    after = co_tui("--continue", "-p", "hello again", cwd=tmp_path, data_dir=data_dir)
    assert after.returncode == 0, after.stderr


@pytest.mark.slow
def test_parallel_continue_refuses_the_second_writer(data_dir: Path, tmp_path: Path) -> None:
    first = co_tui("-p", "hello", cwd=tmp_path, data_dir=data_dir)
    assert first.returncode == 0, first.stderr
    # 3 s a word: the answer outlasts the second co-tui's start-up on a loaded host too (at 0.2 s it
    # once ended first, at load ~13, and the second then opened the session as it should).
    slow = _start_slow_turn("tell me a long story", tmp_path, data_dir, "--continue", delay=3)
    try:
        _read_until(slow, "text_delta")  # it holds the session now
        second = co_tui("--continue", "-p", "second", cwd=tmp_path, data_dir=data_dir)
        slow.send_signal(signal.SIGINT)
        slow.communicate(timeout=60)
    finally:
        if slow.poll() is None:
            slow.kill()
    assert second.returncode == 2
    assert second.stderr.count("\n") == 1 and "is open in another co-tui process (pid" in second.stderr
    # Nothing the refused run said reached the session; both turns of the holder are in its context.
    third = co_tui("--continue", "-p", "third", cwd=tmp_path, data_dir=data_dir)
    assert third.returncode == 0, third.stderr
    with SessionStore.open(data_dir) as store:
        [meta] = store.list_sessions()
        loaded = store.load(meta.id)

    def prompts(messages: list) -> list[str]:
        return [p.content for m in messages for p in m.parts if p.part_kind == "user-prompt"]

    assert prompts(loaded.transcript) == ["hello", "tell me a long story", "third"]
    assert prompts(loaded.context) == prompts(loaded.transcript)


@pytest.mark.slow
def test_six_parallel_continues_lose_no_turn_from_the_context(data_dir: Path, tmp_path: Path) -> None:
    first = co_tui("-p", "hello", cwd=tmp_path, data_dir=data_dir)
    assert first.returncode == 0, first.stderr
    procs = [
        start_co_tui("--continue", "-p", f"turn {i}", cwd=tmp_path, env={"CO_TUI_DATA_DIR": str(data_dir)})
        for i in range(6)
    ]
    results = [(p.communicate(timeout=120), p.returncode) for p in procs]
    ran = {f"turn {i}" for i, (_, code) in enumerate(results) if code == 0}
    refused = [err for (_, err), code in results if code != 0]
    assert all(code in (0, 2) for _, code in results)
    assert all("is open in another co-tui process" in err for err in refused)
    with SessionStore.open(data_dir) as store:
        [meta] = store.list_sessions()
        loaded = store.load(meta.id)
    in_context = [p.content for m in loaded.context for p in m.parts if p.part_kind == "user-prompt"]
    in_transcript = [p.content for m in loaded.transcript for p in m.parts if p.part_kind == "user-prompt"]
    assert in_context == in_transcript  # every turn that ran is in what the model is sent next
    assert set(in_transcript) == {"hello"} | ran


@pytest.mark.slow
def test_ctrl_c_stops_a_catastrophic_search_in_print_mode(data_dir: Path, tmp_path: Path) -> None:
    (tmp_path / "data.txt").write_text("a" * 40 + "!\n")  # `(a+)+$` backtracks ~2**40 steps here
    proc = start_co_tui(
        "-p",
        "search (a+)+$ in .",
        "--output-format",
        "jsonl",
        cwd=tmp_path,
        env={"CO_TUI_DATA_DIR": str(data_dir), "CO_TUI_SEARCH_TIMEOUT_S": "3600"},
    )
    try:
        _read_until(proc, "tool_call")  # the search is running
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)  # without the child process: minutes, deaf to SIGINT
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, err
    assert "interrupted" in err


def _damage_sessions_table(data_dir: Path) -> None:
    """Overwrite the `sessions` table's root page, after folding the WAL into the file."""
    conn = sqlite3.connect(data_dir / "sessions.db")
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    root, page_size = (
        conn.execute("SELECT rootpage FROM sqlite_master WHERE name = 'sessions'").fetchone()[0],
        conn.execute("PRAGMA page_size").fetchone()[0],
    )
    conn.close()
    with (data_dir / "sessions.db").open("r+b") as handle:
        handle.seek((root - 1) * page_size)
        handle.write(b"\xde\xad" * (page_size // 2))


def test_damaged_database_file_says_where_and_how_to_recover(data_dir: Path, tmp_path: Path) -> None:
    first = co_tui("-p", "hello", cwd=tmp_path, data_dir=data_dir)
    assert first.returncode == 0, first.stderr
    _damage_sessions_table(data_dir)
    db = data_dir / "sessions.db"
    for args in (("--list-sessions",), ("--continue", "-p", "again")):
        proc = co_tui(*args, cwd=tmp_path, data_dir=data_dir)
        assert proc.returncode == 2, (args, proc.stderr)
        assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr, proc.stderr
        assert f"session database {db} is damaged" in proc.stderr
        assert f"cp {db} {db}.bak" in proc.stderr and "PRAGMA integrity_check" in proc.stderr

    # A new turn is answered, cannot be saved in the damaged file, and is written beside it.
    new = co_tui("-p", "hello there", cwd=tmp_path, data_dir=data_dir)
    assert new.returncode == 1 and "offline" in new.stdout  # answered; exit 1: it could not be saved as usual
    [rescued] = data_dir.glob("rescued-*.json")
    assert f"it was written to {rescued} instead" in new.stderr
    assert "kept in memory" not in new.stderr  # print mode exits: only the rescue copy keeps it
    assert (rescued.stat().st_mode & 0o777) == 0o600
    doc = json.loads(rescued.read_text())
    assert doc["transcript"][0]["parts"][0]["content"] == "hello there"
    assert any(p.get("part_kind") == "text" for m in doc["transcript"] for p in m["parts"])


def test_continue_on_a_damaged_index_says_damaged(data_dir: Path, tmp_path: Path) -> None:
    """The lookup by workspace finds no rows through a damaged index: --continue said "no saved
    session in ... to continue"; it says the file is damaged, in one line, exit 2."""
    assert co_tui("-p", "hello", cwd=tmp_path, data_dir=data_dir).returncode == 0
    damage_workspace_index(data_dir / "sessions.db", tmp_path)
    proc = co_tui("--continue", "-p", "again", cwd=tmp_path, data_dir=data_dir)
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr, proc.stderr
    assert f"session database {data_dir / 'sessions.db'} is damaged" in proc.stderr
    assert "no saved session" not in proc.stderr

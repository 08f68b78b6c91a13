"""`--resume FILE`: a rescue copy (`rescued-….json`) or a `--format json` export read back in as a new
session (session/json_import.py), end to end with the real command, and its one-line refusals."""

from __future__ import annotations

import json
import sqlite3
import subprocess
from pathlib import Path

import pytest
from cli_process import call_co_tui
from support.builders import breadcrumb, saved_tool_turn

from co_tui.governance.events import HistoryTrimmed
from co_tui.session.export import export_json
from co_tui.session.json_import import import_json_export
from co_tui.store.errors import StoreError
from co_tui.store.session_store import SessionStore


def co_tui(*args: str, cwd: Path, data_dir: Path) -> subprocess.CompletedProcess[str]:
    """`co-tui args…` on the store in `data_dir`, called in this process."""
    return call_co_tui(*args, cwd=cwd, env={"CO_TUI_DATA_DIR": str(data_dir)})


def _damage(db: Path) -> None:
    """Scribble over the `sessions` table's root page: the file opens, no save succeeds."""
    conn = sqlite3.connect(db)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    root = conn.execute("SELECT rootpage FROM sqlite_master WHERE name = 'sessions'").fetchone()[0]
    page = conn.execute("PRAGMA page_size").fetchone()[0]
    conn.close()
    with db.open("r+b") as handle:
        handle.seek((root - 1) * page)
        handle.write(b"\xde\xad" * (page // 2))


def test_a_rescue_copy_is_resumed_in_print_mode(tmp_path: Path) -> None:
    # Issue 33: a conversation whose save failed survived only as rescued-*.json, which co-tui
    # could not read back.
    damaged, fresh = tmp_path / "damaged", tmp_path / "fresh"
    assert co_tui("-p", "hello", cwd=tmp_path, data_dir=damaged).returncode == 0
    _damage(damaged / "sessions.db")
    lost = co_tui("-p", "a prompt worth keeping", cwd=tmp_path, data_dir=damaged)
    [rescued] = damaged.glob("rescued-*.json")
    assert str(rescued) in lost.stderr

    resumed = co_tui("--resume", str(rescued), "-p", "and one more", cwd=tmp_path, data_dir=fresh)
    assert resumed.returncode == 0, resumed.stderr
    listed = co_tui("--list-sessions", cwd=tmp_path, data_dir=fresh)
    [line] = [row for row in listed.stdout.splitlines() if "prompt worth keeping" in row]
    exported = co_tui("--export", line.split()[0], "--format", "json", cwd=tmp_path, data_dir=fresh)
    assert exported.returncode == 0, exported.stderr
    prompts = [
        p["content"]
        for m in json.loads(exported.stdout)["transcript"]
        for p in m["parts"]
        if p["part_kind"] == "user-prompt"
    ]
    assert prompts == ["a prompt worth keeping", "and one more"]
    assert rescued.exists(), "the rescue file is left as it was"


def test_cuts_and_context_come_back_as_they_were(store: SessionStore, tmp_path: Path) -> None:
    sid = store.create_session(model="test:model", workspace=tmp_path, title="explain files")
    turns = [saved_tool_turn(i) for i in range(3)]
    store.save_turn(sid, new_transcript=turns[0] + turns[1], context=turns[0] + turns[1], new_events=[])
    cut = HistoryTrimmed(reason="token_budget", strategy="turn_trim", dropped_messages=4, dropped_turns=1)
    context = [breadcrumb(4, 1), *turns[1], *turns[2]]
    store.save_turn(sid, new_transcript=turns[2], context=context, new_events=[cut])
    original = store.load(sid)
    export = tmp_path / "rescued-12345678-20260101-000000.json"
    export.write_text(export_json(original))

    imported = store.load(import_json_export(store, export, tmp_path))
    assert imported.meta.id != sid and imported.meta.title == "explain files"
    assert list(imported.transcript) == list(original.transcript)
    assert imported.context == original.context, "the model is sent what it was sent before"
    assert [e.to_dict() for e in imported.ledger] == [e.to_dict() for e in original.ledger]
    assert imported.ledger_positions == original.ledger_positions


@pytest.mark.parametrize(
    ("content", "says"),
    [
        ("not json at all", "not JSON"),
        ('{"format": "something-else"}', "not a co-tui session export"),
        ('{"format": "co-tui-session", "transcript": [{"kind": "nonsense"}]}', "cannot be read"),
        ('{"format": "co-tui-session", "transcript": []}', "holds no messages"),
    ],
)
def test_a_file_that_is_no_export_is_one_line(store: SessionStore, tmp_path: Path, content: str, says: str) -> None:
    path = tmp_path / "x.json"
    path.write_text(content)
    with pytest.raises(StoreError) as err:
        import_json_export(store, path, tmp_path)
    message = str(err.value)
    assert says in message and str(path) in message and "\n" not in message, message
    assert store.list_sessions() == [], "nothing half-imported"


def test_a_missing_file_is_one_line_exit_2(tmp_path: Path) -> None:
    proc = co_tui("--resume", "nowhere/rescued-x.json", "-p", "hi", cwd=tmp_path, data_dir=tmp_path / "data")
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1 and "cannot be read" in proc.stderr and "Traceback" not in proc.stderr

"""A full disk (issue 40, item 12), for real: the data dir is a 320 KB tmpfs in a private mount
namespace (`unshare`), filled after a first saved turn until only 48 KB are free. A second turn
reads a 200 KB file: its save fails (SQLite: database or disk is full) and so does its rescue copy
(ENOSPC). What must hold: exit 1 with one line, no empty or cut rescue file, and the database still
holds the first turn."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from cli_process import ROOT

pytestmark = pytest.mark.slow

# Runs as root inside a new user + mount namespace: mounts the tmpfs, runs co-tui twice, fills the
# disk in between, and copies out what the test checks.
SCRIPT = r"""
import json, os, shutil, subprocess, sys
data, out = sys.argv[1], sys.argv[2]
subprocess.run(["mount", "-t", "tmpfs", "-o", "size=320k,mode=700", "tmpfs", data], check=True)
cmd = [sys.executable, "-m", "co_tui"]
first = subprocess.run([*cmd, "-p", "hello", "--output-format", "jsonl"], capture_output=True, text=True)
assert first.returncode == 0, first.stderr
session = json.loads(first.stdout.splitlines()[-1])["session_id"]
st = os.statvfs(data)
with open(os.path.join(data, "fill"), "wb") as fill:
    fill.write(b"\0" * (st.f_bavail * st.f_frsize - 48 * 1024))
second = subprocess.run([*cmd, "--resume", session, "-p", "read big.md"], capture_output=True, text=True)
for name in os.listdir(data):
    if name.startswith("sessions.db"):
        shutil.copy(os.path.join(data, name), os.path.join(out, name))
names = {n: os.path.getsize(os.path.join(data, n)) for n in os.listdir(data) if n != "locks"}
json.dump({"session": session, "code": second.returncode, "stderr": second.stderr, "files": names},
          open(os.path.join(out, "result.json"), "w"))
"""


def _namespaces_work() -> bool:
    if shutil.which("unshare") is None or not sys.platform.startswith("linux"):
        return False
    probe = subprocess.run(["unshare", "-rm", "true"], capture_output=True)
    return probe.returncode == 0


@pytest.mark.skipif(not _namespaces_work(), reason="needs Linux user + mount namespaces (unshare -rm)")
def test_a_full_disk_exits_1_leaves_no_empty_file_and_keeps_the_saved_turn(tmp_path: Path) -> None:
    ws, data, out = tmp_path / "ws", tmp_path / "data", tmp_path / "out"
    for folder in (ws, data, out):
        folder.mkdir()
    (ws / "big.md").write_text("".join(f"line {i}: some words of a big file to read\n" for i in range(5000)))
    env = {
        "PATH": "/usr/sbin:/usr/bin:/sbin:/bin",
        "HOME": str(tmp_path),
        "LANG": "C.UTF-8",
        "PYTHONPATH": str(ROOT),
        "CO_TUI_DATA_DIR": str(data),
        "CO_TUI_CONFIG_FILE": str(tmp_path / "config.toml"),
    }
    proc = subprocess.run(
        ["unshare", "-rm", sys.executable, "-c", SCRIPT, str(data), str(out)],
        cwd=ws,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    result = json.loads((out / "result.json").read_text())
    assert result["code"] == 1, result
    lines = [line for line in result["stderr"].splitlines() if line.strip()]
    assert "Traceback" not in result["stderr"]
    assert lines[-1] == "co-tui: the conversation could not be saved, nor written to a rescue copy beside the database"
    leftovers = {name: size for name, size in result["files"].items() if name.startswith(("rescued-", ".co-tui-"))}
    assert leftovers == {}, "no empty, cut or staged rescue file"

    import sqlite3

    with sqlite3.connect(out / "sessions.db") as conn:
        [(count,)] = conn.execute("SELECT COUNT(*) FROM sessions WHERE id = ?", (result["session"],)).fetchall()
    assert count == 1
    from co_tui.store.session_store import SessionStore

    with SessionStore.open(out) as store:
        loaded = store.load(result["session"])
    prompts = [p.content for m in loaded.transcript for p in m.parts if getattr(p, "part_kind", "") == "user-prompt"]
    assert prompts == ["hello"], "the first turn is kept as it was saved; the second is not half-saved"

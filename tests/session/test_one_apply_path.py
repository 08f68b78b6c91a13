"""Every change of a conversation's context reaches its `History` through the `EditApplier`
(applying.py): the steering operations, the cuts made inside a turn, `/clear`'s reset and the TUI
fake's scripted cuts. Read from the source, so a new way in fails here."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
COMMITS = re.compile(r"\bhistory\.commit\(|\._reset\(")


def test_only_the_edit_applier_commits_to_a_history() -> None:
    sources = [*sorted((ROOT / "co_tui").rglob("*.py")), ROOT / "tests" / "tui_fakes.py"]
    callers = {
        path.relative_to(ROOT).as_posix()
        for path in sources
        for line in path.read_text(encoding="utf-8").splitlines()
        if COMMITS.search(line)
    }
    assert callers == {"co_tui/session/applying.py", "co_tui/session/history.py"}, callers
    history = (ROOT / "co_tui/session/history.py").read_text(encoding="utf-8")
    assert "def reset(" not in history, "a history is emptied by an Edit with `reset`, applied as any edit"

"""What the conversation tree costs (issue 30; docs/context-governance.md, "Rewind and branches").

Not a test: prints figures side by side. A synthetic session of N turns (a prompt, a tool call, a
2 kB tool output, an answer) is saved turn by turn into a real SQLite file as `ChatSession` saves
it (`History.mark_turn` before each prompt, then `save_history`), once with the marks and once
with them switched off, then rewound to its first quarter and switched back:

- per turn: save time with / without marks (the ratio), and the bytes the marks add per turn
  against the transcript's;
- a rewind to a quarter of the way and a switch back (the save that moves the rows), against a
  lazy resume of the same session (`SessionStore.load(lazy=True)`).

Run: .venv/bin/python benchmarks/rewind.py [turns ...]   (default: 200 1000)
"""

from __future__ import annotations

import sqlite3
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

from pydantic_ai.messages import ModelRequest, ModelResponse, TextPart, ToolCallPart, ToolReturnPart, UserPromptPart

from co_tui.session.branching import plan_rewind, plan_switch
from co_tui.session.gauge import Gauge
from co_tui.session.history import History
from co_tui.store.session_store import SessionStore


class _Meter:
    def reading(self, messages):  # noqa: ANN001, ANN201
        return type("R", (), {"tokens": len(messages) * 100})()


GAUGE = Gauge(_Meter(), None, 1_000_000, 0, 0)


def _turn(i: int) -> list:
    call = f"call_{i}"
    return [
        ModelRequest(parts=[UserPromptPart(f"question {i}: what does module {i} do?")]),
        ModelResponse(parts=[ToolCallPart("read_file", {"path": f"src/m{i}.py"}, call)]),
        ModelRequest(parts=[ToolReturnPart("read_file", f"line {i}\n" * 256, call)]),
        ModelResponse(parts=[TextPart(f"Module {i} parses things. " * 8)]),
    ]


def _build(data: Path, turns: int, marks: bool) -> tuple[SessionStore, str, History, float]:
    store = SessionStore.open(data)
    sid = store.create_session(model="bench", workspace=data)
    history = History()
    spent = 0.0
    for i in range(turns):
        if marks:
            history.mark_turn(len(history.context) * 100, time.time())
        messages = _turn(i)
        history.extend(messages)
        history.set_context([*history.context, *messages])
        snapshot = history.snapshot() if marks else replace(history.snapshot(), marks=())
        start = time.perf_counter()
        store.save_history(sid, snapshot)
        spent += time.perf_counter() - start
    return store, sid, history, spent


def _bytes(db: Path, table: str, column: str) -> int:
    with sqlite3.connect(db) as conn:
        return int(conn.execute(f"SELECT coalesce(sum(length({column})), 0) FROM {table}").fetchone()[0])  # noqa: S608


def run(turns: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        plain, _sid0, _h0, without = _build(Path(tmp) / "plain", turns, marks=False)
        plain.close()
        store, sid, history, with_marks = _build(Path(tmp) / "marked", turns, marks=True)
        db = Path(tmp) / "marked" / "sessions.db"
        transcript = _bytes(db, "transcript", "body")
        marks = _bytes(db, "marks", "context") + _bytes(db, "marks", "pins") + _bytes(db, "mark_bodies", "body")

        start = time.perf_counter()
        store.load(sid, lazy=True)
        resume = time.perf_counter() - start

        mark = next(m for m in history.marks if m.position == 4 * (turns // 4))
        start = time.perf_counter()
        history.commit(plan_rewind(history, GAUGE, mark, created=time.time(), tokens_after=0))
        store.save_history(sid, history.snapshot())
        rewind = time.perf_counter() - start

        back = history.stashed(0)
        assert back is not None
        start = time.perf_counter()
        history.commit(plan_switch(history, GAUGE, 0, back, tokens_after=0))
        store.save_history(sid, history.snapshot())
        switch = time.perf_counter() - start
        store.close()

    print(f"{turns} turns ({turns * 4} messages, transcript {transcript / 1e6:.1f} MB)")
    print(
        f"  save per turn: {with_marks / turns * 1e3:.2f} ms with marks, {without / turns * 1e3:.2f} ms without"
        f" (ratio {with_marks / without:.2f})"
    )
    print(
        f"  marks: {marks / turns:.0f} bytes per turn against {transcript / turns:.0f} of transcript"
        f" ({marks / transcript:.1%})"
    )
    print(
        f"  rewind to turn {turns // 4 + 1}: {rewind * 1e3:.0f} ms · switch back: {switch * 1e3:.0f} ms"
        f" · lazy resume: {resume * 1e3:.0f} ms (rewind/resume {rewind / resume:.1f}x)"
    )


if __name__ == "__main__":
    for n in [int(a) for a in sys.argv[1:]] or [200, 1000]:
        run(n)

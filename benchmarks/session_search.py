"""Session search benchmark (not a test): what the FTS5 index costs and what it buys (issue 32 item 14).

Builds a store of SESSIONS sessions of TURNS turns each (prompt, tool call, tool output, answer; the
tool outputs real ones from the shared corpus beside the checkout, mixed with generated code and
logs, each session's own words mixed in), saved through `SessionStore.save_turn` as a chat saves
them, and prints side by side:

- the database's size with the search index and without it (a copy with the index dropped, both
  vacuumed), and the index's share;
- a turn's save with the index's triggers and without (medians over interleaved rounds);
- `SessionStore.search` against a LIKE scan of every row's body for the same words (what searching
  without an index costs), for a rare word, a common one, a prefix, a phrase and three words;
- the migration's backfill of the whole store (opening a copy that has no index yet).

Run: `.venv/bin/python benchmarks/session_search.py [--sessions N] [--turns N]` (about a minute at the
defaults).
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from pydantic_ai.messages import (  # noqa: E402
    ModelMessage,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)

from co_tui.session import migrations  # noqa: E402
from co_tui.store.session_store import SessionStore  # noqa: E402

# Beside the checkout (/work/main), or two levels up from a worktree (/work/wt/NAME).
CORPUS = (
    next((p for p in (ROOT.parent / "shared", ROOT.parents[1] / "shared") if p.is_dir()), ROOT.parent / "shared")
    / "corpus"
    / "transcripts"
)
WORDS = [
    "handler", "request", "parser", "tokenizer", "budget", "context", "session", "migration", "index",
    "config", "widget", "screen", "stream", "buffer", "cache", "schema", "error", "retry", "timeout",
]  # fmt: skip


def corpus_outputs() -> list[str]:
    """Tool outputs from the real transcripts (none if the corpus is absent)."""
    outputs = []
    for path in sorted(CORPUS.glob("*.json")):
        if not path.name.startswith("_"):
            outputs += [
                m["content"] for m in json.loads(path.read_text()) if m.get("role") == "tool" and m.get("content")
            ]
    return outputs


def generated_outputs(rng: random.Random) -> list[str]:
    """Code and logs of a few kilobytes, as file reads and test runs give."""
    code = [
        "".join(f"    def {rng.choice(WORDS)}_{i}(self, arg):\n        return self.{rng.choice(WORDS)}(arg) + {i}\n" for i in range(60))
        for _ in range(20)
    ]  # fmt: skip
    logs = [
        "".join(f"2025-03-14 09:{i % 60:02d}:00 INFO {rng.choice(WORDS)} step {i} ok in {rng.random():.3f}s\n" for i in range(80))
        for _ in range(20)
    ]  # fmt: skip
    return code + logs


def turn(rng: random.Random, outputs: list[str], session: int, i: int) -> list[ModelMessage]:
    """One turn: a prompt naming a few words and the session's own (`zeta{session}`), a tool call,
    a tool output, an answer."""
    prompt = f"look at the {rng.choice(WORDS)} of {rng.choice(WORDS)} in module zeta{session} step {i}"
    call = f"call_{session}_{i}"
    return [
        ModelRequest(parts=[UserPromptPart(prompt)]),
        ModelResponse(
            parts=[ToolCallPart("read_file", {"path": f"src/{rng.choice(WORDS)}_{i}.py"}, tool_call_id=call)]
        ),
        ModelRequest(parts=[ToolReturnPart("read_file", rng.choice(outputs), tool_call_id=call)]),
        ModelResponse(parts=[TextPart(f"The {rng.choice(WORDS)} calls the {rng.choice(WORDS)} (zeta{session}).")]),
    ]


def build(data_dir: Path, sessions: int, turns: int, rng: random.Random, outputs: list[str]) -> list[str]:
    ids = []
    with SessionStore.open(data_dir) as store:
        for s in range(sessions):
            sid = store.create_session(
                model="offline", workspace=data_dir, title=f"session {s} about {rng.choice(WORDS)}"
            )
            for chunk in range(0, turns, 25):  # a save per 25 turns: building the store is not what is measured
                messages = [m for i in range(chunk, min(turns, chunk + 25)) for m in turn(rng, outputs, s, i)]
                store.save_turn(sid, new_transcript=messages, context=None, new_events=[])
            ids.append(sid)
    return ids


def drop_index(path: Path) -> None:
    """The database as it would be without search: triggers and index tables dropped, version kept."""
    conn = sqlite3.connect(path, isolation_level=None)
    for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'trigger' AND name LIKE '%search%'"):
        conn.execute(f"DROP TRIGGER {name}")
    conn.execute("DROP TABLE transcript_search")
    conn.execute("DROP TABLE title_search")
    conn.close()


def vacuumed_size(path: Path) -> int:
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.execute("VACUUM")  # on a copy only: the live store is never vacuumed
    conn.close()
    return path.stat().st_size


def median_ms(samples: list[float]) -> float:
    return statistics.median(samples) * 1000


def like_scan(conn: sqlite3.Connection, words: list[str]) -> list[str]:
    """What searching without an index does: every body read for every word (case-insensitive LIKE)."""
    where = " AND ".join("body LIKE ?" for _ in words)
    sql = f"SELECT DISTINCT session_id FROM transcript WHERE {where}"
    return [r[0] for r in conn.execute(sql, [f"%{w}%" for w in words])]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sessions", type=int, default=200)
    parser.add_argument("--turns", type=int, default=100)
    args = parser.parse_args()
    rng = random.Random(32)
    outputs = corpus_outputs() + generated_outputs(rng)
    with tempfile.TemporaryDirectory() as tmp:
        indexed_dir, plain_dir = Path(tmp) / "indexed", Path(tmp) / "plain"
        started = time.perf_counter()
        ids = build(indexed_dir, args.sessions, args.turns, rng, outputs)
        total = args.sessions * args.turns * 4
        print(f"store: {args.sessions} sessions x {args.turns} turns = {total:,} messages, built in "
              f"{time.perf_counter() - started:.0f} s ({len(outputs)} distinct tool outputs, corpus: {CORPUS.is_dir()})")  # fmt: skip
        db = indexed_dir / "sessions.db"
        with sqlite3.connect(db) as conn:
            conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        shutil.copytree(indexed_dir, plain_dir)
        drop_index(plain_dir / "sessions.db")
        backfill_dir = Path(tmp) / "backfill"
        shutil.copytree(plain_dir, backfill_dir)

        # Size: both vacuumed copies, so free pages do not count.
        sized = Path(tmp) / "sized"
        shutil.copytree(indexed_dir, sized)
        with_index, without = vacuumed_size(sized / "sessions.db"), vacuumed_size(plain_dir / "sessions.db")
        print(f"\nsize: {with_index / 1e6:.1f} MB with the index, {without / 1e6:.1f} MB without: the index is "
              f"{(with_index - without) / 1e6:.1f} MB, {(with_index - without) / without:.0%} of the store without it")  # fmt: skip

        # A turn's save, with and without the triggers, interleaved.
        saves: dict[str, list[float]] = {"indexed": [], "plain": []}
        stores = {"indexed": SessionStore.open(indexed_dir), "plain": SessionStore.open(plain_dir)}
        for i in range(30):
            for name, store in stores.items():
                messages = turn(rng, outputs, 0, args.turns + i)
                t0 = time.perf_counter()
                store.save_turn(ids[0], new_transcript=messages, context=None, new_events=[])
                saves[name].append(time.perf_counter() - t0)
        stores["plain"].close()
        indexed, plain = median_ms(saves["indexed"]), median_ms(saves["plain"])
        print(f"save of one turn (median of 30): {indexed:.2f} ms with the index, {plain:.2f} ms without "
              f"({indexed / plain:.2f}x)")  # fmt: skip

        # Search against a LIKE scan, same words, same store.
        store = stores["indexed"]
        conn = sqlite3.connect(db)
        queries = [
            ("a rare word (one session's)", f"zeta{args.sessions // 2}", [f"zeta{args.sessions // 2}"]),
            ("a common word", "tokenizer", ["tokenizer"]),
            ("a prefix", "tokeni", ["tokeni"]),
            ("a phrase", '"calls the parser"', ["calls the parser"]),
            ("three words", "parser cache timeout", ["parser", "cache", "timeout"]),
        ]
        print(f"\n{'query':<28} {'search':>9} {'LIKE scan':>10} {'ratio':>7}  sessions found (search / LIKE)")
        for label, query, words in queries:
            timed: dict[str, list[float]] = {"search": [], "like": []}
            found: dict[str, int] = {}
            for _ in range(5):
                t0 = time.perf_counter()
                found["search"] = len(store.search(query))
                timed["search"].append(time.perf_counter() - t0)
                t0 = time.perf_counter()
                found["like"] = len(like_scan(conn, words))
                timed["like"].append(time.perf_counter() - t0)
            fast, slow = median_ms(timed["search"]), median_ms(timed["like"])
            print(
                f"{label:<28} {fast:>7.1f}ms {slow:>8.1f}ms {slow / fast:>6.0f}x  {found['search']} / {found['like']}"
            )
        conn.close()
        store.close()
        print("(search caps its answer at 200 sessions, newest first, with a snippet each; LIKE finds ids only,"
              " and matches inside JSON keys and words alike)")  # fmt: skip

        # The migration's backfill: opening a store saved before search.
        conn = sqlite3.connect(backfill_dir / "sessions.db")
        conn.execute(f"PRAGMA user_version = {migrations.MIGRATIONS.index(migrations.SEARCH_MIGRATION)}")
        conn.commit()
        conn.close()
        t0 = time.perf_counter()
        SessionStore.open(backfill_dir).close()
        print(
            f"\nbackfill: the first open after the upgrade indexes {total:,} messages in {time.perf_counter() - t0:.1f} s"
        )


if __name__ == "__main__":
    main()

"""A turn reads as much of the transcript at turn 40 as at turn 10 (issue 33: a long-lived session's
turn cost grew with its length, ~21 → ~133 ms by turn 5,000; benchmarks/long_session.py has the
figures). Counted, not timed: the real ChatSession, the offline model, a real SQLite store."""

from __future__ import annotations

from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

from support.turns import run_turn

from co_tui.config import load_settings
from co_tui.session.chat import ChatSession
from co_tui.session.cost import RunningCost
from co_tui.session.lazy_transcript import transcript_cost
from co_tui.store.session_store import SessionStore

PROMPTS = ("hello, how is it going?", "read hello.txt", "list", "what did we do so far?")


class CountingTranscript(list[Any]):
    """A transcript that counts the messages read from it (iteration, indexing, slices)."""

    reads = 0

    def __iter__(self) -> Iterator[Any]:
        for message in super().__iter__():
            self.reads += 1
            yield message

    def __getitem__(self, index: Any) -> Any:
        got = super().__getitem__(index)
        self.reads += len(got) if isinstance(index, slice) else 1
        return got


async def reads_over_a_round(session: ChatSession, transcript: CountingTranscript) -> int:
    """The transcript messages one round of the prompts reads (one turn of each kind)."""
    before = transcript.reads
    for prompt in PROMPTS:
        await run_turn(session, prompt)
    return transcript.reads - before


async def test_a_turn_reads_no_more_of_the_transcript_as_the_session_grows(workspace: Path) -> None:
    store = SessionStore.open(workspace / "data")
    session = ChatSession(load_settings(), workspace=workspace, store=store, model="offline")
    transcript = CountingTranscript()
    session.history._transcript = transcript  # the list a new session starts with, counted
    try:
        for _ in range(2):
            await reads_over_a_round(session, transcript)
        early = await reads_over_a_round(session, transcript)
        for _ in range(7):
            await reads_over_a_round(session, transcript)
        late = await reads_over_a_round(session, transcript)
        assert len(transcript) >= 3 * 40  # 40 turns: a prompt and an answer, a tool call and its result in half
        # Before: each usage event and save priced every response again (~600 reads a round by now).
        assert late == early
    finally:
        session.release_claim()
        store.close()


async def test_the_session_cost_kept_as_it_grows_is_the_cost_summed_afresh(workspace: Path) -> None:
    store = SessionStore.open(workspace / "data")
    session = ChatSession(load_settings(), workspace=workspace, store=store, model="offline")
    try:
        for prompt in PROMPTS:
            await run_turn(session, prompt)
            assert session.history.cost() == transcript_cost(session.transcript, ledger=session.ledger) == 0.0
    finally:
        session.release_claim()
        store.close()


def test_one_unpriced_item_makes_the_running_cost_unknown_for_good() -> None:
    prices = {"a": Decimal("0.5"), "b": None, "c": Decimal(1)}
    running = RunningCost(prices.get, Decimal(0))
    assert running.total(["a"]) == Decimal("0.5")
    assert running.total(["a", "c"]) == Decimal("1.5")  # only "c" is priced now
    assert running.total(["a", "c", "b"]) is None
    assert running.total(["a", "c", "b", "a"]) is None
    running.restart(1)  # a new sequence whose first item is priced elsewhere
    assert running.total(["x", "c"]) == Decimal(1)


def test_the_running_cost_read_from_two_threads_at_once_counts_each_item_once() -> None:
    import sys
    import threading

    items = [Decimal(1)] * 20_000
    running = RunningCost(lambda item: item, Decimal(0))
    start = threading.Barrier(4)
    totals: list[Any] = []

    def read() -> None:
        start.wait()
        totals.append(running.total(items))

    threads = [threading.Thread(target=read) for _ in range(4)]
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # the threads take turns inside the fold, as they may on a loaded host
    try:
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    finally:
        sys.setswitchinterval(interval)
    assert totals == [Decimal(20_000)] * 4  # a save's thread and the loop's meter: never summed twice

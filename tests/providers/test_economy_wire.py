"""Economy on the wire (docs/context-governance.md, "Economy"): over the real OpenAI client and the
loopback server, a long agent session is cut rarely, each cut goes down to the low-water mark, and
between two cuts every request starts with the previous request, byte for byte — what a provider's
prompt cache reads back."""

from __future__ import annotations

from pathlib import Path

import pytest

from .harness import session
from .loopback import LoopbackServer
from .scripted_session import run_session, shared_prefix, write_files

BUDGET = 12_000


@pytest.mark.parametrize("strategy", ["trim", "summarize"])
async def test_requests_only_grow_between_reported_cuts(env: LoopbackServer, tmp_path: Path, strategy: str) -> None:
    files = write_files(tmp_path, turns=24, files_per_turn=3, seed=7, min_kb=1, max_kb=5)
    chat = session(tmp_path, context_budget_tokens=BUDGET, context_strategy=strategy, max_history_messages=0)
    record = await run_session(chat, env, files, report_estimate=True)  # the meter counts as the policy does

    cut_turns = {t for t, cuts in enumerate(record.cuts) if cuts}
    breaks = 0
    for (_, previous), (turn, current) in zip(record.requests, record.requests[1:], strict=False):
        if shared_prefix(previous, current) == len(previous):
            continue
        breaks += 1
        assert turn in cut_turns, (
            f"turn {turn}: the request no longer starts with the previous one, and no cut was reported"
        )
    assert breaks >= 2 and len(cut_turns) >= 2, "the session is long enough to need cuts"
    assert breaks <= len(cut_turns)

    # Rarely: once the context first reaches the budget, a cut in at most a third of the turns after it,
    # each one going down to the low-water mark (0.6 × the budget) in one batch. The banners carry
    # the meter's figures (governance/metered_cuts.py): the server reports co-tui's estimate of the
    # wire text, so the meter counts as the policy does but for the JSON around the messages (≤ 3%).
    first = min(cut_turns)
    assert len(cut_turns) <= (len(files) - first) / 3 + 1, sorted(cut_turns)
    for cuts in record.cuts:
        if cuts:
            assert cuts[-1].tokens_after <= 0.6 * BUDGET * 1.03, cuts
            assert cuts[0].tokens_before - cuts[-1].tokens_after >= BUDGET // 10, cuts
    if strategy == "summarize":
        assert 1 <= record.summary_calls <= len(cut_turns)


async def test_sequential_agent_makes_one_call_per_step(env: LoopbackServer, tmp_path: Path) -> None:
    """The scripted agent of `benchmarks/economy.py`'s many-calls session: with `sequential`, each
    turn reads its files one call per step, so a turn of N files is N + 1 requests and 2N + 2
    messages (what the message-count trigger counts)."""
    files = write_files(tmp_path, turns=2, files_per_turn=3, seed=3, min_kb=1, max_kb=2)
    chat = session(tmp_path, context_budget_tokens=1_000_000, max_history_messages=0)
    record = await run_session(chat, env, files, sequential=True)

    assert [turn for turn, _ in record.requests] == [0, 0, 0, 0, 1, 1, 1, 1]
    last = record.requests[-1][1]
    read = [m["content"] for m in last if m["role"] == "tool"]
    assert len(read) == 6 and all(text.strip() for text in read)
    assert len(chat.context) == 2 * (2 * 3 + 2)

"""Undo names the right cut and the true reason (issue 32 item 4): `u` on the second event of a pass
undoes the whole pass and says so; a refusal names the limit the restored context would cross — the
message limit is not "the token budget"."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.builders import chat_turn, system
from support.turns import run_turn

from co_tui.config import load_settings
from co_tui.governance.events import HistoryTrimmed
from co_tui.governance.meter import TokenMeter
from co_tui.governance.policy import Governor
from co_tui.governance.policy_settings import GovernancePolicy
from co_tui.governance.undo import CutRecord, UndoRefused
from co_tui.session.banner import strategy_text
from co_tui.session.chat import ChatSession
from co_tui.session.gauge import Gauge
from co_tui.session.history import History, LedgerEntry
from co_tui.session.steering import plan_undo
from co_tui.store.session_store import SessionStore


def _two_passes() -> History:
    """Six turns, cut twice: trim #1 alone (its own pass), then trims #2–3 in one pass (a summary
    that failed, then a turn drop: the events share the context the pass started from)."""
    transcript = [system(), *(m for t in range(6) for m in chat_turn(f"question {t} " * 20, f"answer {t} " * 40))]
    first_before = tuple(transcript[:7])  # three turns, when the first pass ran
    second_before = tuple([transcript[0], *transcript[5:11]])
    event = HistoryTrimmed(reason="token_budget", strategy="turn_trim", dropped_messages=2, dropped_turns=1)
    failed = HistoryTrimmed(reason="token_budget", strategy="static_marker", dropped_messages=2, dropped_turns=1)
    return History(
        transcript,
        [transcript[0], *transcript[-2:]],
        [
            LedgerEntry(event, 7, CutRecord(before=first_before)),
            LedgerEntry(failed, 11, CutRecord(before=second_before)),
            LedgerEntry(event, 11, CutRecord(before=second_before)),
        ],
    )


def _gauge(budget: int, max_messages: int = 0) -> Gauge:
    governor = Governor(GovernancePolicy(budget_tokens=budget, max_history_messages=max_messages))
    return Gauge(TokenMeter(), governor, budget, max_messages, 0)


def test_undoing_the_second_event_of_a_pass_names_the_whole_pass() -> None:
    history = _two_passes()
    with pytest.raises(UndoRefused) as refused:
        plan_undo(history, _gauge(budget=200), cut=2)  # `u` on Trims row #3
    line = str(refused.value)
    assert line.startswith("cannot undo trims #2–3 (one pass): the restored context would need ~")
    assert "over the 200-token budget" in line and "\n" not in line

    edit = plan_undo(history, _gauge(budget=100_000), cut=2)
    assert edit.record.undoes == 1  # the pass's first event: both go
    assert edit.event is not None and edit.event.note == (
        "undid trims #2–3 (one pass: older turns removed (summary failed), oldest turns removed) and every cut after it"
    )
    assert strategy_text(edit.event) == "older turns removed (summary failed), oldest turns removed"
    # A pass of one event keeps its words.
    single = plan_undo(history, _gauge(budget=100_000), cut=0)
    assert (
        single.event is not None and single.event.note == "undid trim #1 (oldest turns removed) and every cut after it"
    )
    assert strategy_text(single.event) == "oldest turns removed"


def test_a_refusal_for_the_message_limit_does_not_blame_the_token_budget() -> None:
    history = _two_passes()
    with pytest.raises(UndoRefused) as refused:
        plan_undo(history, _gauge(budget=100_000, max_messages=8), cut=0)
    line = str(refused.value)
    assert line.startswith("cannot undo trim #1: the restored context would hold ")
    assert "messages, over the 8-message limit (its ~" in line
    assert "tokens are within the 100,000-token budget" in line and "over the 100,000" not in line
    with pytest.raises(UndoRefused) as both:  # over both: both named
        plan_undo(history, _gauge(budget=200, max_messages=8), cut=0)
    assert "over the 8-message limit, and need ~" in str(both.value) and "over the 200-token budget" in str(both.value)


async def test_a_real_session_refused_by_the_message_limit_says_so(tmp_path: Path) -> None:
    """The user's run: 12 messages of 8, well within a 100,000-token budget, refused as "over the
    100,000-token budget"."""
    settings = load_settings(context_budget_tokens=100_000, context_strategy="trim", max_history_messages=8)
    session = ChatSession(settings, workspace=tmp_path, store=SessionStore.open(tmp_path / "data"))
    for i in range(8):
        await run_turn(session, f"hello number {i}")
        if session.ledger:
            break
    assert session.ledger and session.ledger[-1].reason == "message_count"
    with pytest.raises(UndoRefused) as refused:
        await session.undo()
    line = str(refused.value)
    assert "-message limit" in line and "over the 100,000-token budget" not in line, line
    session.release_claim()

"""The inflation guard over real HTTP: a summariser that ignores `max_tokens` (the request carries it)
and answers at length gets its summary rejected — the cut goes on without it, the banner says why,
and the cooldown holds back the next request; `/compact` leaves the conversation as it was."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.turns import collect, of_type

from co_tui.session.banner import banner_line

from .harness import assert_history_valid, session, text_of
from .loopback import LoopbackServer, Reply

ANSWER = "an answer with enough detail to be worth summarising. " * 20
INFLATED = "The summariser rambles on and on about everything it has seen. " * 400
# Smaller than what it would replace (the check co-tui had before), but over its budget.
OVER_BUDGET = "The summariser rambles on and on about everything it has seen. " * 40


async def test_an_inflated_summary_is_rejected_and_cools_down(env: LoopbackServer, tmp_path: Path) -> None:
    chat = session(
        tmp_path,
        context_strategy="summarize",
        max_history_messages=8,
        summarization_model="openai-chat:summarizer",
        summarizer_cooldown_s=600,
    )

    def respond(request):
        return Reply(OVER_BUDGET if request.body.get("model") == "summarizer" else ANSWER)

    env.responder = respond
    trims = []
    for i in range(9):
        events = await collect(chat.run_turn(f"question {i}"))
        assert events[-1].type == "done" and not events[-1].failed, events
        assert text_of(events) == ANSWER
        trims += of_type(events, "history_trimmed")
    asked = [r for r in env.requests if r.body.get("model") == "summarizer"]
    assert len(asked) == 1, "one rejected summary, then the cooldown: trimming only"
    limit = asked[0].body.get("max_completion_tokens") or asked[0].body.get("max_tokens")
    assert limit and limit < 2000, "the summary's budget went on the wire"
    [rejected] = [t for t in trims if t.strategy == "static_marker"]
    assert rejected.note and rejected.note.startswith("summary rejected: ") and "budget" in rejected.note
    assert "summary rejected" in banner_line(rejected)
    assert rejected.summarizer_output_tokens > limit, "the rejected answer was billed and is counted"
    # The rejected text reached neither the context nor any later request.
    assert not any("rambles on" in r.text() for r in env.requests if r.body.get("model") != "summarizer")
    assert all(t.strategy != "summary" for t in trims)
    assert_history_valid(chat.context)


async def test_compact_with_an_inflated_summary_changes_nothing(env: LoopbackServer, tmp_path: Path) -> None:
    chat = session(tmp_path)
    env.script(Reply("first answer"))
    await collect(chat.run_turn("first question"))
    before = list(chat.context)
    env.script(Reply(INFLATED))
    events = await collect(chat.compact())
    [error] = of_type(events, "error")
    assert error.message.startswith("no summary: the summary (") and "conversation is unchanged" in error.message
    assert "over its" in error.message
    assert "\n" not in error.message
    assert events[-1].type == "done" and events[-1].failed
    assert chat.context == before and not chat.ledger

"""The structured summary over real HTTP: the summariser is asked for the fixed sections, and the
next request the model gets holds the user's prompts of the summarised stretch word for word."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.turns import collect, of_type

from co_tui.governance.summarize import SUMMARY_SECTIONS

from .harness import assert_history_valid, session
from .loopback import LoopbackServer, Reply

ANSWER = "an answer with enough detail to be worth summarising. " * 80
SECTIONS = "\n".join(f"## {heading}\n- none" for heading, _ in SUMMARY_SECTIONS)


def prompt(i: int) -> str:
    return f'question {i}: keep "port" at 8443, never\nrestart — ünïcode' if i == 2 else f"question {i}"


async def test_sections_asked_for_and_the_prompts_kept_verbatim(env: LoopbackServer, tmp_path: Path) -> None:
    chat = session(
        tmp_path, context_strategy="summarize", max_history_messages=8, summarization_model="openai-chat:summarizer"
    )

    def respond(request):
        return Reply(SECTIONS if request.body.get("model") == "summarizer" else ANSWER)

    env.responder = respond
    trims = []
    for i in range(6):
        events = await collect(chat.run_turn(prompt(i)))
        assert events[-1].type == "done" and not events[-1].failed, events
        trims += of_type(events, "history_trimmed")
    [asked] = [r for r in env.requests if r.body.get("model") == "summarizer"]
    instructions = asked.body["messages"][0]["content"]
    for heading, _ in SUMMARY_SECTIONS:
        assert f"## {heading} — " in instructions
    [summary] = [t for t in trims if t.strategy == "summary"]
    assert summary.summary.startswith(SECTIONS)
    summarised = [prompt(i) for i in range(1, 1 + summary.dropped_turns)]  # turn 0 is the kept head
    assert prompt(2) in summarised
    # The request after the cut carries the prompts as the summary keeps them: one JSON line each.
    after = next(r for r in env.requests[env.requests.index(asked) + 1 :] if r.body.get("model") != "summarizer")
    sent = after.text()
    for text in summarised:
        assert "- " + json.dumps(text, ensure_ascii=False) in sent
    assert (summary.prompts_kept, summary.prompts_total) == (len(summarised), len(summarised))
    assert_history_valid(chat.context)

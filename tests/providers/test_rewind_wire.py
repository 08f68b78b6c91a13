"""Rewind and branches on the wire (docs/context-governance.md, "Rewind and branches"): over the
real OpenAI client and the loopback server, a prompt resent after a rewind goes out with exactly the
messages the model was sent before it the first time — the cut's marker included — and a branch
switched back to after a resume goes on from exactly what that branch had sent."""

from __future__ import annotations

from pathlib import Path

from support.turns import run_turn

from co_tui.session.opening import resume_session
from co_tui.store.session_store import SessionStore

from .harness import session
from .loopback import LoopbackServer, Reply

LONG = "A long answer about the parser and its tests. " * 120


async def test_a_rewound_prompt_goes_out_with_what_the_model_was_sent_then(env: LoopbackServer, tmp_path: Path) -> None:
    store = SessionStore.open(tmp_path / "data")
    chat = session(tmp_path, store=store, context_budget_tokens=3_000, context_strategy="trim")
    env.script(Reply(LONG), Reply(LONG), Reply("three"), Reply("four"))
    for prompt in ("one", "two", "three", "four"):
        await run_turn(chat, prompt)
    assert chat.ledger, "a cut was made: the requests after it carry its marker"
    sent_four = env.requests[-1].body["messages"]
    assert "trimmed" in str(sent_four), "the request of turn 4 holds the cut's marker"

    point = next(p for p in chat.rewind_points() if p.text == "four")
    await chat.rewind(point.position)
    env.script(Reply("four again"))
    await run_turn(chat, "four, edited")
    resent = env.requests[-1].body["messages"]
    assert resent[:-1] == sent_four[:-1], "everything before the prompt is what the model was sent then"
    assert resent[-1] == {"role": "user", "content": "four, edited"} and sent_four[-1]["content"] == "four"

    chat.release_claim()
    resumed = resume_session(
        chat.settings, session_type=type(chat), workspace=tmp_path, store=store, session_id=chat.id
    )
    assert resumed.history.branch == 1
    await resumed.switch_branch(0)
    env.script(Reply("five"))
    await run_turn(resumed, "five")
    sent_five = env.requests[-1].body["messages"]
    assert sent_five[: len(sent_four)] == sent_four, "branch 0 goes on from exactly what it had sent"
    assert sent_five[len(sent_four)]["role"] == "assistant" and "four again" not in str(sent_five)
    assert sent_five[-1] == {"role": "user", "content": "five"} and len(sent_five) == len(sent_four) + 2
    resumed.release_claim()
    store.close()

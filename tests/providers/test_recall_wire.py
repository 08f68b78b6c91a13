"""The seeds' scenario, cured on the wire: a fact the model wrote through a tool early on (turn 2:
the first turn is the head a summary keeps verbatim) is cut from its view by trims and a summary; seeing the marker and its handle, the scripted model calls
`recall` and answers with the verbatim fact. Through pydantic-ai's real OpenAI client and the
loopback server; the assertions are on what the server received."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from support.turns import collect, of_type

from .harness import point_providers_at, settings, text_of
from .loopback import LoopbackServer, Reply, ToolCallSpec
from .scripted_session import is_summary_request

FACT = "the launch password is zephyr"
WRITE = f'echo "{FACT}" | tee fact.txt'
ARROW = re.compile(r"run_shell\(.*?→ (r\d+(?:\.\d+)?)")
FILLER = "Noted. " + "This turn talks at length about unrelated things. " * 80
HIT = re.compile(r'^- turn \d+, (?:.*? → )?recall\("(r\d+(?:\.\d+)?)"\)')  # a hit names its call, then its handle


def scripted(request: Any) -> Reply:
    """Writes the password with run_shell when asked; asked for it later, follows the notes it sees
    to `recall` (a listed turn's handle, else a search and then the handle of the hit) and answers
    from what came back. Summaries on request; filler turns read a big file."""
    body = request.body
    if is_summary_request(body):
        return Reply("The user and the agent chatted about unrelated topics at length.")
    messages = body["messages"]
    start = max(i for i, m in enumerate(messages) if m["role"] == "user")
    prompt = messages[start]["content"]
    results = [m["content"] for m in messages[start:] if m["role"] == "tool"]
    if prompt.startswith("filler"):
        return Reply("Noted.") if results else Reply(tool_calls=(ToolCallSpec("read_file", {"path": "big.txt"}, "c1"),))
    if "write the password down" in prompt:
        return (
            Reply("Written.") if results else Reply(tool_calls=(ToolCallSpec("run_shell", {"command": WRITE}, "c1"),))
        )
    if "what was the password" in prompt:
        if results and (found := re.search(r"^the launch password is (\w+)$", results[-1], re.M)):
            return Reply(f"The password is {found[1]}.")
        args = recall_args("\n".join([request.text(), *results]), after_search=bool(results))
        return Reply(tool_calls=(ToolCallSpec("recall", args, f"c{len(results) + 1}"),))
    return Reply(FILLER)


def recall_args(text: str, *, after_search: bool) -> dict[str, str]:
    """What a model does with the notes it sees: the line about the password names the call to make
    (a listed turn's or a search hit's handle); with none, it searches."""
    for line in text.split("\n"):
        if "password" in line and (m := ARROW.search(line) or HIT.search(line)):
            return {"handle": m[1]}
    assert not after_search, "the search found nothing"
    return {"search": "password"}


async def approve(_request: Any) -> str:
    return "once"


@pytest.fixture
def env(loopback: LoopbackServer, monkeypatch: pytest.MonkeyPatch) -> LoopbackServer:
    point_providers_at(monkeypatch, loopback)
    loopback.responder = scripted
    return loopback


async def test_the_model_recalls_a_fact_cut_from_its_view(env: LoopbackServer, tmp_path: Path) -> None:
    from co_tui.session.chat import ChatSession

    chat = ChatSession(
        settings(allow_shell=True, context_budget_tokens=8000, context_strategy="summarize"),
        workspace=tmp_path,
        ask=approve,
    )
    (tmp_path / "big.txt").write_text("".join(f"line {i}: nothing to see here at all\n" for i in range(300)))
    await collect(chat.run_turn("hello"))
    events = await collect(chat.run_turn("please write the password down"))
    assert (tmp_path / "fact.txt").read_text().strip() == FACT
    for i in range(14):
        events = await collect(chat.run_turn(f"filler question {i}: " + "tell me about something else " * 8))
        assert events[-1].type == "done" and not events[-1].failed, events[-3:]
    strategies = {e.strategy for e in chat.ledger}
    assert "summary" in strategies and strategies & {"turn_trim", "tool_output_trim"}, strategies
    before = len(env.requests)
    events = await collect(chat.run_turn("what was the password?"))
    assert events[-1].type == "done" and not events[-1].failed, events[-3:]
    turn_requests = [r for r in env.requests[before:] if not is_summary_request(r.body)]
    asked = turn_requests[0]
    # The model was sent the notes, not the fact, and was offered `recall`.
    assert FACT not in asked.text()
    assert "recall(" in asked.text()
    assert "recall" in [t["function"]["name"] for t in asked.body["tools"]]
    # It called recall until the verbatim output of turn 2 came back on the wire, then answered.
    calls = [json.loads(e.args) for e in of_type(events, "tool_call")]
    assert [e.tool_name for e in of_type(events, "tool_call")] == ["recall"] * len(calls) and calls
    assert "handle" in calls[-1]
    tool_messages = [m for m in turn_requests[-1].body["messages"] if m["role"] == "tool"]
    last = tool_messages[-1]["content"]
    assert last.startswith(f'[recall("{calls[-1]["handle"]}"): the output of run_shell(command="echo')
    assert f"\n{FACT}\n" in last
    assert text_of(events) == "The password is zephyr."
    # `recall` was offered in exactly the requests that carried a cut note, from the request of the first cut on.
    sent = [r for r in env.requests if not is_summary_request(r.body)]
    offered = ["recall" in [t["function"]["name"] for t in r.body.get("tools", [])] for r in sent]
    noted = [has_cut_note(r.body) for r in sent]
    assert offered == noted and not offered[0] and offered[-1]


NOTES = ("[Earlier conversation trimmed", "[Summary of ", "[…truncated", "[…output too big to show whole")


def has_cut_note(body: dict[str, Any]) -> bool:
    """Whether a request's messages (not its instructions, which explain the notes) carry one."""
    texts = [m.get("content") for m in body["messages"] if m["role"] != "system"]
    return any(isinstance(t, str) and any(n in t for n in NOTES) for t in texts)

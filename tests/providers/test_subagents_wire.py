"""Subagents on the wire (docs/subagents.md): the real pydantic-ai OpenAI client against the
loopback server, a scripted model that tells a child's requests from the parent's by the child's
instructions. The assertions are on what the server received and what the session kept."""

from __future__ import annotations

import asyncio
import json
import threading
from pathlib import Path
from typing import Any

from support.turns import collect, of_type, run_turn

from co_tui.session.child_record import child_records
from co_tui.session.opening import resume_session
from co_tui.store.session_store import SessionStore

from .harness import assert_history_valid, assert_openai_body_valid, session
from .loopback import Hang, LoopbackServer, RecordedRequest, Reply, ToolCallSpec, openai_error

PARENT_SECRET = "PARENT-ONLY-7781"
FILE_A = "alpha file: the magic number is 42. " + "padding words " * 200
FILE_B = "beta file: nothing to see. " + "more padding " * 200
TASK = "Read a.txt and b.txt and return the magic number, nothing else."


def is_child(request: RecordedRequest) -> bool:
    system = " ".join(
        m["content"] if isinstance(m["content"], str) else json.dumps(m["content"])
        for m in request.body["messages"]
        if m["role"] in ("system", "developer")
    )
    return "exploration subagent" in system


def tool_results(request: RecordedRequest) -> list[str]:
    messages = request.body["messages"]
    start = max(i for i, m in enumerate(messages) if m["role"] == "user")
    return [m["content"] for m in messages[start:] if m["role"] == "tool"]


def last_prompt(request: RecordedRequest) -> str:
    return next(m["content"] for m in reversed(request.body["messages"]) if m["role"] == "user")


def explorer(request: RecordedRequest) -> Reply:
    """A child: reads both files, then answers from them."""
    results = tool_results(request)
    if not results:
        return Reply(
            tool_calls=(
                ToolCallSpec("read_file", {"path": "a.txt"}, "r1"),
                ToolCallSpec("read_file", {"path": "b.txt"}, "r2"),
            )
        )
    found = "42" if any("magic number is 42" in r for r in results) else "unknown"
    return Reply(f"The magic number is {found} (a.txt, line 1).")


def parent(request: RecordedRequest, tasks: tuple[str, ...] = (TASK,)) -> Reply:
    """The main agent: remembers a secret in turn 1; in turn 2 delegates, then answers from the result."""
    prompt = last_prompt(request)
    if "remember" in prompt:
        return Reply("Remembered.")
    results = tool_results(request)
    if not results:
        calls = tuple(ToolCallSpec("delegate", {"task": t}, f"d{i}") for i, t in enumerate(tasks, 1))
        return Reply(tool_calls=calls)
    return Reply("Done: " + " | ".join(r.splitlines()[-1] for r in results))


def workspace(tmp_path: Path) -> Path:
    (tmp_path / "a.txt").write_text(FILE_A)
    (tmp_path / "b.txt").write_text(FILE_B)
    return tmp_path


async def test_a_child_sees_the_task_only_and_the_parent_gets_its_answer_only(
    env: LoopbackServer, tmp_path: Path
) -> None:
    env.responder = lambda request: explorer(request) if is_child(request) else parent(request)
    store = SessionStore.open(tmp_path / "data")
    chat = session(workspace(tmp_path), store=store)
    await run_turn(chat, f"remember {PARENT_SECRET}")
    events = await run_turn(chat, "find the magic number")

    child_requests = [r for r in env.requests if is_child(r)]
    parent_requests = [r for r in env.requests if not is_child(r)]
    assert len(child_requests) == 2 and len(parent_requests) == 3
    for request in child_requests:
        assert TASK in request.text()
        assert PARENT_SECRET not in request.text()  # none of the parent's conversation
        assert "remember" not in request.text()
        assert_openai_body_valid(request.body)
    assert "alpha file" in child_requests[1].text()
    final = parent_requests[-1]
    assert "The magic number is 42" in final.text()
    assert "alpha file" not in final.text() and "padding words" not in final.text()  # not the files the child read
    # (the last message may be pydantic-ai's note that `recall` joined: a result names its handle)
    assert_openai_body_valid({"messages": [m for m in final.body["messages"] if m["role"] != "system"]})
    # The child's tools: read-only, no delegate (depth 1).
    child_tools = {t["function"]["name"] for t in child_requests[0].body["tools"]}
    assert child_tools <= {"read_file", "list_dir", "search_text", "recall"} and "read_file" in child_tools
    assert "delegate" in {t["function"]["name"] for t in parent_requests[0].body["tools"]}

    # The events: the child's own, tagged, between its start and its end.
    started, finished = of_type(events, "subagent_started"), of_type(events, "subagent_finished")
    assert len(started) == len(finished) == 1
    assert finished[0].outcome == "done" and finished[0].requests == 2 and finished[0].handle == "explore-1"
    child_events = [
        e for e in events if e.agent == "explore-1" and e.type not in ("subagent_started", "subagent_finished")
    ]
    assert {e.type for e in child_events} >= {"tool_call", "tool_result", "usage"}
    assert all(e.delegation == "d1" for e in child_events)
    first_child, last_child = events.index(started[0]), events.index(finished[0])
    assert all(first_child < events.index(e) < last_child for e in child_events)
    delegate_result = next(e for e in of_type(events, "tool_result") if e.tool_name == "delegate")
    assert events.index(delegate_result) > last_child
    assert "alpha file" not in delegate_result.content

    # Kept with the session, in the store, and recallable after a resume.
    resumed = resume_session(
        chat.settings, session_type=type(chat), workspace=tmp_path, store=store, session_id=chat.id
    )
    from co_tui.session.child_record import child_records

    records = child_records(resumed.history.transcript)
    assert [r.agent for _, r in records] == ["explore-1"]
    assert any("alpha file" in json.dumps(r.to_metadata()["transcript"]) for _, r in records)
    from pydantic_ai import RunContext

    recall = next(ts for ts in resumed.binding.agent.toolsets if getattr(ts, "id", None) == "recall")
    ctx = RunContext(deps=None, model=resumed.binding.model, usage=None, messages=[])  # type: ignore[arg-type]
    page = await recall.tools["recall"].function(ctx, handle="explore-1")
    assert "subagent explore-1's transcript" in page.return_value and "alpha file" in page.return_value
    output = await recall.tools["recall"].function(ctx, handle="explore-1/r2")
    assert "alpha file" in output.return_value
    assert_history_valid(list(resumed.history.transcript))
    store.close()


async def test_children_in_one_step_run_at_the_same_time(env: LoopbackServer, tmp_path: Path) -> None:
    # Child one's first request is held until child two's has arrived: one after the other, it never would.
    second_arrived = threading.Event()
    waited: list[bool] = []

    def respond(request: RecordedRequest) -> Any:
        if not is_child(request):
            return parent(request, tasks=("one: " + TASK, "two: " + TASK))
        if "two: " in request.text():
            second_arrived.set()
        elif "one: " in request.text() and not tool_results(request):
            waited.append(second_arrived.wait(timeout=20))
        return explorer(request)

    env.responder = respond
    chat = session(workspace(tmp_path))
    events = await run_turn(chat, "find the magic number twice")
    assert waited == [True]
    finished = of_type(events, "subagent_finished")
    assert sorted(e.agent for e in finished) == ["explore-1", "explore-2"]
    assert {e.delegation for e in finished} == {"d1", "d2"}
    assert all(e.outcome == "done" for e in finished)
    assert of_type(events, "done")[0].output.count("magic number is 42") == 2
    assert_history_valid(list(chat.history.transcript))


async def test_a_failing_child_is_a_clear_result_and_the_turn_goes_on(env: LoopbackServer, tmp_path: Path) -> None:
    def respond(request: RecordedRequest) -> Any:
        if is_child(request):
            return openai_error(400, "the child's provider refused this")
        return parent(request)

    env.responder = respond
    chat = session(workspace(tmp_path), max_retries=0)
    events = await run_turn(chat, "find the magic number", errors=True)
    finished = of_type(events, "subagent_finished")[0]
    assert finished.outcome == "failed"
    result = next(e for e in of_type(events, "tool_result") if e.tool_name == "delegate")
    assert result.content.startswith("[subagent explore-1 failed:") and "recall(" in result.content
    assert not result.is_error
    done = of_type(events, "done")[0]
    assert not done.failed and done.output.startswith("Done:")
    assert [e for e in of_type(events, "error") if e.agent is None] == []  # the parent's turn did not fail
    assert [e.agent for e in of_type(events, "error")] == ["explore-1"]
    assert_history_valid(list(chat.history.transcript))


async def test_a_child_out_of_requests_says_what_it_had_found(env: LoopbackServer, tmp_path: Path) -> None:
    def respond(request: RecordedRequest) -> Any:
        if is_child(request):  # never done: one more read each time
            n = len(tool_results(request))
            return Reply("Looking at a.txt first.", tool_calls=(ToolCallSpec("read_file", {"path": "a.txt"}, f"r{n}"),))
        return parent(request)

    env.responder = respond
    chat = session(workspace(tmp_path), subagent_max_requests=3)
    events = await run_turn(chat, "find the magic number", errors=True)
    assert [e for e in of_type(events, "error") if e.agent is None] == []
    assert sum(1 for r in env.requests if is_child(r)) == 3
    finished = of_type(events, "subagent_finished")[0]
    assert (finished.outcome, finished.requests) == ("limit", 3)
    result = next(e for e in of_type(events, "tool_result") if e.tool_name == "delegate")
    assert "stopped after 3 requests (its request limit)" in result.content
    assert "What it had found: Looking at a.txt first." in result.content
    assert not of_type(events, "done")[0].failed


async def test_a_child_out_of_time_is_stopped_and_the_turn_ends_well(env: LoopbackServer, tmp_path: Path) -> None:
    def respond(request: RecordedRequest) -> Any:
        return Hang(30) if is_child(request) else parent(request)

    env.responder = respond
    chat = session(workspace(tmp_path), subagent_timeout_s=0.5, request_timeout_s=30)
    events = await run_turn(chat, "find the magic number", errors=True)
    assert [e for e in of_type(events, "error") if e.agent is None] == []
    finished = of_type(events, "subagent_finished")[0]
    assert finished.outcome == "timed_out"
    result = next(e for e in of_type(events, "tool_result") if e.tool_name == "delegate")
    assert "stopped after 0.5 s (its time limit)" in result.content
    done = of_type(events, "done")[0]
    assert not done.failed and not done.interrupted
    assert_history_valid(list(chat.history.transcript))


async def test_esc_stops_the_children_with_the_turn(env: LoopbackServer, tmp_path: Path) -> None:
    arrived = threading.Event()

    def respond(request: RecordedRequest) -> Any:
        if is_child(request):
            arrived.set()
            return Hang(30)
        return parent(request)

    env.responder = respond
    chat = session(workspace(tmp_path), request_timeout_s=30)
    events: list[Any] = []
    async for event in chat.run_turn("find the magic number"):
        events.append(event)
        if event.type == "subagent_started":
            assert await asyncio.to_thread(arrived.wait, 20)  # the child's request is in flight
            chat.cancel()
    done = of_type(events, "done")[0]
    assert done.interrupted
    finished = of_type(events, "subagent_finished")
    assert [e.outcome for e in finished] == ["cancelled"]
    assert events.index(finished[0]) < events.index(done)
    assert_history_valid(list(chat.history.context))
    # The stopped child is kept at its delegation, as a finished one is: saved, recallable, exported.
    [(_, record)] = child_records(chat.history.transcript)
    assert (record.agent, record.finished.outcome, record.task) == ("explore-1", "cancelled", TASK)
    # The next turn runs as usual, and the model reads that the child was stopped, not a stock line.
    env.responder = lambda request: Reply("Fine again.")
    after = await collect(chat.run_turn("hello"))
    assert of_type(after, "done")[0].output == "Fine again."
    [stopped] = [m["content"] for m in env.requests[-1].body["messages"] if m["role"] == "tool"]
    assert stopped.startswith("[subagent explore-1 was stopped;") and 'recall("explore-1")' in stopped


RUNNER = """---
name: runner
description: Runs a command and reports its output.
tools: Bash, Read
---
You run the command the task names and report its output.
"""


async def test_esc_kills_a_childs_shell_command_and_a_defined_agent_runs_as_defined(
    env: LoopbackServer, tmp_path: Path, monkeypatch: Any
) -> None:
    from support.processes import processes_in
    from support.waits import until

    from co_tui.session.chat import ChatSession

    from .harness import settings

    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    (tmp_path / "ws").mkdir()
    work = workspace(tmp_path / "ws")
    (work / ".co-tui" / "agents").mkdir(parents=True)
    (work / ".co-tui" / "agents" / "runner.md").write_text(RUNNER)
    asked: list[str | None] = []

    async def ask(request: Any) -> Any:  # the front end's `ask` (session/approvals.py)
        asked.append(request.agent)
        return "once"

    def respond(request: RecordedRequest) -> Any:
        system = str(request.body["messages"][0]["content"])
        if "You run the command the task names" in system:  # the defined agent's own instructions
            return Reply(tool_calls=(ToolCallSpec("run_shell", {"command": "sleep 60"}, "s1"),))
        return Reply(tool_calls=(ToolCallSpec("delegate", {"task": "run sleep 60", "agent": "runner"}, "d1"),))

    env.responder = respond
    chat = ChatSession(
        settings(allow_shell=True, agents_project_config=True, request_timeout_s=30), workspace=work, ask=ask
    )
    events: list[Any] = []

    async def drive() -> None:
        async for event in chat.run_turn("run it in a subagent"):
            events.append(event)

    task = asyncio.create_task(drive())
    await until(lambda: processes_in(work), "the child's shell command to start")
    chat.cancel()
    await task
    await until(lambda: not processes_in(work), "the child's shell command to be killed", timeout=10)
    assert asked == ["runner-1"]  # the approval named the child asking
    started = of_type(events, "subagent_started")[0]
    assert started.agent_name == "runner" and set(started.tools) == {"run_shell", "read_file"}
    assert [e.outcome for e in of_type(events, "subagent_finished")] == ["cancelled"]
    assert of_type(events, "done")[0].interrupted


async def test_a_childs_own_budget_cuts_its_context_and_it_recalls_from_its_own_transcript(
    env: LoopbackServer, tmp_path: Path
) -> None:
    import re

    for name in "cdef":
        lines = [f"{name} line {i}: " + "filler words " * 5 for i in range(90)]
        if name == "c":
            lines[3] = "c line 3: the secret colour is teal"
        (tmp_path / f"{name}.txt").write_text("\n".join(lines) + "\n")

    def respond(request: RecordedRequest) -> Any:
        if not is_child(request):
            return parent(request, tasks=("Read c.txt, d.txt, e.txt and f.txt; return the secret colour.",))
        # What the conversation holds (the instructions name recall("r12") as an example).
        text = "\n".join(str(m.get("content")) for m in request.body["messages"] if m["role"] != "system")
        results = tool_results(request)
        if results and "the secret colour is teal" in results[-1] and "recall" in results[-1][:200]:
            return Reply("The secret colour is teal (c.txt line 3).")
        read = len([m for m in request.body["messages"] if m["role"] == "tool"])
        if read < 4 and not re.search(r'recall\("r\d+', text):
            return Reply(tool_calls=(ToolCallSpec("read_file", {"path": "cdef"[read] + ".txt"}, f"r{read}"),))
        handle = re.search(r'read_file\(path="c\.txt"\)[^\n]*?recall\("(r\d+(?:\.\d+)?)"\)', text)
        assert handle, "the cut note names c.txt's handle"
        return Reply(tool_calls=(ToolCallSpec("recall", {"handle": handle[1]}, "rc"),))

    env.responder = respond
    chat = session(tmp_path, subagent_budget_tokens=3000, context_strategy="trim")
    events = await run_turn(chat, "find the colour")
    cuts = [e for e in of_type(events, "history_trimmed")]
    assert cuts and all((e.agent, e.delegation) == ("explore-1", "d1") for e in cuts)
    assert all(e.budget_tokens == 3000 for e in cuts)
    assert chat.history.ledger == []  # the main context was not cut
    finished = of_type(events, "subagent_finished")[0]
    assert finished.outcome == "done" and finished.cuts == len(cuts)
    child_calls = [e.tool_name for e in of_type(events, "tool_call") if e.agent == "explore-1"]
    assert child_calls[-1] == "recall"
    assert "teal" in of_type(events, "done")[0].output
    from co_tui.session.child_record import child_records

    ((_, record),) = child_records(chat.history.transcript)
    assert len(record.ledger) == len(cuts) and all(e.agent == "explore-1" for e in record.ledger)


async def test_at_most_the_configured_number_of_children_run_at_once(env: LoopbackServer, tmp_path: Path) -> None:
    env.responder = lambda request: (
        explorer(request) if is_child(request) else parent(request, tasks=("one: " + TASK, "two: " + TASK))
    )
    chat = session(workspace(tmp_path), subagent_max_concurrent=1)
    events = await run_turn(chat, "find the magic number twice")
    order = ["one" if "one: " in r.text() else "two" for r in env.requests if is_child(r)]
    assert order in (["one", "one", "two", "two"], ["two", "two", "one", "one"])  # one after the other
    kinds = [e.type for e in events if e.type.startswith("subagent_")]
    assert kinds == ["subagent_started", "subagent_finished"] * 2  # the second starts once the first is done

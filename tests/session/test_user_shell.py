"""`!command` through a real session: asked as `run_shell` is, run for real, added to the history as a
`user_shell` call and result that the model sees on the next request, governed like any tool output,
saved, resumed; an interrupt kills the command's process group."""

from __future__ import annotations

import asyncio
from pathlib import Path

from pydantic_ai.messages import ModelRequest, ModelResponse, ToolCallPart, ToolReturnPart, UserPromptPart
from pydantic_ai.models.function import AgentInfo, FunctionModel
from support.processes import processes_in
from support.turns import collect, of_type, run_turn
from support.waits import finishes_within, until

from co_tui.config import load_settings
from co_tui.governance.handles import handle_of, recall_call
from co_tui.governance.recall import recall_output
from co_tui.governance.turns import check_pairing, split_turns
from co_tui.session.chat import ChatSession
from co_tui.session.opening import open_store, resume_session
from co_tui.session.user_shell import shell_exchange
from co_tui.session.user_shell_prompt import USER_SHELL_TOOL, user_shell_command


class Approver:
    """Answers every approval with `answer`, remembering what it was asked."""

    def __init__(self, answer: bool = True) -> None:
        self.answer = answer
        self.asked: list[tuple[str, str, bool]] = []

    async def __call__(self, request):  # the session's `ask`: an `ApprovalRequest`, a decision back
        self.asked.append((request.text, request.tool, request.by_user))
        return "once" if self.answer else "deny"


def seeing_model(seen: list[list]) -> FunctionModel:
    """Answers "ok", keeping every request's messages."""

    async def stream(messages, info: AgentInfo):
        seen.append(list(messages))
        yield "ok"

    return FunctionModel(stream_function=stream, model_name="seer")


def _session(tmp_path: Path, approver=None, **settings) -> ChatSession:
    seen: list[list] = []
    session = ChatSession(
        load_settings(**settings),
        workspace=tmp_path,
        store=open_store(load_settings()),
        model=seeing_model(seen),
        ask=approver,
    )
    session.seen = seen  # type: ignore[attr-defined]
    return session


def test_bang_command() -> None:
    assert user_shell_command("!ls -la ") == "ls -la"
    assert user_shell_command("! git status") == "git status"
    assert user_shell_command("!") is None and user_shell_command("!   ") is None  # a prompt, as typed
    assert user_shell_command("ls") is None and user_shell_command(" !ls") is None


def test_the_exchange_is_one_whole_turn_with_its_pair() -> None:
    messages = shell_exchange("ls", "$ ls\na.txt\n[exit code 0]", "user-shell-1")
    turns = split_turns(messages)
    assert len(turns) == 1 and len(turns[0].messages) == 3
    assert check_pairing(messages) == []
    prompt, call, result = messages
    assert isinstance(prompt, ModelRequest) and prompt.parts[0].content == "!ls"
    assert isinstance(call, ModelResponse) and isinstance(call.parts[0], ToolCallPart)
    assert call.parts[0].args == {"command": "ls"} and call.parts[0].tool_name == USER_SHELL_TOOL
    assert isinstance(result.parts[0], ToolReturnPart) and result.parts[0].tool_call_id == "user-shell-1"


async def test_the_output_reaches_the_model_on_the_next_request(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("the secret word is zephyr\n")
    approver = Approver()
    session = _session(tmp_path, approver)
    before = session.meter_reading().context_tokens
    events = await collect(session.run_user_shell("cat notes.txt"))
    assert approver.asked == [("cat notes.txt", "run_shell", True)], "asked as run_shell is, saying the user asked"
    assert [e.type for e in events] == ["tool_call", "tool_result", "usage", "done"]
    assert events[1].content == "$ cat notes.txt\nthe secret word is zephyr\n[exit code 0]"
    assert not events[-1].failed and not events[-1].interrupted
    assert events[2].context_tokens > before, "the meter counts the output"
    assert len(session.transcript) == 3 and len(session.context) == 3
    stamped = session.transcript[2].parts[0]
    assert handle_of(stamped) == "r2", "the output has a handle like any tool output"
    assert session.title == "!cat notes.txt"

    await run_turn(session, "what is the secret word?")
    sent = session.seen[-1]  # type: ignore[attr-defined]
    returns = [p for m in sent for p in m.parts if isinstance(p, ToolReturnPart)]
    assert returns and "zephyr" in returns[0].content
    assert check_pairing(sent) == [], "the pair is whole in what the model is sent"
    last_prompts = [p.content for p in sent[-1].parts if isinstance(p, UserPromptPart)]
    assert last_prompts == ["what is the secret word?"]


async def test_a_declined_command_adds_nothing(tmp_path: Path) -> None:
    session = _session(tmp_path, Approver(answer=False))
    events = await collect(session.run_user_shell("touch made"))
    assert [e.type for e in events] == ["notice", "done"] and events[-1].failed
    assert events[0].message == "`touch made` was not run: you declined it"
    assert not (tmp_path / "made").exists() and not session.transcript and not session.busy


async def test_no_approver_refuses(tmp_path: Path) -> None:
    events = await collect(_session(tmp_path).run_user_shell("touch made"))
    assert "no one can approve" in events[0].message and not (tmp_path / "made").exists()


async def test_interrupting_a_command_that_never_ends(tmp_path: Path) -> None:
    session = _session(tmp_path, Approver())
    events: list = []

    async def consume() -> None:
        async for event in session.run_user_shell("echo started; sleep 600"):
            events.append(event)

    task = asyncio.create_task(consume())
    await until(lambda: processes_in(tmp_path), "the command to start")
    assert session.busy
    session.cancel()
    await finishes_within(task, 10.0, "the interrupted command")
    await until(lambda: not processes_in(tmp_path), "the process group to be killed")
    done = events[-1]
    assert done.type == "done" and done.interrupted and not session.busy
    output = of_type(events, "tool_result")[0].content
    assert output.splitlines() == [
        "$ echo started; sleep 600",
        "started",
        "[interrupted by the user: the command was killed]",
    ]
    assert len(session.context) == 3, "what it printed is kept for the model"


async def test_a_busy_session_refuses_a_second_one(tmp_path: Path) -> None:
    session = _session(tmp_path, Approver())
    session.gate.running = True  # as while a turn runs
    events = await collect(session.run_user_shell("true"))
    assert events[-1].failed and events[0].type == "error"


async def test_an_old_output_is_truncated_and_recallable(tmp_path: Path) -> None:
    """Governed like any tool output: cut down in a later turn, with its recall call in the note."""
    session = _session(
        tmp_path, Approver(), tool_output_trim_chars=200, context_budget_tokens=4000, context_strategy="trim"
    )
    await collect(session.run_user_shell("seq 1 2000"))
    await run_turn(session, "thanks")
    await run_turn(session, "and now?")
    sent = session.seen[-1]  # type: ignore[attr-defined]
    output = next(p for m in sent for p in m.parts if isinstance(p, ToolReturnPart))
    assert len(output.content) < 1000 and recall_call("r2") in output.content, output.content[-300:]
    assert session.transcript[2].parts[0].content.endswith("[exit code 0]"), "the transcript keeps it whole"
    assert [e.strategy for e in session.ledger][:1] == ["tool_output_trim"], "the cut has its history_trimmed"
    recalled = recall_output(session.transcript, "r2")
    assert recalled.text.startswith('[recall("r2"): the output of user_shell(command="seq 1 2000") from turn 1')
    assert recalled.text.endswith("1999\n2000\n[exit code 0]"), "recall brings back the whole output"


async def test_saved_and_resumed(tmp_path: Path) -> None:
    session = _session(tmp_path, Approver())
    await collect(session.run_user_shell("echo hi"))
    session.release_claim()
    assert session.store is not None
    resumed = resume_session(
        load_settings(), workspace=tmp_path, store=session.store, session_id=session.id, model=seeing_model([])
    )
    assert [type(m) for m in resumed.transcript] == [ModelRequest, ModelResponse, ModelRequest]
    assert resumed.transcript[2].parts[0].content == "$ echo hi\nhi\n[exit code 0]"
    assert handle_of(resumed.context[2].parts[0]) == "r2"
    resumed.release_claim()


async def test_a_hostile_declined_command_is_said_on_one_escaped_line(tmp_path: Path) -> None:
    session = _session(tmp_path, Approver(answer=False))
    events = await collect(session.run_user_shell("echo hi\nprintf '\x1b]0;pwned\x07'; rm -rf /tmp/nothing"))
    line = events[0].message
    assert "\n" not in line and "\x1b" not in line and "\\x1b]0;pwned" in line
    assert line.endswith("was not run: you declined it")

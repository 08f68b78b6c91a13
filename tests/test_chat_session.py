"""ChatSession: the turn runner both front ends share, driven by FunctionModel agents."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path
from typing import Any

import pytest
from pilot_helpers import poll_until
from pydantic_ai.exceptions import ModelHTTPError
from pydantic_ai.messages import ModelRequest, ModelResponse, TextPart, ToolCallPart, ToolReturnPart, UserPromptPart
from pydantic_ai.models.function import AgentInfo, DeltaToolCall, FunctionModel
from support.processes import processes_in
from support.turns import collect
from support.waits import finishes_within, until
from support.workspaces import HELLO

from co_tui.config import load_settings
from co_tui.session.chat import ChatSession
from co_tui.session.events import DoneReason
from co_tui.session.opening import resume_session
from co_tui.session.session_saves import make_title


def types(events: list) -> list[str]:
    return [e.type for e in events]


def echo_model() -> FunctionModel:
    async def stream(messages, info: AgentInfo):
        last = messages[-1]
        if any(isinstance(p, ToolReturnPart) for p in last.parts):
            yield "the file says hi"
            return
        prompt = next(p.content for p in last.parts if isinstance(p, UserPromptPart))
        if "read" in prompt:
            yield {0: DeltaToolCall(name="read_file", json_args='{"path": "hello.txt"}', tool_call_id="c1")}
            return
        for word in f"you said: {prompt}".split(" "):
            yield word + " "

    return FunctionModel(stream_function=stream, model_name="echo")


@pytest.fixture
def workspace_files() -> dict[str, str | bytes]:
    return dict(HELLO)


def new_session(workspace: Path, model=None, **settings) -> ChatSession:
    return ChatSession(load_settings(**settings), workspace=workspace, model=model or echo_model())


async def test_text_turn_streams_and_records(workspace: Path) -> None:
    session = new_session(workspace)
    events = await collect(session.run_turn("hello world"))
    assert types(events)[-1] == "done"
    text = "".join(e.text for e in events if e.type == "text_delta")
    assert text.strip() == "you said: hello world"
    assert events[-1].output == text
    assert "usage" in types(events)
    assert [type(m) for m in session.transcript] == [ModelRequest, ModelResponse]
    assert session.context == session.transcript
    assert session.title == "hello world"


async def test_tool_turn_yields_call_and_result(workspace: Path) -> None:
    session = new_session(workspace)
    events = await collect(session.run_turn("read it"))
    call = next(e for e in events if e.type == "tool_call")
    result = next(e for e in events if e.type == "tool_result")
    assert (call.tool_name, call.tool_call_id) == ("read_file", "c1")
    assert "hi" in result.content and result.chars == len(result.content)
    assert len(session.transcript) == 4  # prompt, call, result, answer


async def test_budget_trim_emits_event_and_keeps_transcript(workspace: Path) -> None:
    session = new_session(workspace, context_budget_tokens=60, context_strategy="trim")
    for i in range(6):
        events = await collect(session.run_turn(f"message number {i} " + "padding words " * 8))
    assert session.ledger, "a trim was expected with a 60-token budget"
    assert any(e.type == "history_trimmed" for e in events) or len(session.ledger) >= 1
    assert all(t.session_id == session.id for t in session.ledger)
    assert len(session.transcript) == 12  # nothing lost from the transcript
    assert len(session.context) < len(session.transcript)
    first = session.context[0]
    assert isinstance(first, ModelRequest)
    assert "trimmed" in str(first.parts[0].content).lower()


async def test_provider_error_is_one_event_and_history_stays_usable(workspace: Path) -> None:
    calls = {"n": 0}

    async def flaky(messages, info):
        calls["n"] += 1
        if calls["n"] == 2:
            raise ModelHTTPError(status_code=500, model_name="flaky", body="boom")
        yield "fine"

    session = new_session(workspace, model=FunctionModel(stream_function=flaky, model_name="flaky"))
    await collect(session.run_turn("one"))
    events = await collect(session.run_turn("two"))
    errors = [e for e in events if e.type == "error"]
    assert len(errors) == 1 and "\n" not in errors[0].message
    assert events[-1].type == "done" and events[-1].failed
    events = await collect(session.run_turn("three"))
    assert events[-1].type == "done" and not events[-1].failed
    assert "fine" in events[-1].output


async def test_cancel_mid_stream_keeps_partial_and_next_turn_works(workspace: Path) -> None:
    started = asyncio.Event()

    async def slow(messages, info):
        prompt = next((p.content for p in messages[-1].parts if isinstance(p, UserPromptPart)), "")
        if prompt == "again":
            yield "ok"
            return
        for i in range(200):
            yield f"w{i} "
            started.set()
            await asyncio.sleep(0.01)  # the scenario: a slow stream, so the interrupt lands mid-answer

    session = new_session(workspace, model=FunctionModel(stream_function=slow, model_name="slow"))

    async def interrupt() -> None:
        await started.wait()
        session.cancel()

    task = asyncio.create_task(interrupt())
    events = await collect(session.run_turn("go"))
    await task
    done = events[-1]
    assert done.type == "done" and done.interrupted
    assert done.output.startswith("w0 ")
    assert any(e.type == "error" and e.kind == "interrupted" for e in events)
    assert not session.busy
    events = await collect(session.run_turn("again"))
    assert events[-1].output == "ok" and not events[-1].interrupted


async def test_compact_replaces_context_with_two_messages(workspace: Path) -> None:
    session = new_session(workspace, model="offline")
    await collect(session.run_turn("hello"))
    await collect(session.run_turn("read hello.txt"))
    before = len(session.transcript)
    events = await collect(session.compact())
    trim = next(e for e in events if e.type == "history_trimmed")
    assert (trim.reason, trim.strategy) == ("manual_compact", "compact")
    assert len(session.context) == 2
    assert "[Compacted conversation summary]" in str(session.context[0].parts[0].content)
    assert len(session.transcript) == before
    events = await collect(session.run_turn("hello again"))
    assert events[-1].type == "done" and not events[-1].failed


async def test_compact_on_empty_history_does_nothing(workspace: Path) -> None:
    session = new_session(workspace)
    events = await collect(session.compact())
    assert types(events) == ["done"]
    assert session.ledger == []


async def test_compact_of_a_compacted_context_does_nothing(workspace: Path) -> None:
    session = new_session(workspace, model="offline")
    await collect(session.run_turn("hello"))
    await collect(session.compact())
    context, ledger = list(session.context), list(session.ledger)
    events = await collect(session.compact())  # raised TypeError: there is no turn left to summarise
    assert types(events) == ["done"] and events[-1].output == "nothing to compact" and not events[-1].failed
    assert events[-1].reason is DoneReason.NOTHING_TO_COMPACT and "reason" not in events[-1].to_dict()
    assert session.context == context and session.ledger == ledger


async def test_clear_starts_fresh(workspace: Path) -> None:
    session = new_session(workspace)
    await collect(session.run_turn("hello"))
    old_id = session.id
    event = await session.clear()
    assert event.reason == "clear" and event.dropped_messages == 2
    assert session.id != old_id and session.context == [] and session.transcript == []


async def test_compact_and_clear_events_count_the_request_against_the_configured_budget(workspace: Path) -> None:
    """Banners sit beside the meter: their figures include the instructions and tool schemas every
    request carries, and name the budget the meter shows (compaction used to report a budget of 0)."""
    from co_tui.governance import estimate_tokens

    session = new_session(workspace, model="offline", context_budget_tokens=50_000)
    await collect(session.run_turn("hello"))
    await collect(session.run_turn("read hello.txt"))
    before = session.meter_reading().context_tokens
    assert before > estimate_tokens(session.context) + session.binding.overhead // 2  # overhead included
    events = await collect(session.compact())
    trim = next(e for e in events if e.type == "history_trimmed")
    assert session.binding.overhead > 0
    assert trim.budget_tokens == 50_000
    # One computation (the meter's) feeds the banner and the meter beside it.
    meter_after = [e for e in events if e.type == "usage"][-1]
    assert (trim.tokens_before, trim.tokens_after) == (before, meter_after.context_tokens)
    held = session.meter_reading().context_tokens
    cleared = await session.clear()
    assert cleared.budget_tokens == 50_000
    assert (cleared.tokens_before, cleared.tokens_after) == (held, 0)


async def test_a_trim_the_meter_says_is_pending_happens_on_the_next_turn(workspace: Path) -> None:
    session = new_session(workspace, context_budget_tokens=1200, context_strategy="trim")
    seen = []
    for i in range(10):
        pending = session.meter_reading().trim_pending
        # Answers of uneven length: some push the context past the budget, some do not.
        events = await collect(session.run_turn(f"q{i} " + "and more words " * (5 + 40 * (i % 3))))
        first_request_trims = bool(events) and any(e.type == "history_trimmed" for e in events[:2])
        if pending:
            assert first_request_trims, f"turn {i}: the meter said a trim was pending"
        seen.append(pending)
    assert True in seen and False in seen, seen


async def test_the_meter_says_when_the_message_limit_will_cut(workspace: Path) -> None:
    """At the message limit the next prompt makes one message too many: the meter says
    `trims on next send` (trim_pending) before it, and the trim does happen."""
    session = new_session(workspace, max_history_messages=8, context_strategy="trim")
    seen = []
    for i in range(8):
        pending = session.meter_reading().trim_pending
        events = await collect(session.run_turn(f"note number {i}: the sky is blue"))
        trims = [e for e in events if e.type == "history_trimmed"]
        assert bool(trims) == pending, f"turn {i}: pending={pending}, trims={trims}"
        if trims:
            assert trims[0].reason == "message_count"
        seen.append(pending)
    assert True in seen, seen


async def test_the_clear_dialog_and_its_banner_give_the_same_figures(workspace: Path) -> None:
    """The /clear dialog said ~1k tokens and 4 messages, its banner 1.1k and 2 messages:
    the dialog now shows the very event the clear then emits (markers are not messages removed)."""
    session = new_session(workspace, model="offline", max_history_messages=8, context_strategy="trim")
    for i in range(6):
        await collect(session.run_turn(f"note number {i}: the sky is blue"))
    preview = session.clear_preview()
    assert any(e.dropped_messages for e in session.ledger)  # a breadcrumb sits in the context
    assert preview.dropped_messages < len(session.context) + 1
    event = await session.clear()
    assert (preview.dropped_messages, preview.dropped_turns, preview.tokens_before) == (
        event.dropped_messages,
        event.dropped_turns,
        event.tokens_before,
    )


def test_make_title() -> None:
    assert make_title("  fix   the\nbug ") == "fix the bug"
    assert len(make_title("x" * 200)) == 60


async def test_resumed_meter_is_anchored_on_saved_usage(workspace: Path) -> None:
    from co_tui.store.session_store import SessionStore

    settings = load_settings()
    store = SessionStore.open(workspace / "data")
    session = ChatSession(settings, workspace=workspace, store=store, model="offline")
    await collect(session.run_turn("hello"))
    before = session.meter_reading()
    assert before.exactness == "exact"
    resumed = resume_session(settings, workspace=workspace, store=store, session_id=session.id, model="offline")
    after = resumed.meter_reading()
    assert (after.exactness, after.context_tokens) == ("exact", before.context_tokens)


async def test_saved_context_with_a_separate_marker_loses_no_prompt(workspace: Path) -> None:
    """A saved context may hold a cut's marker as its own request right before a user prompt (the
    store keeps what it was given; `fit_to_budget` writes it that way). pydantic-ai fuses adjacent
    requests when a run starts; the next turn's prompt must still reach the transcript."""
    from co_tui.governance import trim_to_recent_turns
    from co_tui.store.session_store import SessionStore

    turns = []
    for n in range(6):
        turns += [
            ModelRequest(parts=[UserPromptPart(f"question {n} " + "words " * 60)]),
            ModelResponse(parts=[TextPart(f"answer {n} " + "words " * 60)]),
        ]
    cut = trim_to_recent_turns(turns, 300)
    assert cut.trimmed and isinstance(cut.messages[0], ModelRequest) and isinstance(cut.messages[1], ModelRequest)
    store = SessionStore.open(workspace / "data")
    sid = store.create_session(model="echo", workspace=workspace)
    store.save_turn(sid, new_transcript=turns, context=cut.messages, new_events=[cut.to_event("token_budget", 300)])

    session = resume_session(load_settings(), workspace=workspace, store=store, session_id=sid, model=echo_model())
    await collect(session.run_turn("hello there"))
    new = session.transcript[len(turns) :]
    assert [type(m).__name__ for m in new] == ["ModelRequest", "ModelResponse"]
    assert [p.content for p in new[0].parts if isinstance(p, UserPromptPart)] == ["hello there"]
    assert "you said: hello there" in "".join(p.content for p in new[1].parts if isinstance(p, TextPart))


async def test_offline_summaries_cover_every_turn_they_report(workspace: Path) -> None:
    """With a 12-message limit, nine notes: the second summary spent its length cap on
    the earlier summary and silently left out notes 4 and 5. Every note the context no longer holds
    verbatim must be in its summary."""
    from co_tui.governance.markers import marker_info, separate_markers

    session = new_session(workspace, model="offline", max_history_messages=12)
    summaries = 0
    notes = 0
    while summaries < 2:  # the low-water mark spaces summaries out: go on until a second one nests the first
        notes += 1
        assert notes < 40, "a second summary never came"
        events = await collect(session.run_turn(f"note number {notes}: the sky is blue"))
        summaries += sum(1 for e in events if e.type == "history_trimmed" and e.strategy == "summary")
    context = separate_markers(session.context)
    marker_text = " ".join(info.summary or "" for m in context if (info := marker_info(m)) is not None)
    verbatim = " ".join(
        str(p.content) for m in context if marker_info(m) is None for p in m.parts if isinstance(p, UserPromptPart)
    )
    # At the smallest summary budget (200 tokens, plus the user's words on top) the fixed sections
    # leave no room for every note: a note may be left out, but never silently — the summary counts
    # the turns it omitted and the prompts its words section left out.
    missing = [i for i in range(1, notes + 1) if f"note number {i}: the sky is blue" not in verbatim + marker_text]
    said = sum(int(n) for n in re.findall(r"\(… (\d+) turn\(s\) omitted", marker_text))
    said += sum(int(n) for n in re.findall(r"\((\d+) more left out to fit\)", marker_text))
    assert len(missing) <= said, f"notes {missing} are neither in context nor in a summary, and not counted"
    assert len(missing) < notes // 2, missing


@pytest.mark.parametrize("moment", ["as it starts", "while it runs"])
async def test_an_interrupted_shell_command_ends_the_turn_at_once_and_the_next_question_is_answered(
    workspace: Path, moment: str
) -> None:
    """Esc ends the turn within 2 s wherever it lands, and the first question after it is answered
    (the repaired history ends with the interrupted call's synthesized result, the next prompt fused
    into that request). Landing while the process was still being set up (the event loop busy until
    the command's first child ran, as when the TUI paints), it killed /bin/sh alone and the turn
    waited on the output pipe `sleep` held: its whole 30 s, after any other test had run."""
    approved = asyncio.Event()

    async def approve(request: Any) -> str:
        approved.set()
        return "once"

    session = ChatSession(load_settings(allow_shell=True), workspace=workspace, model="offline", ask=approve)
    command = "run touch started; sleep 30; echo done"
    turn = asyncio.create_task(collect(session.run_turn(command)))
    await approved.wait()
    await until(lambda: processes_in(workspace), "/bin/sh to start", every=0)
    if moment == "as it starts":
        poll_until(lambda: (workspace / "started").exists(), "the command's first child")  # blocks the loop: on purpose
    else:
        await until(lambda: (workspace / "started").exists(), "the command's first child")  # Esc as a person presses it
    session.cancel()
    events = await finishes_within(turn, 2.0, "the interrupted turn")
    assert events[-1].interrupted
    await until(lambda: not processes_in(workspace), "every process of the command to be killed")
    events = await collect(session.run_turn("what did we do so far?"))
    answer = events[-1].output
    assert "interrupted before it finished" not in answer
    assert answer.startswith("Here is what I can see of our conversation")
    assert command in answer


async def test_the_compact_and_clear_dialogs_count_what_the_meter_shows(workspace: Path) -> None:
    """The /compact dialog counted the messages' tokens only ("~42 tokens" beside a meter at 1.6k)
    while /clear's counted the meter's request: both now show the meter's figure."""
    session = new_session(workspace, model="offline")
    for i in range(3):
        await collect(session.run_turn(f"note number {i}: the sky is blue"))
    shown = session.meter_reading().context_tokens
    compact, clear = session.compact_preview(), session.clear_preview()
    assert compact is not None
    assert compact.tokens_before == clear.tokens_before == shown
    assert session.binding.overhead < compact.tokens_after < compact.tokens_before


def test_a_session_start_builds_the_workspace_tools_once(workspace: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The workspace tools' schemas were built twice per start (the agent's and the meter's
    overhead, a few ms each): the overhead now prices the agent's own tools."""
    import co_tui.agent.factory as factory

    builds: list[bool] = []
    real = factory.workspace_toolset

    def counted(*args, **kwargs):
        builds.append(True)
        return real(*args, **kwargs)

    monkeypatch.setattr(factory, "workspace_toolset", counted)
    session = new_session(workspace, model="offline")
    assert len(builds) == 1
    session.set_model("offline")
    assert len(builds) == 2  # a new agent: once more
    # The figure is the one tools built on purpose give (instructions and three tool schemas),
    # plus the `delegate` tool's schema (docs/subagents.md).
    built = factory.overhead_tokens(session.settings, workspace=workspace, project_text=session.resources.project.text)
    delegate = factory.tool_schema_tokens(factory.known_tool_defs(session.delegations.toolset()))
    assert delegate > 0
    # The `remember` tool's schema too (docs/configuration.md, "Memory").
    from co_tui.session.memory import memory_toolset

    remember = factory.tool_schema_tokens(factory.known_tool_defs(memory_toolset(session.resources)))
    assert remember > 0
    # (priced in one JSON list with the workspace tools': a token of rounding either way)
    assert abs(session.binding.overhead - (built + delegate + remember)) <= 2 and len(builds) == 3

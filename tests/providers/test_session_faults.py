"""The fault matrix end to end through `ChatSession`, configured as a user would (model string +
`OPENAI_BASE_URL`/`ANTHROPIC_BASE_URL`), over real HTTP to the loopback server.

Each fault asserts: the visible one-line error, the turn ending in `Done(failed=True)`, how many
requests reached the server (bounded retries, no loops), the history staying provider-valid, and
the next turn working.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from pydantic_ai.messages import ModelResponse, TextPart
from support.turns import collect, of_type

from .harness import (
    assert_history_valid,
    assert_openai_body_valid,
    session,
    text_of,
)
from .loopback import (
    Close,
    CutStream,
    Hang,
    LoopbackServer,
    Malformed,
    Reply,
    StreamError,
    anthropic_error,
    openai_error,
    windowed,
)

FAST = {"retry-after-ms": "1"}


async def ok_turn(chat, server: LoopbackServer, prompt: str = "next question", answer: str = "all good") -> list:
    """A turn that must succeed: proves the session is usable after a fault."""
    server.script(Reply(answer))
    before = server.count()
    events = await collect(chat.run_turn(prompt))
    done = events[-1]
    assert done.type == "done" and not done.failed, events
    assert text_of(events) == answer
    assert server.count() == before + 1
    last = server.requests[-1]
    assert prompt in last.text()
    assert_openai_body_valid(last.body)
    assert_history_valid(chat.context)
    return events


def the_error(events: list) -> tuple[str, str]:
    errors = of_type(events, "error")
    assert len(errors) == 1, events
    assert events[-1].type == "done" and events[-1].failed
    assert "\n" not in errors[0].message
    return errors[0].message, errors[0].kind


# --- happy path ------------------------------------------------------------------------------------


async def test_turn_over_http_streams_and_reports_usage(env: LoopbackServer, tmp_path: Path) -> None:
    chat = session(tmp_path)
    env.script(Reply("Hello over HTTP", input_tokens=1234, output_tokens=5))
    events = await collect(chat.run_turn("hi"))
    assert text_of(events) == "Hello over HTTP"
    assert events[-1].type == "done" and not events[-1].failed
    usage = of_type(events, "usage")
    assert usage and usage[-1].window_is_guess is False
    assert any(u.input_tokens == 1234 for u in usage), usage
    [request] = env.requests
    assert request.body["model"] == "gpt-4o" and request.stream
    assert request.body["stream_options"] == {"include_usage": True}


# --- provider errors ----------------------------------------------------------------------------------


async def test_401_names_key_and_session_survives(env: LoopbackServer, tmp_path: Path) -> None:
    chat = session(tmp_path)
    env.script(openai_error(401, "Incorrect API key provided", code="invalid_api_key"))
    message, kind = the_error(await collect(chat.run_turn("hello")))
    assert "OPENAI_API_KEY" in message and kind == "auth"
    assert env.count() == 1
    await ok_turn(chat, env)


async def test_anthropic_401_names_anthropic_key(env: LoopbackServer, tmp_path: Path) -> None:
    chat = session(tmp_path, model="anthropic:claude-sonnet-4-6")
    env.script(anthropic_error(401, "authentication_error", "invalid x-api-key"))
    message, kind = the_error(await collect(chat.run_turn("hello")))
    assert "ANTHROPIC_API_KEY" in message and kind == "auth"


async def test_429_bounded_retries_then_clear_error(env: LoopbackServer, tmp_path: Path) -> None:
    chat = session(tmp_path, max_retries=2)
    err = openai_error(429, "Rate limit reached", type="requests", code="rate_limit_exceeded", headers=FAST)
    env.script(err, err, err, err)
    message, kind = the_error(await collect(chat.run_turn("hello")))
    assert env.count() == 3, "1 attempt + max_retries from settings"
    assert [r.retry_count for r in env.requests] == [0, 1, 2]
    assert message.startswith("rate limited by the server at 127.0.0.1:") and "(retried 2 times)" in message
    assert kind == "provider"
    env.clear_script()
    await ok_turn(chat, env)


async def test_429_retry_after_shown(env: LoopbackServer, tmp_path: Path) -> None:
    chat = session(tmp_path, max_retries=0)
    env.script(openai_error(429, "Rate limit", code="rate_limit_exceeded", headers={"retry-after": "17"}))
    message, _ = the_error(await collect(chat.run_turn("hello")))
    assert message.endswith("(retried 0 times); try again in 17s")


@pytest.mark.parametrize("status", [500, 502, 503])
async def test_5xx_bounded_retries_then_clear_error(env: LoopbackServer, tmp_path: Path, status: int) -> None:
    chat = session(tmp_path, max_retries=2)
    err = openai_error(status, "upstream trouble", type="server_error", headers=FAST)
    env.script(*[err] * 4)
    message, kind = the_error(await collect(chat.run_turn("hello")))
    assert env.count() == 3
    assert f"server error {status} after 2 retries" in message and kind == "provider"
    env.clear_script()
    await ok_turn(chat, env)


async def test_5xx_then_success_within_retries_is_invisible(env: LoopbackServer, tmp_path: Path) -> None:
    chat = session(tmp_path, max_retries=2)
    env.script(openai_error(502, "bad gateway", type="server_error", headers=FAST), Reply("fine now"))
    events = await collect(chat.run_turn("hello"))
    assert not of_type(events, "error")
    assert text_of(events) == "fine now" and env.count() == 2


# --- transport failures ---------------------------------------------------------------------------------


async def test_connection_refused_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, loopback: LoopbackServer, refused_url: str
) -> None:
    dead = refused_url
    monkeypatch.setenv("OPENAI_BASE_URL", dead + "/v1")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    chat = session(tmp_path, max_retries=0)
    message, kind = the_error(await collect(chat.run_turn("hello")))
    assert message == f"cannot connect to {dead.removeprefix('http://')}: connection refused (is the server running?)"
    assert kind == "network"
    # The user starts the server (same host, different port here) and carries on.
    monkeypatch.setenv("OPENAI_BASE_URL", loopback.openai_base_url)
    chat.set_model("openai-chat:gpt-4o")
    await ok_turn(chat, loopback)
    assert "hello" in loopback.requests[-1].text(), "the failed prompt is still in the history"


async def test_dns_failure_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", "http://llm.co-tui-test.invalid/v1")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    chat = session(tmp_path, max_retries=0)
    message, kind = the_error(await collect(chat.run_turn("hello")))
    assert message == "cannot resolve host llm.co-tui-test.invalid: check the base URL and your network"
    assert kind == "network"


async def test_timeout_from_settings(env: LoopbackServer, tmp_path: Path) -> None:
    chat = session(tmp_path, max_retries=0, request_timeout_s=0.3)
    env.script(Hang(5))
    message, kind = the_error(await collect(chat.run_turn("hello")))
    assert message == f"timed out waiting for 127.0.0.1:{env.port} within 0.3s"
    assert kind == "network"
    await ok_turn(chat, env)


async def test_connection_closed_without_answer(env: LoopbackServer, tmp_path: Path) -> None:
    chat = session(tmp_path, max_retries=1)
    env.script(Close(), Close())
    message, _ = the_error(await collect(chat.run_turn("hello")))
    assert message.endswith("closed the connection without answering")
    assert env.count() == 2
    await ok_turn(chat, env)


# --- broken streams: partial answer kept and marked ------------------------------------------------------


@pytest.mark.parametrize(
    "fault",
    [CutStream("The first half of"), Malformed("The first half of"), StreamError("The first half of")],
    ids=["cut", "malformed", "error-event"],
)
async def test_broken_stream_keeps_partial_answer(env: LoopbackServer, tmp_path: Path, fault: object) -> None:
    chat = session(tmp_path)
    env.script(fault)
    events = await collect(chat.run_turn("tell me a story"))
    message, _ = the_error(events)
    assert message.startswith("the response stream broke off: partial answer kept")
    assert text_of(events) == "The first half of"
    assert events[-1].output == "The first half of"
    assert env.count() == 1, "a started stream is not re-sent"
    # Kept, and marked: the response is recorded as interrupted in both views.
    for view in (chat.transcript, chat.context):
        partial = [m for m in view if isinstance(m, ModelResponse)][-1]
        assert [p.content for p in partial.parts if isinstance(p, TextPart)] == ["The first half of"]
        assert partial.state == "interrupted"
    assert_history_valid(chat.context)
    await ok_turn(chat, env, "go on")
    assert "The first half of" in env.requests[-1].text(), "the model sees what it had said"


async def test_stream_cut_before_any_text_says_so(env: LoopbackServer, tmp_path: Path) -> None:
    chat = session(tmp_path)
    env.script(CutStream(""))
    events = await collect(chat.run_turn("hello"))
    message, kind = the_error(events)
    assert message == "the response stream broke off before any answer arrived"
    assert kind == "network"
    assert_history_valid(chat.context)
    await ok_turn(chat, env)


# --- context overflow ---------------------------------------------------------------------------------------


async def test_overflow_recovery_trims_whole_turns_and_retries(env: LoopbackServer, tmp_path: Path) -> None:
    """Our estimate says it fits (explicit big budget), the provider says no: cut, breadcrumb, retry."""
    chat = session(tmp_path, context_budget_tokens=100_000, context_strategy="trim", max_history_messages=200)
    long_answer = "word " * 600  # ~750 server tokens per turn
    env.responder = windowed(1800, lambda req: Reply(long_answer))
    for i in range(3):
        events = await collect(chat.run_turn(f"question {i}"))
        assert events[-1].type == "done" and not events[-1].failed, events
    before = env.count()
    events = await collect(chat.run_turn("question 3"))
    assert events[-1].type == "done" and not events[-1].failed, events
    trims = of_type(events, "history_trimmed")
    assert trims and all(t.reason == "context_overflow" for t in trims)
    assert trims[0].strategy == "turn_trim" and trims[0].dropped_turns >= 1
    assert trims[0].session_id == chat.id
    assert chat.ledger[-len(trims) :] == trims
    requests = env.requests[before:]
    assert 2 <= len(requests) <= 4, "one overflow per dropped turn, then success"
    final = requests[-1]
    assert "[Earlier conversation trimmed" in final.text()
    # The dropped turn is gone but for the breadcrumb's line naming it (and its recall).
    assert final.text().count("question 0") == 1 and '- turn 1: "question 0"' in final.text()
    assert "question 3" in final.text()
    assert_openai_body_valid(final.body)
    assert_history_valid(chat.context)
    assert len(chat.transcript) > len(chat.context), "the transcript keeps everything"
    assert any("question 0" in str(m) for m in chat.transcript)


async def test_anthropic_prompt_too_long_recovers(env: LoopbackServer, tmp_path: Path) -> None:
    chat = session(
        tmp_path,
        model="anthropic:claude-sonnet-4-6",
        context_budget_tokens=100_000,
        context_strategy="trim",
        max_history_messages=200,
    )
    env.responder = windowed(1800, lambda req: Reply("word " * 600), api="anthropic")
    for i in range(4):
        events = await collect(chat.run_turn(f"question {i}"))
        assert events[-1].type == "done" and not events[-1].failed, events
    reasons = [t.reason for t in chat.ledger]
    assert "context_overflow" in reasons


async def test_overflow_unrecoverable_ends_in_clear_error_without_loop(env: LoopbackServer, tmp_path: Path) -> None:
    chat = session(tmp_path, context_budget_tokens=100_000, context_strategy="trim", max_history_messages=200)
    env.responder = windowed(1000, lambda req: Reply("short answer"))
    await ok_turn(chat, env, "a small first question", "short answer")
    env.responder = windowed(1000, lambda req: Reply("short answer"))
    before = env.count()
    events = await collect(chat.run_turn("paste: " + "x " * 6000))  # this turn alone is over the window
    message, kind = the_error(events)
    assert message == "the conversation is too long for gpt-4o's context window even after trimming"
    assert kind == "overflow"
    assert env.count() - before <= 4, "bounded: drop older turns, shrink once, then give up"
    # The session stays usable: the oversized turn is an older turn now and is cut on overflow.
    env.responder = windowed(1000, lambda req: Reply("recovered"))
    events = await collect(chat.run_turn("a small follow-up"))
    assert events[-1].type == "done" and not events[-1].failed, events
    assert text_of(events) == "recovered"


# --- interrupts ---------------------------------------------------------------------------------------------


async def test_interrupt_mid_stream_keeps_partial_and_next_turn_works(env: LoopbackServer, tmp_path: Path) -> None:
    chat = session(tmp_path)
    # The scenario: a stream slow enough that the interrupt (at the first delta) lands mid-answer.
    env.script(Reply("one two three four five six seven eight nine ten " * 4, chunk_delay=0.05, chunks=20))
    events = []
    async for event in chat.run_turn("count slowly"):
        events.append(event)
        if event.type == "text_delta":
            chat.cancel()
    done = events[-1]
    assert done.type == "done" and done.interrupted
    assert [e.kind for e in of_type(events, "error")] == ["interrupted"]
    assert done.output and len(done.output) < len("one two three four five six seven eight nine ten " * 4)
    assert_history_valid(chat.context)
    await ok_turn(chat, env)


async def test_interrupt_while_sdk_sleeps_on_retry_after(
    env: LoopbackServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The Anthropic SDK sleeps any Retry-After: Esc must end that wait, with nothing lost."""
    import asyncio

    import anyio

    sleeping = asyncio.Event()
    real_sleep = anyio.sleep

    async def observed_sleep(delay: float, *args: Any, **kwargs: Any) -> None:
        if delay >= 100:  # the SDK's wait on the 300 s Retry-After
            sleeping.set()
        await real_sleep(delay, *args, **kwargs)

    monkeypatch.setattr(anyio, "sleep", observed_sleep)
    chat = session(tmp_path, model="anthropic:claude-sonnet-4-6", max_retries=1)
    env.script(anthropic_error(429, "rate_limit_error", "slow down", headers={"retry-after": "300"}))
    task = asyncio.create_task(collect(chat.run_turn("hello")))
    await asyncio.wait_for(sleeping.wait(), 30)  # the SDK is now sleeping on Retry-After
    chat.cancel()
    events = await asyncio.wait_for(task, 10)
    assert events[-1].type == "done" and events[-1].interrupted
    assert [e.kind for e in of_type(events, "error")] == ["interrupted"]
    assert env.count() == 1
    env.script(Reply("fine"))
    events = await collect(chat.run_turn("again"))
    assert text_of(events) == "fine"
    assert "hello" in env.requests[-1].text()


async def test_interrupt_mid_tool_call_repairs_history(env: LoopbackServer, tmp_path: Path) -> None:
    """Cancel while a tool call is pending (the shell approval dialog is open): pydantic-ai's
    repair closes the dangling call, and the next request is a valid conversation."""
    import asyncio

    from co_tui.session.chat import ChatSession

    from .harness import settings
    from .loopback import ToolCallSpec

    asking = asyncio.Event()

    async def ask(request: Any) -> str:
        asking.set()
        await asyncio.sleep(30)  # the scenario: the user never answers; Esc comes first
        return "deny"

    chat = ChatSession(settings(allow_shell=True), workspace=tmp_path, ask=ask)
    env.script(Reply(tool_calls=(ToolCallSpec("run_shell", {"command": "ls"}, "call_shell"),)))
    events = []

    async def drive() -> None:
        async for event in chat.run_turn("list files"):
            events.append(event)

    task = asyncio.create_task(drive())
    await asyncio.wait_for(asking.wait(), 10)
    chat.cancel()
    await asyncio.wait_for(task, 10)
    assert events[-1].type == "done" and events[-1].interrupted
    assert of_type(events, "tool_call")
    assert_history_valid(chat.context)
    await ok_turn(chat, env)
    sent = env.requests[-1].body["messages"]
    tool_messages = [m for m in sent if m["role"] == "tool"]
    assert [m["tool_call_id"] for m in tool_messages] == ["call_shell"]


# --- summariser failure over HTTP ---------------------------------------------------------------------------


async def test_summary_failure_static_marker_event_and_cooldown(env: LoopbackServer, tmp_path: Path) -> None:
    # 8 is the smallest limit whose window has a middle with 2-message turns (head turn + 4-message tail).
    chat = session(
        tmp_path,
        max_retries=1,
        context_strategy="summarize",
        max_history_messages=8,
        summarization_model="openai-chat:summarizer",
        summarizer_cooldown_s=600,
    )

    # Answers long enough that the middle outweighs the smallest summary (a lighter one is left to
    # the zero-LLM rules without asking the summariser).
    answer = "an answer with enough detail to be worth summarising. " * 20

    def respond(request):
        if request.body.get("model") == "summarizer":
            return openai_error(500, "summariser down", type="server_error", headers=FAST)
        return Reply(answer)

    env.responder = respond
    trims = []
    for i in range(9):
        events = await collect(chat.run_turn(f"question {i}"))
        assert events[-1].type == "done" and not events[-1].failed, events
        assert text_of(events) == answer
        trims += of_type(events, "history_trimmed")
    summary_attempts = [r for r in env.requests if r.body.get("model") == "summarizer"]
    assert [r.retry_count for r in summary_attempts] == [0, 1], (
        "one failed summary (the SDK retried it once), then the cooldown: no request spam"
    )
    failed = [t for t in trims if t.strategy == "static_marker"]
    assert failed, trims
    assert failed[0].note and "summary failed" in failed[0].note
    assert_history_valid(chat.context)


async def test_compact_failure_over_http_leaves_history_unchanged(env: LoopbackServer, tmp_path: Path) -> None:
    chat = session(tmp_path, max_retries=1)
    await ok_turn(chat, env, "first question", "first answer")
    before = list(chat.context)
    err = openai_error(500, "down", type="server_error", headers=FAST)
    env.script(err, err, err)
    events = await collect(chat.compact())
    message, kind = the_error(events)
    assert "server error 500 after 1 retry" in message and kind == "provider"
    assert chat.context == before and not chat.ledger
    assert env.pending == 1, "1 attempt + 1 retry"
    env.clear_script()
    await ok_turn(chat, env)


# --- context windows -----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("model", "window", "guess"),
    [
        ("openai-chat:gpt-4o", 128_000, False),
        ("anthropic:claude-sonnet-4-6", None, False),
        ("openai-chat:my-local-model", 16_384, True),
    ],
)
async def test_budget_from_profile_or_fallback(
    env: LoopbackServer, tmp_path: Path, model: str, window: int | None, guess: bool
) -> None:
    chat = session(tmp_path, model=model, fallback_context_window=16_384)
    reading = chat.meter_reading()
    assert reading.window_is_guess is guess
    if window is not None:
        assert reading.budget_tokens == int(window * 0.8)
    else:
        assert reading.budget_tokens >= 100_000
    env.script(Reply("hi"))
    events = await collect(chat.run_turn("hello"))
    assert [u.window_is_guess for u in of_type(events, "usage")] == [guess] * len(of_type(events, "usage"))

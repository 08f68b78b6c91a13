"""The TUI against a faulty provider: the real app, the real ChatSession and store, real HTTP to the
loopback server. After each fault the app is still running, the error block (or banner) is shown,
and the next prompt is answered.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("co_tui.tui.app")

from pilot_helpers import wait_idle, wait_until
from quiet_app import QuietApp

from co_tui.config import Settings
from co_tui.tui.widgets.assistant_message import AssistantMessage
from co_tui.tui.widgets.error_block import ErrorBlock
from co_tui.tui.widgets.trim_banner import TrimBanner

from .loopback import Close, CutStream, LoopbackServer, Reply, openai_error, windowed

FAST = {"retry-after-ms": "1"}


async def send(pilot: Any, text: str) -> None:
    """Type into the prompt and press Enter, as a user does; wait for the turn to finish."""
    from co_tui.tui.widgets.user_message import UserMessage

    app = pilot.app
    await wait_until(pilot, lambda: app.session is not None, "the session")
    shown = len(app.chat.log_view.query(UserMessage))
    app.chat.prompt.load_text(text)
    await pilot.press("enter")
    # The turn's worker shows the prompt first: once it is shown the turn has started. Then every
    # line the turn leads to is drawn, including an internal error posted after its job ended (the
    # tests below assert that no other error block comes).
    await wait_until(pilot, lambda: len(app.chat.log_view.query(UserMessage)) > shown, "the turn to start")
    await wait_idle(pilot)


def answers(app: Any) -> list[str]:
    return [w.text for w in app.chat.log_view.query(AssistantMessage)]


def errors(app: Any) -> list[ErrorBlock]:
    return list(app.chat.log_view.query(ErrorBlock))


@pytest.fixture
def app_for(env: LoopbackServer, tmp_path: Path) -> Any:

    def make(**overrides: Any) -> QuietApp:
        values: dict[str, Any] = {"model": "openai-chat:gpt-4o", "max_retries": 2, "request_timeout_s": 5.0}
        values.update(overrides)
        return QuietApp(Settings(**values), tmp_path)

    return make


async def test_server_errors_show_error_block_and_app_lives_on(app_for: Any, loopback: LoopbackServer) -> None:
    err = openai_error(503, "unavailable", type="server_error", headers=FAST)
    loopback.script(err, err, err, Reply("back again"))
    app = app_for()
    async with app.run_test(size=(100, 40)) as pilot:
        await send(pilot, "hello")
        [block] = errors(app)
        assert block.kind == "provider"
        assert block.message == f"the server at 127.0.0.1:{loopback.port} server error 503 after 2 retries"
        assert app.is_running and app.return_code is None
        await send(pilot, "try again")
        assert answers(app) == ["back again"]
        assert loopback.count() == 4
        assert "hello" in loopback.requests[-1].text(), "the failed prompt stays in the conversation"


@pytest.mark.parametrize(
    ("fault", "kind", "needle"),
    [
        (openai_error(401, "Incorrect API key", code="invalid_api_key"), "auth", "check OPENAI_API_KEY"),
        (
            openai_error(429, "Rate limit", code="rate_limit_exceeded", headers={"retry-after": "300"}),
            "provider",
            "try again in 300s",
        ),
        (Close(), "network", "closed the connection without answering"),
    ],
    ids=["401", "429", "closed"],
)
async def test_fault_shows_one_error_block_and_next_turn_works(
    app_for: Any, loopback: LoopbackServer, fault: Any, kind: str, needle: str
) -> None:
    loopback.script(fault, fault, fault, Reply("fine"))
    app = app_for(max_retries=0)
    async with app.run_test(size=(100, 40)) as pilot:
        await send(pilot, "hello")
        [block] = errors(app)
        assert block.kind == kind and needle in block.message and "\n" not in block.message
        assert app.is_running
        loopback.clear_script()
        loopback.script(Reply("fine"))
        await send(pilot, "again")
        assert answers(app) == ["fine"]


async def test_broken_stream_keeps_partial_answer_on_screen(app_for: Any, loopback: LoopbackServer) -> None:
    loopback.script(CutStream("The first half"), Reply("second try"))
    app = app_for()
    async with app.run_test(size=(100, 40)) as pilot:
        await send(pilot, "tell me")
        assert answers(app) == ["The first half"]
        [block] = errors(app)
        assert block.message == "the response stream broke off: partial answer kept"
        await send(pilot, "go on")
        assert answers(app) == ["The first half", "second try"]


async def test_overflow_recovery_shows_banner(app_for: Any, loopback: LoopbackServer) -> None:
    loopback.responder = windowed(1500, lambda req: Reply("lorem " * 500))
    app = app_for(context_budget_tokens=100_000, context_strategy="trim")
    async with app.run_test(size=(100, 40)) as pilot:
        await send(pilot, "first")
        await send(pilot, "second")
        await send(pilot, "third")
        banners = list(app.chat.log_view.query(TrimBanner))
        assert banners, "an overflow was recovered, visibly"
        assert {b.event.reason for b in banners} == {"context_overflow"}
        assert not errors(app)
        assert len(answers(app)) == 3


async def test_escape_interrupts_stream_and_next_turn_works(app_for: Any, loopback: LoopbackServer) -> None:
    # The scenario: a stream still running when Esc comes (pressed once its first text shows).
    loopback.script(Reply("tick " * 200, chunk_delay=0.05, chunks=200), Reply("after the interrupt"))
    app = app_for()
    async with app.run_test(size=(100, 40)) as pilot:
        await wait_until(pilot, lambda: app.session is not None, "the session")
        app.chat.prompt.load_text("count")
        await pilot.press("enter")
        await wait_until(pilot, lambda: any(answers(app)), "the first streamed text")
        await pilot.press("escape")
        await wait_idle(pilot)  # the interrupted turn ended and everything it led to is drawn
        [answer] = list(app.chat.log_view.query(AssistantMessage))
        assert answer.interrupted and 0 < len(answer.text) < len("tick " * 200)
        assert [b.kind for b in errors(app)] == ["interrupted"]
        await send(pilot, "carry on")
        assert answers(app)[-1] == "after the interrupt"

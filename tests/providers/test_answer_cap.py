"""An answer that never ends (issue 40, item 7): the stream is stopped at `max_answer_chars`, a
notice and a line in the answer say so, the kept response ends as shown, the history stays valid and
the next turn is answered. Real HTTP to the loopback server, the real OpenAI client. The TUI: the
capped answer and its notice in the chat, and Esc on a fast multi-megabyte stream with no cap."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from pilot_helpers import wait_idle, wait_until
from pydantic_ai.messages import ModelResponse, TextPart
from quiet_app import QuietApp
from support.turns import collect, of_type

from co_tui.config import Settings
from co_tui.session.answer_cap import cap_line
from co_tui.tui.widgets.assistant_message import AssistantMessage
from co_tui.tui.widgets.error_block import ErrorBlock
from co_tui.tui.widgets.notice_line import NoticeLine

from .harness import assert_history_valid, assert_openai_body_valid, session, text_of
from .loopback import LoopbackServer, Reply

CAP = 5_000
LONG = "The model goes on and on about the context. " * 2_000  # 88,000 characters


async def test_an_answer_is_stopped_at_the_cap_and_says_so(env: LoopbackServer, workspace: Path) -> None:
    env.script(Reply(text=LONG, chunks=200), Reply(text="a short answer"))
    chat = session(workspace, max_answer_chars=CAP)
    events = await collect(chat.run_turn("talk"))
    assert text_of(events) == LONG[:CAP] + cap_line(CAP)
    [notice] = of_type(events, "notice")
    assert "5,000 characters (max_answer_chars)" in notice.message and "stopped" in notice.message
    [done] = of_type(events, "done")
    assert not done.interrupted and not done.failed and not of_type(events, "error")
    assert_history_valid(list(chat.context))
    last = chat.transcript[-1]
    assert isinstance(last, ModelResponse)
    assert [p.content for p in last.parts if isinstance(p, TextPart)] == [LONG[:CAP] + cap_line(CAP)]

    events = await collect(chat.run_turn("shorter, please"))
    assert text_of(events) == "a short answer" and not of_type(events, "error")
    body = env.requests[-1].body
    assert_openai_body_valid(body)
    assert body["messages"][-2]["content"].endswith(cap_line(CAP))  # the model is told its answer was cut


async def test_each_response_of_a_turn_counts_from_zero(env: LoopbackServer, workspace: Path) -> None:
    from .loopback import ToolCallSpec

    (workspace / "a.txt").write_text("hello\n")
    env.script(
        Reply(text="x" * (CAP - 10), tool_calls=(ToolCallSpec("read_file", {"path": "a.txt"}),)),
        Reply(text="y" * (CAP - 10)),
    )
    chat = session(workspace, max_answer_chars=CAP)
    events = await collect(chat.run_turn("read it"))
    assert not of_type(events, "notice") and text_of(events) == "x" * (CAP - 10) + "y" * (CAP - 10)


async def test_no_cap_when_it_is_zero(env: LoopbackServer, workspace: Path) -> None:
    env.script(Reply(text=LONG, chunks=50))
    events = await collect(session(workspace, max_answer_chars=0).run_turn("talk"))
    assert text_of(events) == LONG and not of_type(events, "notice")


async def test_an_answer_stopped_just_short_of_the_cap_is_kept_within_it(env: LoopbackServer, workspace: Path) -> None:
    """Esc when the answer shown was 1,000 characters short of the cap: the run already held the
    next 2,000-character delta (here 62,000 shown, 64,000 kept: whether it holds one depends on how
    the stream's bytes arrive), and the session kept it, past the cap. What is kept is capped as a
    finished answer is, and a notice says so; the history stays valid."""
    huge = ("A paragraph of an answer that will not end, about the context.\n\n" * 50_000)[:3_000_000]
    env.script(Reply(text=huge, chunks=1_500))  # 2,000-character deltas
    cap = 63_000
    chat = session(workspace, max_answer_chars=cap)
    events, shown = [], 0
    async for event in chat.run_turn("talk"):
        events.append(event)
        if event.type == "text_delta":
            shown += len(event.text)
            if shown > cap - 3_000:
                chat.cancel()  # what Esc does
    assert shown < cap, "stopped by the user before the cap"
    [done] = of_type(events, "done")
    assert done.interrupted
    last = chat.transcript[-1]
    assert isinstance(last, ModelResponse)
    kept = "".join(p.content for p in last.parts if isinstance(p, TextPart))
    assert kept == huge[:cap] + cap_line(cap) or kept == huge[:shown], len(kept)
    assert len(kept) <= cap + len(cap_line(cap)), "never more than a finished answer keeps"
    notices = [n.message for n in of_type(events, "notice")]
    assert notices == (
        [
            f"the stopped answer had passed {cap:,} characters (max_answer_chars) by the time it "
            "stopped; what is kept ends at the cap, as a finished answer's would"
        ]
        if len(kept) > shown
        else []
    )
    assert_history_valid(list(chat.context))


def tui(tmp_path: Path, **overrides: Any) -> QuietApp:
    values: dict[str, Any] = {"model": "openai-chat:gpt-4o", "max_retries": 0, "request_timeout_s": 60.0}
    return QuietApp(Settings(**{**values, **overrides}), tmp_path)


async def send(pilot: Any, text: str) -> None:
    """Type into the prompt and press Enter; wait until the turn has started (its prompt shown)."""
    from co_tui.tui.widgets.user_message import UserMessage

    app = pilot.app
    await wait_until(pilot, lambda: app.session is not None, "the session")
    shown = len(app.chat.log_view.query(UserMessage))
    app.chat.prompt.load_text(text)
    await pilot.press("enter")
    await wait_until(pilot, lambda: len(app.chat.log_view.query(UserMessage)) > shown, "the turn to start")


def shown_answer(app: Any) -> str:
    return "".join(m.text for m in app.chat.log_view.query(AssistantMessage))


async def test_the_tui_shows_the_capped_answer_and_the_notice(env: LoopbackServer, tmp_path: Path) -> None:
    env.script(Reply(text=LONG, chunks=200), Reply(text="a short answer"))
    app = tui(tmp_path, max_answer_chars=CAP)
    async with app.run_test(size=(100, 30)) as pilot:
        await send(pilot, "talk")
        await wait_idle(pilot)
        assert shown_answer(app).endswith("[answer stopped at 5,000 characters: max_answer_chars]")
        assert any("max_answer_chars" in n.text for n in app.chat.query(NoticeLine))
        assert not app.chat.query(ErrorBlock)
        await send(pilot, "shorter")
        await wait_idle(pilot)
        assert shown_answer(app).endswith("a short answer")
        assert_history_valid(list(app.session.context))


async def test_esc_stops_a_fast_huge_stream_and_the_next_prompt_is_answered(
    env: LoopbackServer, tmp_path: Path
) -> None:
    """3 MB in 2,000-character deltas, no cap: faster than the chat can draw. Esc ends the turn (the
    drawn part stays, the rest of the backlog is said, not drawn) and the next prompt is answered."""
    huge = ("A paragraph of an answer that will not end, about the context.\n\n" * 50_000)[:3_000_000]
    # The stream's end is held until after Esc: on a loaded host every delta could arrive (and the
    # turn end) while the chat still drew the first 200,000 characters, and Esc then had no turn
    # to stop.
    end = threading.Event()
    env.script(Reply(text=huge, chunks=1_500, hold_end=end), Reply(text="a short answer"))
    # How much of the stream is kept depends on how far it got when Esc landed (on a loaded host,
    # megabytes: over gpt-4o's window), so the next prompt may first cut the context; a trim, not a
    # summary, so that cut asks the model nothing and "shorter" gets the scripted answer either way.
    app = tui(tmp_path, max_answer_chars=0, context_strategy="trim")
    async with app.run_test(size=(100, 30)) as pilot:
        await send(pilot, "talk")
        await wait_until(pilot, lambda: len(shown_answer(app)) > 200_000, "a good part of the answer")
        await pilot.press("escape")
        await wait_idle(pilot)
        end.set()
        assert [e.kind for e in app.chat.query(ErrorBlock)] == ["interrupted"]
        assert_history_valid(list(app.session.context))
        await send(pilot, "shorter")
        await wait_idle(pilot)
        answer = app.session.transcript[-1]
        assert isinstance(answer, ModelResponse) and answer.parts == [TextPart(content="a short answer")]
        await wait_until(
            pilot,
            lambda: "a short answer" in shown_answer(app),
            lambda: (
                f"the answer shown: {[(type(w).__name__, getattr(w, 'text', '')[-40:]) for w in app.chat.log_view.items][-6:]}"
            ),
        )
        assert [e.kind for e in app.chat.query(ErrorBlock)] == ["interrupted"]

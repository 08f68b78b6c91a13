"""Resuming a saved session: banners sit at their cuts, only the newest entries are mounted, and
they show from the store's rows before the session (and pydantic-ai) has loaded — the same entries."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from pilot_helpers import wait_idle, wait_ready, wait_until

from co_tui.config import load_settings
from co_tui.session.chat import ChatSession
from co_tui.session.opening import open_session, open_store
from co_tui.store.errors import StoreError
from co_tui.store.session_store import SessionStore
from co_tui.tui.app import CoTuiApp
from co_tui.tui.screens.sessions import SessionsScreen
from co_tui.tui.transcript_view import RESUME_ENTRIES, tail_shows, transcript_items
from co_tui.tui.widgets.assistant_message import AssistantMessage
from co_tui.tui.widgets.notice_line import NoticeLine
from co_tui.tui.widgets.tool_call_block import ToolCallBlock
from co_tui.tui.widgets.trim_banner import TrimBanner
from co_tui.tui.widgets.user_message import UserMessage


async def saved_session(workspace: Path, turns: int, **settings: object) -> ChatSession:
    s = load_settings(**settings)
    session = ChatSession(s, workspace=workspace, store=open_store(s))
    for i in range(turns):
        async for _ in session.run_turn("read README.md" if i % 2 else f"hello number {i}"):
            pass
    return session


async def test_banners_at_their_cuts(workspace: Path) -> None:
    session = await saved_session(workspace, 8, context_budget_tokens=900, context_strategy="trim")
    assert len(session.ledger) >= 2, "the small budget should have cut more than once"
    app = CoTuiApp(load_settings(), workspace, resume_id=session.id)
    async with app.run_test(size=(100, 40)) as pilot:
        await wait_until(pilot, lambda: bool(app.chat.log_view.query(TrimBanner)))
        await wait_ready(pilot)
        children = app.chat.log_view.items
        banners = [i for i, w in enumerate(children) if isinstance(w, TrimBanner)]
        users = [i for i, w in enumerate(children) if isinstance(w, UserMessage)]
        assert len(banners) == len(session.ledger)
        # The first cut happens during a later turn: its banner follows the first user prompt.
        assert banners[0] > users[0]
        assert not all(b > users[-1] for b in banners), "banners must not all pile up at the end"


async def test_long_session_mounts_only_the_newest(workspace: Path) -> None:
    session = await saved_session(workspace, 30)
    app = CoTuiApp(load_settings(), workspace, resume_id=session.id)
    async with app.run_test(size=(100, 40)) as pilot:
        await wait_until(pilot, lambda: bool(app.chat.log_view.query(UserMessage)))
        await wait_ready(pilot)  # the hidden count is filled in once the whole session has loaded
        log = app.chat.log_view
        assert len(log.query(UserMessage)) <= RESUME_ENTRIES
        assert log.hidden_count > 0
        assert any("hello number 28" in str(w.render()) for w in log.query(UserMessage))


# --- the preview: the conversation from the store's rows, before the session has loaded ---------


def _entries(app: CoTuiApp) -> list[tuple]:
    """What the chat log shows, widget by widget: its kind and what identifies its content."""
    shown: list[tuple] = []
    for widget in app.chat.log_view.items:
        if isinstance(widget, UserMessage):
            shown.append(("user", widget.text))
        elif isinstance(widget, AssistantMessage):
            shown.append(("assistant", widget.text))
        elif isinstance(widget, ToolCallBlock):
            shown.append(
                (
                    "tool",
                    widget.tool_name,
                    widget.tool_call_id,
                    widget.args,
                    widget.status,
                    widget.result_chars,
                    widget.truncated,
                )
            )
        elif isinstance(widget, TrimBanner):
            shown.append(("banner", widget.event))
        elif isinstance(widget, NoticeLine):
            shown.append(("notice", widget.text))
        else:
            shown.append((type(widget).__name__,))
    return shown


def _resumed(app: CoTuiApp) -> bool:
    return any(isinstance(w, NoticeLine) and w.text.startswith("Resumed “") for w in app.chat.log_view.items)


def _gated(gate: threading.Event) -> Callable[..., ChatSession]:
    """open_session held back until `gate` is set: the test looks at the preview in between."""

    def factory(settings: Any, workspace: Path, **kwargs: Any) -> ChatSession:
        assert gate.wait(30)
        return open_session(settings, workspace, **kwargs)

    return factory


@asynccontextmanager
async def _previewing(workspace: Path, session_id: str) -> AsyncIterator[tuple[CoTuiApp, Any, threading.Event]]:
    """The app resuming `session_id` with its session held back (`_gated`): entered once the preview
    is on screen, as (app, pilot, gate); setting the gate lets the session open."""
    gate = threading.Event()
    app = CoTuiApp(load_settings(), workspace, resume_id=session_id, session_factory=_gated(gate))
    try:
        async with app.run_test(size=(100, 40)) as pilot:
            await wait_until(pilot, lambda: _resumed(app), what="the preview")
            yield app, pilot, gate
    finally:
        gate.set()  # a failed test does not leave the session's thread waiting


async def _full_path_view(workspace: Path, session_id: str, monkeypatch: pytest.MonkeyPatch) -> tuple[list, int]:
    """What the app shows for the session when it cannot preview (the whole session decoded)."""

    def unreadable(*args: Any, **kwargs: Any) -> None:
        raise StoreError("no light read in this test")

    with monkeypatch.context() as patch:
        patch.setattr(SessionStore, "load_tail", unreadable)
        app = CoTuiApp(load_settings(), workspace, resume_id=session_id)
        async with app.run_test(size=(100, 40)) as pilot:
            await wait_ready(pilot)
            await wait_until(pilot, lambda: _resumed(app))
            return _entries(app), app.chat.log_view.hidden_count


async def test_the_preview_shows_what_the_whole_session_shows(workspace: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    session = await saved_session(workspace, 40, context_budget_tokens=900, context_strategy="trim")
    expected, expected_hidden = await _full_path_view(workspace, session.id, monkeypatch)
    entries = len(transcript_items(session.transcript)) + len(session.ledger)
    assert expected_hidden >= entries - RESUME_ENTRIES > 0  # more when the log's widget budget prunes
    assert sum(1 for e in expected if e[0] == "banner") >= 2, "banners among the newest entries"
    tail = session.store.load_tail(session.id, tail_shows(RESUME_ENTRIES))
    assert tail.start > 0 and min(tail.ledger_positions) < tail.start, "cuts before the rows the preview reads"

    async with _previewing(workspace, session.id) as (app, pilot, gate):
        assert app.session is None, "shown before the session (and pydantic-ai) was ready"
        preview, widgets = _entries(app), list(app.chat.log_view.items)
        # The newest entries, banners at the same cuts — as many as fill the screen, not all of them.
        assert 1 < len(preview) < len(expected) and preview == expected[-len(preview) :]
        log = app.chat.log_view
        await pilot.pause()
        assert log.virtual_size.height >= log.content_region.height, "the screen is full"
        # Counted from the outline, exactly: those above the screen are not shown yet.
        assert log.hidden_count == expected_hidden + app.chat.earlier_pending > expected_hidden
        gate.set()
        await wait_ready(pilot)
        await pilot.pause()
        assert all(a is b for a, b in zip(log.items[-len(widgets) :], widgets, strict=True)), "not remounted"
        assert _entries(app) == expected  # the rest mounted above them once the session was ready
        assert log.hidden_count == expected_hidden


async def test_a_short_session_is_previewed_whole(workspace: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    session = await saved_session(workspace, 3)
    expected, expected_hidden = await _full_path_view(workspace, session.id, monkeypatch)
    async with _previewing(workspace, session.id) as (app, pilot, gate):
        assert _entries(app) == expected and app.chat.log_view.hidden_count == expected_hidden == 0
        gate.set()
        await wait_ready(pilot)
        assert _entries(app) == expected


async def test_a_resumed_interrupted_answer_is_marked_as_it_was_live(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    s = load_settings()
    session = ChatSession(s, workspace=workspace, store=open_store(s))
    deltas = 0
    async for event in session.run_turn("stream slowly please"):  # the offline model's slow answer
        deltas += event.type == "text_delta"
        if deltas == 3:
            session.cancel()
    assert session.transcript[-1].state == "interrupted"
    expected, _ = await _full_path_view(workspace, session.id, monkeypatch)
    async with _previewing(workspace, session.id) as (app, pilot, gate):
        assert _entries(app) == expected
        answer = app.chat.log_view.query_one(AssistantMessage)
        assert answer.interrupted and answer.has_class("-interrupted")
        block = app.chat.log_view.query_one("ErrorBlock")
        assert (
            block.kind == "interrupted"
            and app.chat.log_view.items.index(block) == app.chat.log_view.items.index(answer) + 1
        )
        gate.set()
        await wait_ready(pilot)


@pytest.mark.parametrize("how", ["continue", "prefix", "picker"])
async def test_every_way_to_resume_previews_then_opens_the_session(workspace: Path, how: str) -> None:
    older = await saved_session(workspace, 2)
    latest = await saved_session(workspace, 3)
    assert latest.title == older.title  # told apart by id and length
    kwargs = {
        "continue": {"continue_latest": True},
        "prefix": {"resume_id": older.id[:6]},
        "picker": {"resume_id": ""},
    }[how]
    wanted = older if how == "prefix" else latest
    gate = threading.Event()
    app = CoTuiApp(load_settings(), workspace, session_factory=_gated(gate), **kwargs)
    async with app.run_test(size=(100, 40)) as pilot:
        if how == "picker":
            await wait_until(
                pilot, lambda: isinstance(app.screen, SessionsScreen) and app.screen.loaded, what="the picker's list"
            )
            await pilot.press("enter")  # the newest session is highlighted first
        await wait_until(pilot, lambda: _resumed(app), what="the preview")
        turns = sum(1 for e in _entries(app) if e[0] == "user")
        assert turns == (2 if wanted is older else 3)
        notice = [e for e in _entries(app) if e[0] == "notice"][-1][1]
        assert notice == f"Resumed “{wanted.title}” · {turns} turns · {len(wanted.transcript)} messages"
        gate.set()
        await wait_ready(pilot)
        assert app.session.id == wanted.id
        assert app.chat.title_bar.session_title == wanted.title


@pytest.mark.parametrize(
    "body", ['{"kind": "request", "parts": [', '{"kind": "nonsense"}'], ids=["not-json", "not-a-message"]
)
async def test_a_damaged_session_ends_with_one_line(workspace: Path, body: str) -> None:
    session = await saved_session(workspace, 3)
    store = session.store
    conn = sqlite3.connect(store.path)
    conn.execute(
        "UPDATE transcript SET body = ? WHERE session_id = ? AND seq = ?",
        (body, session.id, len(session.transcript) - 1),
    )
    conn.commit()
    conn.close()
    app = CoTuiApp(load_settings(), workspace, resume_id=session.id[:8])
    async with app.run_test(size=(100, 40)) as pilot:
        await wait_until(pilot, lambda: app.failure is not None, what="the failure")
    assert app.return_code == 2
    assert app.failure.startswith(f"session {session.id} (") and "is damaged" in app.failure
    assert f"transcript message {len(session.transcript) - 1}" in app.failure and "\n" not in app.failure


async def test_a_prompt_sent_during_the_preview_waits_then_runs(workspace: Path) -> None:
    session = await saved_session(workspace, 3)
    async with _previewing(workspace, session.id) as (app, pilot, gate):
        await pilot.press(*"hello there", "enter")
        hint = app.chat.query_one("#hint")
        await wait_until(pilot, lambda: hint.has_class("-shown"), what="the loading hint")
        gate.set()
        await wait_ready(pilot)
        await wait_idle(pilot)
        prompts = [w.text for w in app.chat.log_view.query(UserMessage)]
        assert prompts[-1] == "hello there" and prompts.count("hello there") == 1
        assert not hint.has_class("-shown"), "the loading hint went once the prompt was sent"
        assert isinstance(app.chat.log_view.items[-1], AssistantMessage)
        assert len(app.session.transcript) > len(session.transcript)


async def test_a_declined_and_an_interrupted_tool_call_resume_as_they_were_live(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Live, a declined shell call is `✗ … failed` and Esc during a tool call ends with the
    `⏹ interrupted` line; the resumed view (from rows and from the full load alike) shows the same."""
    import asyncio

    s = load_settings(allow_shell=True)
    answers = iter(["deny", "once"])

    async def ask(request: Any) -> str:
        return next(answers)

    session = ChatSession(s, workspace=workspace, store=open_store(s), ask=ask)
    live: list[Any] = []
    async for event in session.run_turn("run echo hi"):  # declined
        live.append(event)
    async for event in session.run_turn("run sleep 20; echo done"):  # approved, then interrupted
        live.append(event)
        if event.type == "tool_call":
            asyncio.get_running_loop().call_soon(session.cancel)
    [declined] = [e for e in live if e.type == "tool_result"]
    assert declined.is_error and live[-1].type == "done" and live[-1].interrupted

    expected, _ = await _full_path_view(workspace, session.id, monkeypatch)
    async with _previewing(workspace, session.id) as (app, pilot, gate):
        assert _entries(app) == expected
        items = app.chat.log_view.items
        blocks = [w for w in items if isinstance(w, ToolCallBlock)]
        assert [b.status for b in blocks] == ["error", "interrupted"]
        after = items[items.index(blocks[1]) + 1]
        assert type(after).__name__ == "ErrorBlock" and after.kind == "interrupted"
        gate.set()
        await wait_ready(pilot)

    from co_tui.session.export import export_markdown

    md = export_markdown(session.store.load(session.id))
    assert "## Assistant\n\n## " not in md and not md.rstrip().endswith("## Assistant")
    assert md.rstrip().endswith("*⏹ interrupted: the partial answer is kept*")


async def test_a_one_turn_session_resumes_as_one_turn(workspace: Path) -> None:
    """The "Resumed" line counts in words a person would write: `1 turn`, not `1 turns`."""
    session = await saved_session(workspace, 1)
    app = CoTuiApp(load_settings(), workspace, resume_id=session.id)
    async with app.run_test(size=(100, 40)) as pilot:
        await wait_until(pilot, lambda: _resumed(app), what="the Resumed line")
        notice = [e for e in _entries(app) if e[0] == "notice"][-1][1]
        assert notice == f"Resumed “{session.title}” · 1 turn · {len(session.transcript)} messages"
        await wait_ready(pilot)  # not quit while the session opens (its ready message would come too late)

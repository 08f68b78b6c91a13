"""Where a job meets the session's life cycle: prompts sent while another session opens, a prompt
typed before a resumed conversation appears, and a display failure in the middle of a turn."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest
from pilot_helpers import wait_idle, wait_ready, wait_until
from quiet_app import QuietApp
from test_resume_view import _entries, _gated, _resumed, saved_session
from tui_fakes import FakeSession, Text

from co_tui.config import Settings, load_settings
from co_tui.session.events import UsageUpdate
from co_tui.store.session_store import SessionStore
from co_tui.tui.app import CoTuiApp
from co_tui.tui.screens.chat import ChatScreen
from co_tui.tui.widgets.assistant_message import AssistantMessage
from co_tui.tui.widgets.error_block import ErrorBlock

OTHER = "b" * 32


def _two_sessions(gate: threading.Event, fail: bool | Exception = False):
    """A factory: the first session opens at once; the second (the one switched to) waits for `gate`
    and then opens, or fails with one line."""
    made: list[FakeSession] = []

    def factory(settings: Settings, workspace: Path, **_: Any) -> FakeSession:
        if made:
            assert gate.wait(30)
            if isinstance(fail, Exception):
                raise fail
            if fail:
                raise RuntimeError("the chosen session could not be read")
        session = FakeSession(
            settings,
            id=OTHER if made else "a" * 32,
            script=lambda prompt: [Text(f"answer to {prompt}", chunks=4)],
            delay=0.01,  # the scenario: answers stream over a few ticks, as a model's do
        )
        made.append(session)
        return session

    factory.made = made  # type: ignore[attr-defined]
    return factory


def _switch(app: CoTuiApp) -> None:
    """What /sessions does once a session is chosen."""
    app.opening.switch(OTHER)


async def test_a_prompt_sent_while_another_session_opens_goes_to_that_session(workspace: Path) -> None:
    gate = threading.Event()
    factory = _two_sessions(gate)
    app = QuietApp(Settings(), workspace, session_factory=factory)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_ready(pilot)
        first = app.session
        _switch(app)
        await pilot.press(*"hello", "enter")
        # The prompt is shown (queued) in the same step that would otherwise have started its turn.
        await wait_until(
            pilot,
            lambda: "a session is opening" in str(app.chat.query_one("#hint").render()),
            what="the prompt handled",
        )
        assert not app.busy and first.prompts == [], "no turn on the session being left"
        await pilot.press(*"/compact", "enter")
        await wait_until(
            pilot,
            lambda: "/compact: a session is opening" in str(app.chat.query_one("#hint").render()),
            what="the command handled",
        )
        assert not app.busy, "commands wait too"
        gate.set()
        await wait_until(pilot, lambda: app.session is not first, what="switched")
        await wait_until(pilot, lambda: app.session.prompts == ["hello"], what="the prompt sent")
        await wait_idle(pilot)
        answers = [w.text for w in app.chat.log_view.query(AssistantMessage)]
        assert answers == ["answer to hello"]
        assert first.prompts == []


async def test_when_the_chosen_session_fails_the_prompt_goes_to_the_current_one(workspace: Path) -> None:
    gate = threading.Event()
    app = QuietApp(Settings(), workspace, session_factory=_two_sessions(gate, fail=True))
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_ready(pilot)
        first = app.session
        _switch(app)
        await pilot.press(*"hello", "enter")
        gate.set()
        await wait_until(pilot, lambda: bool(app.chat.log_view.query(ErrorBlock)), what="the failure")
        await wait_until(pilot, lambda: first.prompts == ["hello"], what="sent to the current session")
        await wait_idle(pilot)
        assert app.session is first and app.controller.opening_id is None
        assert "could not be read" in app.chat.log_view.query_one(ErrorBlock).message


async def test_a_session_open_in_another_process_is_a_notice_not_a_configuration_error(workspace: Path) -> None:
    """Issue 43 item 10: choosing a session another co-tui has open said `configuration error` and
    "wait for it to finish". It is a notice saying what to do; the current conversation stays."""
    from co_tui.session import SessionBusy
    from co_tui.session.session_lock import OPEN_ADVICE
    from co_tui.tui.widgets.notice_line import NoticeLine

    gate = threading.Event()
    gate.set()
    busy = SessionBusy(f"session bbbbbbbb is open in another co-tui process (pid 4242): {OPEN_ADVICE}")
    app = QuietApp(Settings(), workspace, session_factory=_two_sessions(gate, fail=busy))
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_ready(pilot)
        first = app.session
        _switch(app)
        notice = lambda: [str(w.render()) for w in app.chat.log_view.query(NoticeLine) if "pid 4242" in str(w.render())]  # noqa: E731
        await wait_until(pilot, lambda: bool(notice()), what="the notice")
        assert not app.chat.log_view.query(ErrorBlock), "no configuration error"
        [line] = notice()
        assert line.startswith(
            "not opened: session bbbbbbbb is open in another co-tui process (pid 4242): quit co-tui there"
        )
        assert "wait for it to finish" not in line and line.endswith("this conversation stays open here")
        assert app.session is first and app.controller.opening_id is None


async def test_a_prompt_typed_before_the_resumed_conversation_shows_comes_after_it(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    session = await saved_session(workspace, 3)
    tail_gate, open_gate = threading.Event(), threading.Event()
    load_tail = SessionStore.load_tail

    def slow_tail(self, *args: Any, **kwargs: Any):
        assert tail_gate.wait(30)
        return load_tail(self, *args, **kwargs)

    monkeypatch.setattr(SessionStore, "load_tail", slow_tail)
    app = CoTuiApp(load_settings(), workspace, resume_id=session.id, session_factory=_gated(open_gate))
    async with app.run_test(size=(100, 40)) as pilot:
        await wait_until(pilot, lambda: app.chat.prompt.has_focus, what="the prompt")
        await pilot.press(*"typed early", "enter")
        await wait_until(pilot, lambda: app.chat.queue_strip.texts == ("typed early",), what="the prompt queued")
        tail_gate.set()
        await wait_until(pilot, lambda: _resumed(app), what="the preview")
        open_gate.set()
        await wait_ready(pilot)
        saved = len(session.transcript)
        await wait_until(pilot, lambda: len(app.session.transcript) > saved and not app.busy, what="the turn")
        await wait_idle(pilot)
        entries = _entries(app)
        users = [e[1] for e in entries if e[0] == "user"]
        assert users[-1] == "typed early" and users.count("typed early") == 1, users
        resumed = next(i for i, e in enumerate(entries) if e[0] == "notice" and e[1].startswith("Resumed"))
        assert entries.index(("user", "typed early")) > resumed


async def test_a_display_failure_mid_turn_is_shown_and_the_next_answer_stands_alone(
    make_app, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = make_app(script=lambda prompt: [Text(f"answer to {prompt}", chunks=2)])
    show_event = ChatScreen.show_event
    armed = [True]

    async def fails_once(self: ChatScreen, event: Any) -> None:
        if isinstance(event, UsageUpdate) and armed[0]:
            armed[0] = False
            raise RuntimeError("render bug")
        await show_event(self, event)

    monkeypatch.setattr(ChatScreen, "show_event", fails_once)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_ready(pilot)
        for prompt in ("first", "second"):
            await pilot.press(*prompt, "enter")
            await wait_until(pilot, lambda: not app.busy and not app.session.busy, what=prompt)
            await wait_idle(pilot)
        errors = list(app.chat.log_view.query(ErrorBlock))
        assert [e.kind for e in errors] == ["internal"] and "render bug" in errors[0].message
        answers = [w.text for w in app.chat.log_view.query(AssistantMessage)]
        assert answers == ["answer to first", "answer to second"]
        assert app.session.prompts == ["first", "second"]

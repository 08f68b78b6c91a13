"""A key typed while a burst of stream events is ready is handled before the burst ends.

The answer's events reach the chat screen from the turn worker; when the provider is ahead, the
next events are ready at once. The key must not wait for all of them: the stream consumer gives
the event loop a turn per event (docs/architecture.md, "Streaming"). Counted in events, not time.
"""

from __future__ import annotations

from pathlib import Path

from pilot_helpers import send_prompt, wait_idle, wait_ready
from pydantic_ai.models.function import FunctionModel
from quiet_app import QuietApp
from textual import events

from co_tui.config import Settings
from co_tui.session.chat import ChatSession
from co_tui.session.events import TextDelta
from co_tui.tui.screens.chat import ChatScreen

TOKENS = 400
KEY_AT = 20  # the key arrives while this token is taken: the rest of the burst is ready


async def test_a_key_typed_during_a_burst_is_handled_before_the_burst_ends(workspace: Path, monkeypatch) -> None:
    shown: list[int] = [0]  # answer text events the screen has shown
    handled_at: list[int] = []  # `shown` when the prompt handled a key typed during the answer
    apps: list[QuietApp] = []

    async def burst(messages, info):  # FunctionModel's stream_function: no await between tokens
        for i in range(TOKENS):
            if i == KEY_AT:
                apps[0].post_message(events.Key("z", "z"))  # as the terminal driver delivers a key
            yield f" t{i}"

    def factory(settings, workspace, **kw):
        model = FunctionModel(stream_function=burst, model_name="burst")
        return ChatSession(settings, workspace=workspace, model=model, ask=kw.get("ask"))

    show_event = ChatScreen.show_event

    async def counting(self, event):
        if isinstance(event, TextDelta):
            shown[0] += 1
        await show_event(self, event)

    monkeypatch.setattr(ChatScreen, "show_event", counting)
    app = QuietApp(Settings(), workspace, session_factory=factory)
    note_input = app.key_clock.note_input

    def noting() -> None:
        if shown[0]:
            handled_at.append(shown[0])
        note_input()

    monkeypatch.setattr(app.key_clock, "note_input", noting)
    apps.append(app)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_ready(pilot)
        await send_prompt(pilot, "answer at length")
        await wait_idle(pilot)
        assert shown[0] >= TOKENS - 1, "the whole answer was shown"
        assert handled_at, "the key reached the prompt during the answer"
        assert handled_at[0] < TOKENS // 2, f"the key waited for {handled_at[0]} of {TOKENS} events"
        assert "z" in app.chat.prompt.text

"""Text pasted while co-tui starts stays one paste (docs/keys-and-commands.md, "Large pastes").

Before Textual turns the terminal's bracketed paste on, a paste reaches the app as typed keys: its
line breaks as Enter (CR, the terminal in raw mode) or ctrl+j (LF: the terminal was still in line
mode, which turns CR into LF). Each line became a queued prompt, and keys read before the chat
screen was ready were lost. `EarlyKeysApp` posts such keys before the chat screen is composed, as
the driver's input thread does.
"""

from __future__ import annotations

import pytest
from pilot_helpers import wait_idle, wait_ready, wait_until
from quiet_app import QuietApp
from textual import events
from tui_fakes import Text, fake_factory

from co_tui.config import Settings
from co_tui.tui.widgets.user_message import UserMessage

PASTED = "first line\nsecond line\nthird line"


def typed(text: str, line_break: str) -> list[events.Event]:
    """`text` as the keys a terminal sends for it outside bracketed paste."""
    keys: list[events.Event] = []
    for char in text:
        if char == "\n":
            keys.append(events.Key("enter", "\r") if line_break == "enter" else events.Key("ctrl+j", "\n"))
        elif char == " ":
            keys.append(events.Key("space", " "))
        else:
            keys.append(events.Key(char, char))
    return keys


class EarlyKeysApp(QuietApp):
    """The app with `early` events posted to it before its chat screen exists."""

    def __init__(self, *args, early: list[events.Event], **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.early = early

    def on_load(self) -> None:
        super().on_load()
        for event in self.early:
            self.post_message(event)


@pytest.fixture
def early_app(workspace):
    def make(early: list[events.Event]) -> EarlyKeysApp:
        factory = fake_factory(script=lambda prompt: [Text(f"got {prompt.count(chr(10)) + 1} lines")])
        return EarlyKeysApp(Settings(), workspace, session_factory=factory, early=early)

    return make


@pytest.mark.parametrize("line_break", ["enter", "ctrl+j"])
async def test_a_paste_read_as_keys_at_start_up_is_one_prompt_text(early_app, line_break: str) -> None:
    app = early_app(typed(PASTED, line_break))
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_ready(pilot)
        prompt = app.chat.prompt
        await wait_until(pilot, lambda: prompt.text == PASTED, what="the paste in the prompt")
        assert app.controller.queued == [] and app.session.prompts == [], "no line was sent on its own"
        assert prompt.has_focus
        await pilot.press("enter")  # sent whole, as one prompt
        await wait_idle(pilot)
        assert app.session.prompts == [PASTED]
        assert len(app.chat.query(UserMessage)) == 1 and prompt.text == ""


async def test_a_bracketed_paste_before_the_prompt_has_focus_is_kept(early_app) -> None:
    app = early_app([*typed("see: ", "enter"), events.Paste("a\r\nb")])
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_ready(pilot)
        await wait_until(pilot, lambda: app.chat.prompt.text == "see: a\nb", what="the paste in the prompt")
        assert app.controller.queued == []


async def test_keys_after_start_up_are_typed_as_usual(early_app) -> None:
    app = early_app([])
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_ready(pilot)
        await pilot.press(*"hi", "enter")
        await wait_idle(pilot)
        assert app.session.prompts == ["hi"] and app.chat.prompt.text == ""


def test_held_text_waits_for_the_rest_of_the_paste() -> None:
    """A paste read in pieces (the driver's thread still reading it) is handed over whole: a look
    that finds keys held since the last one waits for the next."""
    from co_tui.tui.early_input import EarlyInput

    early = EarlyInput()
    assert all(early.hold(key) for key in typed("one\n", "enter"))
    assert early.release() is None and early.holding  # keys came since the start: look again
    assert all(early.hold(key) for key in typed("two", "ctrl+j"))
    assert early.release() is None
    assert early.release() == "one\ntwo" and not early.holding
    assert not early.hold(events.Key("x", "x")), "after the release keys are typed as usual"
    assert not EarlyInput().hold(events.Key("ctrl+q", None)), "keys that type nothing are never held"


def test_backspace_in_the_same_burst_takes_back_the_held_text() -> None:
    """`xyz`, Backspace ×2, `abc` typed as co-tui starts reads `xabc`: the Backspaces went past the
    held text to the empty prompt, and `xyzabc` came out (a tmux walk at load ~6 caught it)."""
    from co_tui.tui.early_input import EarlyInput

    backspace = events.Key("backspace", None)
    early = EarlyInput()
    assert all(early.hold(key) for key in [*typed("xyz", "enter"), backspace, backspace, *typed("abc", "enter")])
    assert early.release() is None
    assert early.release() == "xabc"
    pasted = EarlyInput()
    assert pasted.hold(events.Paste("hello")) and pasted.hold(backspace)
    assert pasted.release() is None and pasted.release() == "hell", "one character of a held paste goes"
    assert not EarlyInput().hold(backspace), "nothing held: the Backspace goes to the prompt"

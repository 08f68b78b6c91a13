"""An oversized newest turn as a person sees it: a warning line where it happens, a prompt over the
model's window is refused in one line and comes back into the prompt, and the meter says why its
figure is over 100%."""

from __future__ import annotations

from dataclasses import replace

import pytest
from pilot_helpers import wait_idle, wait_ready, wait_until

from co_tui.session.events import UsageUpdate
from co_tui.tui.widgets.context_meter import ahead_text, fit_layout, meter_notes

SIZE = (100, 30)


@pytest.fixture
def todo_app(real_app, workspace, monkeypatch):
    monkeypatch.setenv("CO_TUI_CONTEXT_BUDGET_TOKENS", "1500")
    for i in range(40):
        (workspace / f"f{i}.py").write_text(f"# TODO: fix thing number {i}\n" * 5)
    from co_tui.config import load_settings

    real_app.opening.settings = load_settings()
    return real_app


async def test_an_oversized_turn_is_said_in_the_log(todo_app) -> None:
    async with todo_app.run_test(size=SIZE) as pilot:
        await wait_ready(pilot)
        await pilot.press(*"search TODO", "enter")
        await wait_idle(pilot)
        # (At 1,500 tokens the instructions and tool schemas take more than half: that is said too.)
        warnings = [w for w in pilot.app.chat.query("ErrorBlock.-oversized") if "sent whole" in w.message]
        assert len(warnings) == 1
        assert "sent whole" in warnings[0].message and "over the budget of 1.5k" in warnings[0].message


async def test_a_prompt_over_the_window_is_refused_and_comes_back(real_app) -> None:
    huge = "word " * 200_000
    async with real_app.run_test(size=SIZE) as pilot:
        await wait_ready(pilot)
        prompt = pilot.app.chat.prompt
        prompt.insert(prompt.hold_paste(huge))
        await pilot.press("enter")
        await wait_until(pilot, lambda: pilot.app.chat.query("ErrorBlock.-overflow"), what="the refusal")
        await wait_idle(pilot)
        refusal = pilot.app.chat.query_one("ErrorBlock.-overflow")
        assert refusal.message.startswith("not sent: this prompt alone is")
        assert prompt.expand_pastes(prompt.text).strip() == huge.strip()  # nothing typed is lost
        assert not pilot.app.session.transcript
        # The prompt in the log said `sent in full` right above `not sent: …` (issue 32, item 5).
        shown = str(pilot.app.chat.query_one("UserMessage").render())
        assert shown.endswith("in all, not sent)") and "sent in full" not in shown
        assert pilot.app.chat.query_one("UserMessage").has_class("-unsent")


def test_the_meter_explains_a_figure_over_100_percent() -> None:
    reading = UsageUpdate(
        input_tokens=5000, output_tokens=0, context_tokens=5000, budget_tokens=1500, messages=4, max_messages=40,
        trim_pending=True, oversized_turn=True,
    )  # fmt: skip
    assert ahead_text(reading) == "over: the newest turn alone, sent whole"
    assert ahead_text(reading, short=True) == "newest turn sent whole"
    assert ahead_text(replace(reading, oversized_turn=False)) == "trims on next send"
    assert ("newest turn sent whole", "ahead") in meter_notes(reading, fit_layout(reading, 80))


def test_a_refused_paste_snapshot(snap_compare, real_app) -> None:
    """The refused prompt in the log says `not sent`, next to the refusal line."""
    huge = "".join(f"line {i:06d} of a large log file pasted into the prompt\n" for i in range(40_000))

    async def run(pilot) -> None:
        await wait_ready(pilot)
        prompt = pilot.app.chat.prompt
        prompt.insert(prompt.hold_paste(huge))
        await pilot.press("enter")
        await wait_until(pilot, lambda: pilot.app.chat.query("ErrorBlock.-overflow"), what="the refusal")
        await wait_idle(pilot)

    assert snap_compare(real_app, terminal_size=SIZE, run_before=run)

"""`r` on a summary banner with lost items brings one back: on the real session
(offline model, SQLite store), a picker of the lost items, Enter recovers, a banner says what came back."""

from __future__ import annotations

import pytest
from pilot_helpers import paste, wait_idle, wait_ready, wait_until
from textual.widgets import OptionList

from co_tui.governance.markers import recovered_items

SIZE = (100, 32)


@pytest.fixture
def app(real_app):
    return real_app


async def _send(pilot, text: str) -> None:
    await paste(pilot, text)
    await pilot.press("enter")
    await wait_idle(pilot)


def _banners(pilot, kind: str) -> list:
    return list(pilot.app.chat.query(f"TrimBanner.-{kind}"))


async def test_r_on_a_summary_banner_recovers_a_lost_item_into_the_context(app):
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(pilot)
        await _send(pilot, "please look at notes_v7.md")
        await _send(pilot, "hello there")
        await pilot.press(*"/compact", "enter")
        await wait_until(pilot, lambda: type(app.screen).__name__ == "ConfirmCompact", what="compact preview")
        await pilot.press("enter")
        await wait_until(pilot, lambda: _banners(pilot, "compact"), what="the compact banner")
        await wait_idle(pilot)
        banner = _banners(pilot, "compact")[0]
        lost = list(banner.event.summary_lost or [])
        assert len(lost) > 1, "the offline compaction loses several of its own hints"
        # With the prompt focused, r is typing.
        await pilot.press("r")
        assert app.chat.prompt.text == "r"
        await pilot.press("backspace", "shift+tab")
        await wait_until(
            pilot, lambda: app.focused is not None and banner in app.focused.ancestors_with_self, what="banner focus"
        )
        before = list(app.session.context)
        await pilot.press("r")
        await wait_until(pilot, lambda: type(app.screen).__name__ == "RecoverLostScreen", what="the picker")
        options = app.screen.query_one(OptionList)
        assert options.option_count == len(lost)
        await pilot.press("down", "enter")
        await wait_until(pilot, lambda: _banners(pilot, "restore"), what="the recovery banner")
        event = _banners(pilot, "restore")[0].event
        assert event.salvaged_item == lost[1] and event.restored_messages == 1
        assert list(app.session.context[: len(before)]) == before, "appended at the end"
        assert recovered_items(app.session.context[-1]) == [lost[1]]
        assert lost[1] in str(_banners(pilot, "restore")[0].title)
        assert app.chat.prompt.text == "", "the key never reached the prompt"
        # Again on the same item: refused in one line, nothing changes.
        await pilot.press("shift+tab")
        focused_banner = lambda: next(  # noqa: E731
            (n for n in (app.focused.ancestors_with_self if app.focused else []) if type(n).__name__ == "TrimBanner"),
            None,
        )
        while focused_banner() is not banner:
            await pilot.press("shift+tab")
        await pilot.press("r")
        await wait_until(pilot, lambda: type(app.screen).__name__ == "RecoverLostScreen", what="the picker again")
        await pilot.press("down", "enter")
        await wait_until(
            pilot, lambda: "already in the context" in str(app.chat.query_one("#hint").render()), what="refusal"
        )
        assert len(_banners(pilot, "restore")) == 1

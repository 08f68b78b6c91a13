"""What the chat screen holds back until its session is ready (docs/architecture.md, "Start-up order
of the TUI", step 2): the footer's keys and the prompt's slash and path popups. While the session's
worker imports pydantic-ai, every millisecond of the UI thread delays ready (issue 44): their
first rebuild and mount were ~30 ms of it. A `/` or an `@` typed before then still opens its
popup, on screen, and the keys still work."""

from __future__ import annotations

import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from pilot_helpers import wait_ready, wait_until
from quiet_app import QuietApp
from textual.pilot import Pilot
from textual.widgets._footer import FooterKey
from tui_fakes import fake_factory

from co_tui.config import Settings
from co_tui.tui.widgets.key_footer import KeyFooter
from co_tui.tui.widgets.path_popup import PathPopup
from co_tui.tui.widgets.slash_popup import SlashPopup


@pytest.fixture
def workspace_files() -> dict[str, str | bytes]:
    return {"README.md": "# Demo\n"}


@asynccontextmanager
async def loading(workspace: Path) -> AsyncIterator[tuple[QuietApp, Pilot[Any], threading.Event]]:
    """The app on screen with its session held in the opening worker until the gate is set."""
    gate = threading.Event()
    make = fake_factory()

    def held(*args: Any, **kwargs: Any) -> Any:
        gate.wait(60)
        return make(*args, **kwargs)

    app = QuietApp(Settings(), workspace, session_factory=held)
    try:
        async with app.run_test(size=(100, 30)) as pilot:
            # The footer's bindings have been signalled: an unheld footer would rebuild its keys now.
            await wait_until(pilot, lambda: app.chat.query_one(KeyFooter)._bindings_ready, what="bindings signalled")
            await pilot.pause()
            yield app, pilot, gate
    finally:
        gate.set()  # a failed test does not leave the worker waiting


def mounted(app: QuietApp, kind: type) -> list[Any]:
    return list(app.chat.query(kind))


async def test_the_footer_keys_and_the_popups_come_with_the_session(workspace: Path) -> None:
    async with loading(workspace) as (app, pilot, gate):
        await pilot.pause()
        assert app.session is None
        assert mounted(app, FooterKey) == [], "no keys composed while the session loads"
        assert mounted(app, SlashPopup) == [] and mounted(app, PathPopup) == [], "no popups mounted yet"
        await pilot.press("f1")  # the keys work all the same: help opens
        await wait_until(pilot, lambda: type(app.screen).__name__ == "HelpScreen", what="help")
        gate.set()  # ready while the help covers the chat
        await wait_until(pilot, lambda: app.session is not None, what="session ready")
        await pilot.press("escape")
        await wait_ready(pilot)
        await wait_until(pilot, lambda: mounted(app, FooterKey), what="the footer's keys")
        assert {"f1", "ctrl+q"} <= {key.key for key in mounted(app, FooterKey)}
        assert len(mounted(app, SlashPopup)) == 1 and len(mounted(app, PathPopup)) == 1
        assert not app.chat.prompt.popup.is_open


@pytest.mark.parametrize(("typed", "kind"), [("/", SlashPopup), ("@", PathPopup)])
async def test_a_slash_or_at_typed_while_the_session_loads_opens_its_popup(
    workspace: Path, typed: str, kind: type
) -> None:
    async with loading(workspace) as (app, pilot, gate):
        await pilot.press(typed)
        await wait_until(pilot, lambda: mounted(app, kind) and mounted(app, kind)[0].is_open, what="the popup")
        await pilot.pause()
        popup = mounted(app, kind)[0]
        assert popup.region.height > 0, "on screen"
        assert app.session is None
        expected = ["README.md"] if kind is PathPopup else None
        if expected is not None:
            assert popup.matches == expected
        else:
            assert popup.option_count >= 7  # every command of the table
        gate.set()
        await wait_ready(pilot)
        await pilot.pause()
        assert len(mounted(app, kind)) == 1 and mounted(app, kind)[0] is popup and popup.is_open  # mounted once
        assert len(mounted(app, SlashPopup)) == 1 and len(mounted(app, PathPopup)) == 1

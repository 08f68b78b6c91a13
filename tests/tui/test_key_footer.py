"""KeyFooter: binding refreshes that change nothing leave the footer's keys as they are (Textual's
Footer rebuilds them every time: three rebuilds on the UI thread while pydantic-ai loads at
start-up); a change of what it shows (a key enabled or disabled) still rebuilds it."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import Static
from textual.widgets._footer import FooterKey

from co_tui.tui.widgets.key_footer import KeyFooter


class KeysScreen(Screen[None]):
    BINDINGS = [Binding("f5", "save", "Save"), Binding("f6", "load", "Load")]

    def __init__(self) -> None:
        super().__init__()
        self.can_load = True

    def compose(self) -> ComposeResult:
        yield Static("body")
        yield KeyFooter()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # None: shown, disabled (False would hide the key).
        return None if action == "load" and not self.can_load else True

    def action_save(self) -> None: ...

    def action_load(self) -> None: ...


class KeysApp(App[None]):
    def on_mount(self) -> None:
        self.push_screen(KeysScreen())


def _keys(screen: Screen[None]) -> dict[str, FooterKey]:
    return {key.key: key for key in screen.query(FooterKey)}


async def test_refreshes_that_change_nothing_keep_the_keys() -> None:
    app = KeysApp()
    async with app.run_test() as pilot:
        await pilot.pause()
        screen = app.screen
        shown = _keys(screen)
        assert {"f5", "f6"} <= set(shown)
        for _ in range(3):
            screen.refresh_bindings()
        await pilot.pause()
        await pilot.pause()
        after = _keys(screen)
        assert set(after) == set(shown)
        assert all(after[key] is shown[key] for key in shown)  # the same widgets: no rebuild


async def test_a_key_disabled_rebuilds_the_footer() -> None:
    app = KeysApp()
    async with app.run_test() as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, KeysScreen)
        assert not _keys(screen)["f6"].has_class("-disabled")
        screen.can_load = False
        screen.refresh_bindings()
        screen.refresh_bindings()  # two refreshes, one rebuild
        await pilot.pause()
        await pilot.pause()
        assert _keys(screen)["f6"].has_class("-disabled")

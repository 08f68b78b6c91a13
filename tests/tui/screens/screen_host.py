"""Fixtures and the host app for the inspection screens' tests.

Not a conftest.py: a second module named `conftest` on the path shadows the others when they are
imported by name. Test modules here import what they use (fixtures included) from this module.

Snapshots must not depend on the machine: fixed time zone, temp config and data dirs (root
conftest), no animations, no cursor blink. Every screen is pushed onto `ScreenHost`, a bare app, so what the
snapshot shows is the screen with its own real stylesheet.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from pilot_helpers import inspector_loaded, wait_until  # tests/ is on sys.path: its conftest.py is loaded first
from textual.app import App, ComposeResult
from textual.screen import Screen
from textual.widgets import Static

__all__ = ["inspector_loaded"]  # re-exported for the screens' tests

TERMINAL = (100, 32)


@pytest.fixture(autouse=True)
def screen_env(isolated_env: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """On top of the root isolation (temp config/data dirs): UTC for every displayed time."""
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    yield isolated_env
    monkeypatch.undo()
    time.tzset()


class ScreenHost(App[None]):
    """A bare app that pushes one screen at start; records slash lines and dismiss results."""

    def __init__(self, make_screen: Callable[[], Screen] | None = None) -> None:
        super().__init__()
        self.animation_level = "none"
        self._make_screen = make_screen
        self.slash_lines: list[str] = []
        self.results: list[object] = []

    def compose(self) -> ComposeResult:
        yield Static("host app underneath", id="host-body")

    def on_mount(self) -> None:
        if self._make_screen is not None:
            self.push_screen(self._make_screen(), callback=self.results.append)

    def run_slash(self, line: str) -> bool:
        """Stand-in for the chat app's slash dispatch: remember what the palette asked for."""
        self.slash_lines.append(line)
        return True


@pytest.fixture
def make_host() -> Callable[..., ScreenHost]:
    """`make_host(lambda: SomeScreen(...))` → a host app that opens that screen on start."""
    return ScreenHost


@pytest.fixture
def until() -> Callable:
    """The `wait_until(pilot, predicate)` helper."""
    return wait_until

"""TUI test fixtures: deterministic Textual (no animations, no blink), isolated config and data."""

from __future__ import annotations

import os

os.environ["TEXTUAL_ANIMATIONS"] = "none"  # before Textual reads its constants

from collections.abc import Callable  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

import pytest  # noqa: E402

from co_tui.config import Settings  # noqa: E402
from co_tui.tui.app import CoTuiApp  # noqa: E402
from tests.tui.fakes import fake_factory  # noqa: E402


@pytest.fixture(autouse=True)
def isolated_dirs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Config and data live in tmp; no user settings leak into a test."""
    for key in list(os.environ):
        if key.startswith("CO_TUI_"):
            monkeypatch.delenv(key)
    monkeypatch.setenv("CO_TUI_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("CO_TUI_CONFIG_FILE", str(tmp_path / "config.toml"))
    monkeypatch.setenv("TEXTUAL_ANIMATIONS", "none")
    return tmp_path


class QuietApp(CoTuiApp):
    """CoTuiApp for tests: the prompt's cursor does not blink (stable snapshots)."""

    def on_ready(self) -> None:
        self.chat.prompt.cursor_blink = False


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    path = tmp_path / "workspace"
    path.mkdir()
    (path / "README.md").write_text("# Demo\n\nA small demo workspace.\n")
    return path


@pytest.fixture
def make_app(workspace: Path) -> Callable[..., QuietApp]:
    """`make_app(**FakeSession fields)` → an app whose session is a FakeSession."""

    def make(settings: Settings | None = None, **session_kwargs: Any) -> QuietApp:
        return QuietApp(settings or Settings(), workspace, session_factory=fake_factory(**session_kwargs))

    return make

"""TUI test fixtures: a workspace, and the app wired to a scripted FakeSession.

Isolation of config/data dirs and TEXTUAL_ANIMATIONS=none come from tests/conftest.py.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from quiet_app import QuietApp
from tui_fakes import fake_factory

from co_tui.config import Settings


@pytest.fixture
def workspace_files() -> dict[str, str | bytes]:
    return {"README.md": "# Demo\n\nA small demo workspace.\n"}


@pytest.fixture
def make_app(workspace: Path) -> Callable[..., QuietApp]:
    """`make_app(**FakeSession fields)` → an app whose session is a FakeSession."""

    def make(settings: Settings | None = None, **session_kwargs: Any) -> QuietApp:
        return QuietApp(settings or Settings(), workspace, session_factory=fake_factory(**session_kwargs))

    return make


@pytest.fixture
def real_app(workspace: Path) -> QuietApp:
    """The app with the real session factory (`open_session`: offline model, SQLite store in the
    temp CO_TUI_DATA_DIR), settings as a user's would load them."""
    from co_tui.config import load_settings

    return QuietApp(load_settings(), workspace)

"""A data dir other users can read is used as it is, and the user is told so (docs/configuration.md)
— in the TUI too, whose start-up worker has no terminal to print on: the line is in the chat."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from pilot_helpers import wait_ready, wait_until
from quiet_app import QuietApp

from co_tui.config import load_settings
from co_tui.session.opening import open_store_at
from co_tui.tui.widgets.notice_line import NoticeLine


def _shared_data_dir() -> Path:
    """The tests' data dir (tests/conftest.py), created readable by other users (mode 755)."""
    data_dir = Path(os.environ["CO_TUI_DATA_DIR"])
    data_dir.mkdir(parents=True)
    os.chmod(data_dir, 0o755)
    return data_dir


def test_open_store_at_puts_the_warning_on_the_store_and_prints_nothing(capsys: pytest.CaptureFixture[str]) -> None:
    data_dir = _shared_data_dir()
    store = open_store_at(data_dir)
    assert store.warning == (
        f"warning: data dir {data_dir} is readable by other users (mode 755); your saved conversations "
        f"are in it (chmod 700 {data_dir} to make it private)"
    )
    assert capsys.readouterr().err == "", "stderr is no place for it: the TUI would lose the line"
    os.chmod(data_dir, 0o700)
    assert open_store_at(data_dir).warning is None


async def test_the_tui_shows_the_warning_once_ready(workspace: Path) -> None:
    data_dir = _shared_data_dir()
    app = QuietApp(load_settings(), workspace)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_ready(pilot)
        notices = lambda: [str(w.content) for w in app.chat.query(NoticeLine)]  # noqa: E731
        await wait_until(pilot, lambda: any("readable by other users" in n for n in notices()), what="the warning")
        [line] = [n for n in notices() if "readable by other users" in n]
        assert f"data dir {data_dir} is readable by other users (mode 755)" in line
        assert f"chmod 700 {data_dir}" in line

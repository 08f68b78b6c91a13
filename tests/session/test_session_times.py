"""`--list-sessions` and the `/sessions` picker give a session's time the same way: local time."""

from __future__ import annotations

import time
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from co_tui.cli_sessions import list_sessions
from co_tui.config import load_settings
from co_tui.session.opening import open_session
from co_tui.session.times import format_updated


@pytest.fixture
def far_east(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """A local time zone nine hours ahead of UTC, so local and UTC times never read the same."""
    monkeypatch.setenv("TZ", "Etc/GMT-9")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


def test_format_updated_is_local_time(far_east: None) -> None:
    assert format_updated(datetime(2026, 11, 24, 12, 5, tzinfo=UTC)) == "2026-11-24 21:05"


async def test_list_sessions_prints_the_pickers_local_time(
    far_east: None, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from co_tui.tui.screens import sessions as picker

    settings = load_settings()
    session = open_session(settings, tmp_path)
    async for _ in session.run_turn("hello"):
        pass
    assert session.catalog is not None
    [meta] = session.catalog.list_sessions()
    assert list_sessions(settings, tmp_path) == 0
    [_, row] = capsys.readouterr().out.splitlines()
    assert row.split()[1:3] == format_updated(meta.updated).split()
    assert format_updated(meta.updated) != meta.updated.strftime("%Y-%m-%d %H:%M"), "local, not UTC"
    assert picker.format_updated is format_updated, "the picker's status line says the same"

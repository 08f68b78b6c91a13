"""Fixtures for the session store tests: a private data dir, an open store (builders: tests/support/builders.py)."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from co_tui.store.session_store import SessionStore


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    return tmp_path / "data"


@pytest.fixture
def store(data_dir: Path) -> Iterator[SessionStore]:
    with SessionStore.open(data_dir) as opened:
        yield opened


@pytest.fixture
def db(data_dir: Path, store: SessionStore) -> Iterator[sqlite3.Connection]:
    """A second, independent connection to the same file (what another process would see)."""
    conn = sqlite3.connect(data_dir / "sessions.db")
    yield conn
    conn.close()

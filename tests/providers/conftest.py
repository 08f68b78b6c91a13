"""Fixtures: a loopback provider server per test, and real pydantic-ai models pointed at it."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from .loopback import LoopbackServer, closed_port_url


@pytest.fixture
def loopback() -> Iterator[LoopbackServer]:
    """A started loopback server, stopped (with any hanging requests released) after the test."""
    server = LoopbackServer().start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def refused_url() -> str:
    """A 127.0.0.1 URL where nothing listens."""
    return closed_port_url()


@pytest.fixture(autouse=True)
def _no_real_provider_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tests never reach a real provider, whatever the developer's shell exports."""
    for name in ("OPENAI_BASE_URL", "OPENAI_API_KEY", "ANTHROPIC_BASE_URL", "ANTHROPIC_API_KEY"):
        monkeypatch.delenv(name, raising=False)

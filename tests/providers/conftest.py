"""Fixtures: a loopback provider server per test, and real pydantic-ai models pointed at it."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from .harness import point_providers_at
from .loopback import LoopbackServer, refused_port_url


@pytest.fixture(autouse=True)
def allow_loopback_requests() -> Iterator[None]:
    """Real provider models here talk to the loopback server: their requests are allowed."""
    from pydantic_ai.models import override_allow_model_requests

    with override_allow_model_requests(True):
        yield


@pytest.fixture
def loopback() -> Iterator[LoopbackServer]:
    """A started loopback server, stopped (with any hanging requests released) after the test."""
    server = LoopbackServer().start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def env(loopback: LoopbackServer, monkeypatch: pytest.MonkeyPatch) -> LoopbackServer:
    """The loopback server, with the provider base URLs and keys in the environment pointing at it
    (as a user sets them for a local server)."""
    point_providers_at(monkeypatch, loopback)
    return loopback


@pytest.fixture
def refused_url() -> Iterator[str]:
    """A 127.0.0.1 URL where nothing listens, for the whole test."""
    with refused_port_url() as url:
        yield url

"""Helpers for driving `ChatSession` and the `co-tui` command against the loopback server."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from cli_process import call_co_tui as co_tui  # the provider tests call the command in-process through it
from support.turns import of_type

from .loopback import LoopbackServer


def point_providers_at(monkeypatch: pytest.MonkeyPatch, server: LoopbackServer) -> None:
    """Exactly what a user does for a local server: base URLs and keys in the environment."""
    monkeypatch.setenv("OPENAI_BASE_URL", server.openai_base_url)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", server.anthropic_base_url)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")


def settings(**overrides: Any) -> Any:
    """Settings for a fault test: fast timeouts, SDK retries as configured (default 2)."""
    from co_tui.config import Settings

    values: dict[str, Any] = {"model": "openai-chat:gpt-4o", "request_timeout_s": 5.0, "max_retries": 2}
    values.update(overrides)
    return Settings(**values)


def session(workspace: Path, *, store: Any = None, **overrides: Any) -> Any:
    from co_tui.session.chat import ChatSession

    return ChatSession(settings(**overrides), workspace=workspace, store=store)


def text_of(events: list[Any]) -> str:
    return "".join(e.text for e in of_type(events, "text_delta"))


def assert_history_valid(messages: list[Any]) -> None:
    """Provider-valid: starts with a request, alternates, and every tool call has exactly one return."""
    from pydantic_ai.messages import ModelRequest, ModelResponse, ToolCallPart, ToolReturnPart

    assert messages, "history is empty"
    assert isinstance(messages[0], ModelRequest)
    calls: dict[str, int] = {}
    returns: dict[str, int] = {}
    for message in messages:
        for part in message.parts:
            if isinstance(part, ToolCallPart):
                calls[part.tool_call_id] = calls.get(part.tool_call_id, 0) + 1
            elif isinstance(part, ToolReturnPart):
                returns[part.tool_call_id] = returns.get(part.tool_call_id, 0) + 1
    assert calls == returns, f"unpaired tool calls: calls={calls} returns={returns}"
    kinds = [type(m) for m in messages]
    for a, b in zip(kinds, kinds[1:], strict=False):
        assert not (a is ModelResponse and b is ModelResponse), "two responses in a row"


def assert_openai_body_valid(body: dict[str, Any]) -> None:
    """What the server received is a valid chat-completions conversation (tool messages answer calls)."""
    messages = body["messages"]
    pending: set[str] = set()
    for message in messages:
        if pending and message["role"] != "tool":
            raise AssertionError(f"tool calls {pending} not answered before a {message['role']} message")
        if message["role"] == "assistant":
            pending = {c["id"] for c in message.get("tool_calls") or []}
        elif message["role"] == "tool":
            assert message["tool_call_id"] in pending, f"orphan tool result {message['tool_call_id']}"
            pending.discard(message["tool_call_id"])
    assert not pending
    assert messages[-1]["role"] in ("user", "tool")


def provider_env(server: LoopbackServer) -> dict[str, str]:
    return {
        "OPENAI_BASE_URL": server.openai_base_url,
        "OPENAI_API_KEY": "sk-test",
        "ANTHROPIC_BASE_URL": server.anthropic_base_url,
        "ANTHROPIC_API_KEY": "sk-ant-test",
        "CO_TUI_REQUEST_TIMEOUT_S": "5",
    }

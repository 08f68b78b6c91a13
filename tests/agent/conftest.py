"""Fixtures for the agent layer: a small real workspace on disk and a runner for offline-agent turns."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from support.workspaces import DEMO_PROJECT

from co_tui.config import load_settings


@pytest.fixture
def workspace_files() -> dict[str, str | bytes]:
    """The agent's tools work on a small project (support/workspaces.py)."""
    return dict(DEMO_PROJECT)


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """A directory next to the workspace holding a secret the tools must never reveal."""
    secret_dir = tmp_path / "outside"
    secret_dir.mkdir()
    (secret_dir / "secret.txt").write_text("TOP SECRET\n", encoding="utf-8")
    return secret_dir


@dataclass
class TurnResult:
    """Everything one agent turn produced."""

    events: list[Any] = field(default_factory=list)
    messages: list[Any] = field(default_factory=list)
    output: str = ""
    usage: Any = None

    def of(self, name: str) -> list[Any]:
        return [e for e in self.events if type(e).__name__ == name]

    @property
    def text_deltas(self) -> list[str]:
        from pydantic_ai.messages import PartDeltaEvent, PartStartEvent, TextPart, TextPartDelta

        chunks = []
        for e in self.events:
            if isinstance(e, PartStartEvent) and isinstance(e.part, TextPart) and e.part.content:
                chunks.append(e.part.content)
            elif isinstance(e, PartDeltaEvent) and isinstance(e.delta, TextPartDelta):
                chunks.append(e.delta.content_delta)
        return chunks

    @property
    def tool_results(self) -> list[Any]:
        return [e.part for e in self.of("FunctionToolResultEvent")]


async def _run_turn(agent: Any, prompt: str, history: list[Any] | None = None) -> TurnResult:
    """Run one streamed turn of `agent` and collect its events, messages and usage."""
    from pydantic_ai import AgentRunResultEvent

    result = TurnResult()
    async with agent.run_stream_events(prompt, message_history=history or []) as run:
        async for event in run:
            result.events.append(event)
            if isinstance(event, AgentRunResultEvent):
                result.messages = event.result.all_messages()
                result.output = event.result.output
                result.usage = event.result.usage
    return result


@pytest.fixture
def run_turn() -> Callable[..., Awaitable[TurnResult]]:
    """`await run_turn(agent, prompt, history=None)`: one streamed turn, collected."""
    return _run_turn


@pytest.fixture
def offline_agent(workspace: Path) -> Callable[..., Any]:
    """Build an offline agent on the workspace: `offline_agent(allow_shell=False, approver=None)`."""
    from co_tui.agent.factory import build_agent
    from co_tui.agent.models import resolve_model

    def build(*, allow_shell: bool = False, approver: Callable[[str], Awaitable[bool]] | None = None) -> Any:
        settings = load_settings(allow_shell=allow_shell)
        return build_agent(settings, workspace=workspace, model=resolve_model("offline", settings), approver=approver)

    return build

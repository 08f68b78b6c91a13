"""`ChildRun`: one subagent, built for one `delegate` call — its own `History`, governed agent,
meter and `TurnRunner`, kept in memory (the parent's transcript records it when it ends:
child_record.py).

Its context budget is its definition's or the `subagent_budget_tokens` setting, never over the
parent's; it is sent its definition's instructions, the project instructions and the task only.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import TYPE_CHECKING

from co_tui.session.child_event import CHILD_AGENT
from co_tui.session.history import History
from co_tui.session.metering import Metering
from co_tui.session.model_setup import ModelSetup
from co_tui.session.turn_runner import TurnRunner

if TYPE_CHECKING:
    from pydantic_ai.models import Model

    from co_tui.agent.agent_defs import AgentDef
    from co_tui.agent.tools import Approver
    from co_tui.config import Settings
    from co_tui.session.events import Event

__all__ = ["ChildRun"]


class ChildRun:
    """A subagent ready to run (`subagents.ChildAgent`). `model`: the parent's, used unless the
    definition names its own; `parent_budget`: the parent's context budget (the child's cap)."""

    def __init__(
        self,
        settings: Settings,
        workspace: Path,
        approver: Approver | None,
        model: Model | str,
        agent_def: AgentDef,
        *,
        parent_budget: int,
    ) -> None:
        budget = min(agent_def.budget_tokens or settings.subagent_budget_tokens, parent_budget)
        # Its own budget; no MCP server of its own (a second process): a definition naming no
        # tools gets the workspace tools only until the resources are shared.
        child_settings = settings.model_copy(
            update={"context_budget_tokens": budget, "mcp_servers": {}, "mcp_project_config": False}
        )
        self.agent_def = agent_def
        self.history = History()
        self.setup = ModelSetup(
            child_settings,
            workspace,
            approver,
            agent_def.model or model,
            history=self.history,
            transcript_sink=lambda messages: self.runner.record(messages),
            agent_def=agent_def,
        )
        self.metering = Metering(self.setup, self.history)
        self.runner = TurnRunner(
            self.setup, self.history, self.metering, session_id=lambda: "", save=lambda _prompt, _context: None
        )
        self.budget_tokens = self.setup.policy.budget_tokens
        self.tools: tuple[str, ...] = tuple(
            name for toolset in self.setup.agent.toolsets for name in getattr(toolset, "tools", {})
        )

    async def run(self, task: str, *, request_limit: int, agent: str = "") -> AsyncIterator[Event]:
        """The child's one turn on `task` (see `TurnRunner.run`); `agent`: its id, which an approval
        it asks for can name (`child_event.asking_agent`)."""
        token = CHILD_AGENT.set(agent or self.agent_def.name)
        try:
            async for event in self.runner.run(task, request_limit=request_limit):
                yield event
        finally:
            CHILD_AGENT.reset(token)

    def cancel(self) -> None:
        """Stop its run: it ends with `Done(interrupted=True)`, its messages kept."""
        self.runner.cancel()

    def close(self) -> None:
        """Nothing held on shared resources yet (its MCP servers are none)."""

    def __repr__(self) -> str:  # pragma: no cover - debugging aid
        return f"ChildRun({self.agent_def.name!r})"

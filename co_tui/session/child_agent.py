"""`ChildRun`: one subagent, built for one `delegate` call — an `AgentBinding` of its own on the
session's shared `Resources` (no second MCP process, no second read of the instructions), its own
`History`, meter and governance, and a `TurnRunner` with nothing saved (`NoStore`): the parent's
transcript records the child when it ends (child_record.py).

Its context budget is its definition's or the `subagent_budget_tokens` setting, never over the
parent's; it is sent its definition's instructions, the project instructions and the task only.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import TYPE_CHECKING

from co_tui.session.agent_binding import AgentBinding
from co_tui.session.applying import EditApplier
from co_tui.session.child_event import CHILD_AGENT
from co_tui.session.history import History
from co_tui.session.metering import Metering
from co_tui.session.persistence import NoStore
from co_tui.session.turn_runner import TurnRunner

if TYPE_CHECKING:
    from pydantic_ai.models import Model

    from co_tui.agent.agent_defs import AgentDef
    from co_tui.session.events import Event
    from co_tui.session.resources import Resources

__all__ = ["ChildRun"]


class ChildRun:
    """A subagent ready to run (`subagents.ChildAgent`). `model`: the parent's, used unless the
    definition names its own; `parent_budget`: the parent's context budget (the child's cap)."""

    def __init__(self, resources: Resources, model: Model | str, agent_def: AgentDef, *, parent_budget: int) -> None:
        settings = resources.settings
        budget = min(agent_def.budget_tokens or settings.subagent_budget_tokens, parent_budget)
        self.agent_def = agent_def
        self.history = history = History()
        self.binding = AgentBinding(
            resources,
            agent_def.model or model,
            history=history,
            transcript_sink=lambda messages: self.runner.record(messages),
            agent_def=agent_def,
            budget_tokens=budget,
        )
        self.metering = Metering(self.binding, history)
        memory = NoStore()
        edits = EditApplier(history, memory, session_id=lambda: "", busy=lambda: False, gauge=self.metering.gauge)
        self.runner = TurnRunner(self.binding, history, self.metering, edits, memory)
        self.budget_tokens = self.binding.policy.budget_tokens
        self.tools: tuple[str, ...] = tuple(
            name for toolset in self.binding.agent.toolsets for name in getattr(toolset, "tools", {})
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
        """Stop hearing of the shared resources' overhead changes."""
        self.binding.close()

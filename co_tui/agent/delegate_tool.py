"""The `delegate` tool: the main agent hands a task to a subagent with a fresh context of its own
and gets back only its final answer (docs/subagents.md).

The tool itself only checks its arguments and calls the session's runner (`Delegate`: agent/ never
imports session/); the session runs the child, streams its events and returns the tool's result.
Its description lists the agents the model may name. The main agent's only: a subagent is built
without it (depth 1).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Any

from co_tui.agent.agent_defs import EXPLORE, AgentDef, describe_agents

if TYPE_CHECKING:
    from pydantic_ai.toolsets import FunctionToolset

__all__ = ["DELEGATE_TOOL", "Delegate", "delegate_description", "delegate_toolset"]

DELEGATE_TOOL = "delegate"
MAX_TASK_CHARS = 20_000

Delegate = Callable[[Any, str, str], Awaitable[Any]]
"""`delegate(ctx, task, agent_name)`: run the child, return the tool's result (the session's)."""


def delegate_description(agents: Sequence[AgentDef]) -> str:
    """The tool's description: what it does, what it costs the context, and the agents on offer."""
    return f"""\
Hand a task to a subagent that works in a fresh context of its own and returns only its final answer: \
the files it reads and the searches it runs never enter your context. Use it for exploration that \
would read many files or produce long outputs ("find where X is configured and how it is used"). \
The subagent sees none of this conversation: put in `task` everything it needs and say exactly what \
to return. Several delegate calls in one step run at the same time. The result names a handle; \
recall(handle) reads the subagent's whole transcript.

Agents (`agent`, default {EXPLORE.name}):
{describe_agents(agents)}"""


def delegate_toolset(run: Delegate, agents: Sequence[AgentDef]) -> FunctionToolset[Any]:
    """A toolset (id `delegate`) holding `delegate`, which calls `run` and offers `agents`."""
    from pydantic_ai import RunContext, ToolFailed
    from pydantic_ai.toolsets import FunctionToolset

    from co_tui.agent.tool_schemas import tool_of

    names = {agent.name for agent in agents}

    async def delegate(ctx: RunContext[Any], task: str, agent: str = EXPLORE.name) -> Any:
        """Run a subagent on a task.

        Args:
            task: What the subagent must do and what it must return (it sees nothing else).
            agent: Which agent runs it (one of the listed names).
        """
        task = task.strip()
        if not task:
            raise ToolFailed("delegate needs a task: what to do and what to return")
        if len(task) > MAX_TASK_CHARS:
            raise ToolFailed(f"the task is over {MAX_TASK_CHARS} characters: say what to do, not the material")
        name = (agent or EXPLORE.name).strip().lower()
        if name not in names:
            raise ToolFailed(f"no agent {agent[:40]!r}; the agents are: {', '.join(sorted(names))}")
        return await run(ctx, task, name)

    delegate.__annotations__["ctx"] = RunContext[Any]  # pydantic-ai reads the object, not the string
    toolset: FunctionToolset[Any] = FunctionToolset(id=DELEGATE_TOOL)
    toolset.add_tool(tool_of(delegate, takes_ctx=True, description=delegate_description(agents)))
    return toolset

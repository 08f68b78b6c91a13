"""`ChildEvent`: how a subagent's domain event travels through the parent's pydantic-ai run.

The `delegate` tool emits it (`RunContext.emit`), pydantic-ai delivers it in the parent's event
stream at once, while the tool still runs, and the parent's `TurnRunner` yields the event it
carries. So a child's events reach the front end live, in the one stream of the parent's turn.
"""

from __future__ import annotations

from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

from pydantic_ai.messages import CustomEvent

__all__ = ["CHILD_AGENT", "ChildEvent", "asking_agent"]

# The subagent whose run this code is in (its id), None in the main agent's. Set around a child's
# run: the run's task and its tools' inherit it, so an approval a child asks for can name it.
CHILD_AGENT: ContextVar[str | None] = ContextVar("co_tui_child_agent", default=None)


def asking_agent() -> str | None:
    """The subagent asking (an approver calls it): its id, or None when the main agent asks."""
    return CHILD_AGENT.get()


@dataclass(kw_only=True)
class ChildEvent(CustomEvent, name="co_tui_child_event"):
    """A child's domain event (`co_tui.session.events.Event`, tagged with its agent and delegation)."""

    event: Any = None

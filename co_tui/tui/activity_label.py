"""What the activity line says while a turn runs: what is happening now, from the turn's events.

The label starts as "thinking…" (waiting for the model), turns to "writing…" once the answer's text
streams, to "running <tool>…" while a tool runs, and back to "thinking…" when the model gets the
result. A subagent at work is named with what it does (`explore-1: running read_file…`). Once Esc
was pressed it stays "interrupting…" until the turn ends (docs/architecture.md).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from co_tui.session import Event

THINKING = "thinking…"
WRITING = "writing…"
INTERRUPTING = "interrupting…"
SHELL_SHOWN_CHARS = 40


def shell_activity(command: str) -> str:
    """The label while a `!command` the user typed is asked about and runs (one line, shortened)."""
    from co_tui.text import escape_controls

    shown = escape_controls(" ".join(command.split()))
    return f"running !{shown[:SHELL_SHOWN_CHARS]}…"  # one ellipsis: cut or running, the same line


def next_activity_label(current: str, event: Event) -> str:
    """The label after `event` given the `current` one: unchanged for events that say nothing
    about what the turn is doing (usage, notices, …) and once the turn is being interrupted. While
    a subagent works the line names it and what it does now (`explore-1: running read_file…`; its
    block shows the rest), the newest child's event winning when several run at once."""
    if current == INTERRUPTING:
        return current
    if event.type == "subagent_started":
        return f"{event.agent}: thinking…"
    if event.type == "subagent_finished":
        return "running delegate…"  # the parent's call returns next (or waits for its other children)
    if event.agent is not None:
        if event.type in ("text_delta", "tool_call", "tool_result"):
            return f"{event.agent}: {_own_label(event)}"
        return current
    return _own_label(event) or current


def _own_label(event: Event) -> str:
    """What `event` says an agent is doing now; "" for an event that says nothing of it."""
    if event.type == "text_delta":
        return WRITING
    if event.type == "tool_call":
        return f"running {event.tool_name}…"
    if event.type == "tool_result":
        return THINKING
    return ""

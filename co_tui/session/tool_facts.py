"""What a tool's row shows besides its text, read off the output by the session once, so that a
front end only displays it (docs/architecture.md, "Front ends see the public face only").

The rules are the policy's and the tools' own, not repeated here: how a shell command ended
(`agent/shell.py`, `shell_outcome`: the status line `run_command` ends every output with), what a
`recall` brought back (`governance/recall.py`, `recalled_what`: its header) and whether the output
arrived as its preview (`governance/preview.py`, `PREVIEW_MARK`). Each is imported only for the
results it applies to: a resumed conversation's rows are built before pydantic-ai has loaded.
"""

from __future__ import annotations

from dataclasses import dataclass

from co_tui.agent.permissions import SHELL_TOOL
from co_tui.session.events import ToolResult
from co_tui.session.user_shell_prompt import USER_SHELL_TOOL

__all__ = ["ToolFacts", "tool_facts", "tool_result"]

# `governance.handles.RECALL_TOOL`, named here as it is: that module loads pydantic-ai (a test checks both agree).
_RECALL_TOOL = "recall"


@dataclass(frozen=True)
class ToolFacts:
    """See `ToolResult`: `outcome`, `recalled`, `previewed`."""

    outcome: str | None = None
    recalled: str | None = None
    previewed: bool = False


def tool_facts(tool_name: str, content: str, chars: int, *, is_error: bool = False) -> ToolFacts:
    """The facts of one result: `content` as the front end gets it (a big output's preview), `chars`
    the whole output's length. A failed call has none but `previewed` (its message is no output of
    the tool's: a shell command's non-zero exit is no failed call, it has an `outcome`)."""
    outcome = recalled = None
    if tool_name in (SHELL_TOOL, USER_SHELL_TOOL) and not is_error:
        from co_tui.agent.shell import shell_outcome

        outcome = shell_outcome(content)
    elif tool_name == _RECALL_TOOL and not is_error:
        from co_tui.governance.recall import recalled_what

        recalled = recalled_what(content)
    previewed = False
    if chars > len(content):  # only a preview is shorter than the output it stands for
        from co_tui.governance.preview import PREVIEW_MARK

        previewed = PREVIEW_MARK in content
    return ToolFacts(outcome=outcome, recalled=recalled, previewed=previewed)


def tool_result(
    *,
    tool_name: str,
    tool_call_id: str,
    content: str,
    chars: int,
    is_error: bool = False,
    agent: str | None = None,
    delegation: str | None = None,
) -> ToolResult:
    """A `ToolResult` with its facts filled (`tool_facts`): how every part of the session makes one."""
    facts = tool_facts(tool_name, content, chars, is_error=is_error)
    return ToolResult(
        tool_name=tool_name,
        tool_call_id=tool_call_id,
        content=content,
        chars=chars,
        is_error=is_error,
        outcome=facts.outcome,
        recalled=facts.recalled,
        previewed=facts.previewed,
        agent=agent,
        delegation=delegation,
    )

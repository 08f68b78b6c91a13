"""Who an event or an approval comes from: `MAIN_AGENT`, the session's own agent, or a subagent's
id (docs/subagents.md). Its own module, standard library only: the TUI names it before its first
frame, and approvals.py (which loads the workspace tools) must not come with it."""

from __future__ import annotations

__all__ = ["MAIN_AGENT"]

MAIN_AGENT = "main"
"""The id of the session's own agent, as `ApprovalRequest.agent` names it."""

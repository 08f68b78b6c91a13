"""Approvals: the session asks its front end about a call as a typed `ApprovalRequest`, and keeps
the "always allow" grants itself, so every front end (the TUI's dialog, print mode's `--yes`, an
ACP client's `session/request_permission`) supplies one thing only: `ask(request) -> Decision`.

`Approvals.approve` is the `co_tui.agent.tools.Approver` the session's tools and MCP servers await:
a call a grant covers runs without asking (`on_granted` is told, for the TUI's hint); otherwise the
front end is asked, an `always` answer adds the request's `grant`, and `once`/`always` run it. What
"always" grants is decided in `co_tui.agent.permissions.offer` (a command prefix, one tool, file
edits); the request carries it so the front end can say exactly what it would allow.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import PurePath

from co_tui.agent.permissions import Decision, Grant, Permissions, offer
from co_tui.agent.remember_tool import REMEMBER_TOOL
from co_tui.agent.tools import CannotAsk
from co_tui.session.agent_ids import MAIN_AGENT

__all__ = ["MAIN_AGENT", "ApprovalRequest", "Approvals", "Ask", "CannotAsk", "Decision", "Grant", "Permissions"]


@dataclass(frozen=True)
class ApprovalRequest:
    """One call waiting for the user's answer.

    `tool_call_id`: the model's id of the call (None for the user's own `!command`, `by_user`);
    `agent`: who asks (`MAIN_AGENT` for the session's agent, a subagent's id otherwise); `tool`: its
    name (`run_shell`, `write_file`, `edit_file`, `remember`, an MCP tool); `text`: exactly what runs —
    the command, the unified diff of an edit (`path`: the file), the line a memory note adds (`path`:
    the memory file), an MCP call's name and JSON arguments;
    `grant`: what answering `always` would allow for the rest of the session.
    """

    tool_call_id: str | None
    agent: str
    tool: str
    text: str
    grant: Grant
    path: str | None = None
    by_user: bool = False

    @property
    def is_memory(self) -> bool:
        """A note to remember (the `remember` tool, `#note`, `/remember`): `text` is the exact line
        that will be added, `path` the memory file it goes into."""
        return self.tool == REMEMBER_TOOL

    @property
    def is_edit(self) -> bool:
        """A file edit (`text` is its diff, `path` the file). A memory note is not one (`is_memory`)."""
        return self.path is not None and not self.is_memory

    def memory_words(self) -> str:
        """Where a memory note goes, said for a front end with no dialog (print mode, ACP), which then
        shows `text`, the exact line: `a note into memory.md at /ws/.co-tui/memory.md`."""
        return f"a note into {PurePath(self.path or '?').name} at {self.path}"


Ask = Callable[[ApprovalRequest], Awaitable[Decision]]
"""A front end's question to the user: the answer is `once`, `always` or `deny`. One that cannot ask
anyone raises `co_tui.agent.tools.CannotAsk` (the call is refused, and the model is told why)."""


class Approvals:
    """A session's approvals: its front end's `ask` and the grants given so far (`permissions`, which
    `/permissions` lists and revokes). `agent`: the id that asks (`MAIN_AGENT` unless a subagent's)."""

    def __init__(self, ask: Ask, *, agent: str = MAIN_AGENT, permissions: Permissions | None = None) -> None:
        self.ask = ask
        self.agent = agent
        self.permissions = permissions if permissions is not None else Permissions()
        # Told when a grant let a call run without asking (the TUI says so under the prompt).
        self.on_granted: Callable[[Grant], None] | None = None

    def request(
        self,
        text: str,
        *,
        tool: str = "run_shell",
        path: str | None = None,
        tool_call_id: str | None = None,
        by_user: bool = False,
    ) -> ApprovalRequest:
        """The request the front end would be asked for this call (what `always` would grant included).
        A call made inside a subagent's run names that subagent (`child_event.asking_agent`)."""
        from co_tui.session.child_event import asking_agent

        agent = self.agent if by_user else (asking_agent() or self.agent)
        return ApprovalRequest(tool_call_id, agent, tool, text, offer(tool, text), path, by_user)

    async def approve(
        self,
        text: str,
        *,
        tool: str = "run_shell",
        path: str | None = None,
        tool_call_id: str | None = None,
        by_user: bool = False,
    ) -> bool:
        """`co_tui.agent.tools.Approver`: True when the call may run — a grant covers it, or the front
        end answered `once` or `always` (which adds the grant first). Raises what `ask` raises
        (`CannotAsk`)."""
        granted = self.permissions.allowing(tool, text)
        if granted is not None:
            if self.on_granted is not None:
                self.on_granted(granted)
            return True
        request = self.request(text, tool=tool, path=path, tool_call_id=tool_call_id, by_user=by_user)
        decision = await self.ask(request)
        if decision == "always":
            self.permissions.grant(request.grant)
        return decision in ("once", "always")

    def reset(self) -> None:
        """Forget every grant (a grant holds for one session)."""
        self.permissions.grants.clear()

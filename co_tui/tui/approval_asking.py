"""The TUI's side of the session's approvals (`co_tui.session.approvals`): the dialog that asks, and
the line under the prompt when a grant let a call run without asking. The grants themselves are the
session's (`/permissions` lists and revokes them)."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from textual.app import App

    from co_tui.session import ApprovalRequest, Decision, Grant, Permissions
    from co_tui.tui.controller import ChatController
    from co_tui.tui.screens.chat import ChatScreen

__all__ = ["ApprovalAsking"]


class ApprovalAsking:
    """Approvals as one app asks them (see module docstring): over its `chat`, for its controller's session."""

    def __init__(self, app: App[Any], controller: ChatController, chat: ChatScreen) -> None:
        self.app = app
        self.controller = controller
        self.chat = chat

    async def ask(self, request: ApprovalRequest) -> Decision:
        """The front end's `ask` for the session's approvals: the approval dialog
        (`screens/approval.py`) shows exactly what runs and asks. Esc or n refuses; a offers
        "always" for this session (`request.grant`, which the session keeps)."""
        from co_tui.session import MAIN_AGENT
        from co_tui.tui.screens.approval import approval_dialog

        future: asyncio.Future[Decision] = asyncio.get_running_loop().create_future()

        def answered(result: Decision | None) -> None:
            if not future.done():
                future.set_result(result or "deny")

        agent = None if request.agent == MAIN_AGENT else request.agent  # a subagent asking is named
        dialog = approval_dialog(
            request.tool, request.text, request.path, request.grant, by_user=request.by_user, agent=agent
        )
        self.app.push_screen(dialog, answered)
        return await future

    async def approve_shell(
        self, command: str, tool: str = "run_shell", path: str | None = None, *, by_user: bool = False
    ) -> bool:
        """Ask about a call as the session's tools do (its approvals: a grant of `/permissions` runs
        it without asking, else `ask`); True when it may run (never before a session is open)."""
        session = self.controller.session
        approvals = session.approvals if session is not None else None
        if approvals is None:
            return False
        return await approvals.approve(command, tool=tool, path=path, by_user=by_user)

    @property
    def permissions(self) -> Permissions:
        """What "always allow" granted in the open session (`/permissions`); empty before one opens."""
        from co_tui.session import Permissions

        session = self.controller.session
        approvals = session.approvals if session is not None else None
        return approvals.permissions if approvals is not None else Permissions()

    def granted(self, grant: Grant) -> None:
        """A grant let a call run without asking: say so under the prompt."""
        from co_tui.session import escaped

        if not self.chat.gone:
            self.chat.show_hint(f"ran without asking: {escaped(grant.describe())} (/permissions)", info=True)

"""A front end's side of the session's approvals, for tests: `Asker` answers each request in turn."""

from __future__ import annotations

from co_tui.session.approvals import ApprovalRequest, Decision


class Asker:
    """A front end's `ask`: answers in turn from `answers`, remembering every request."""

    def __init__(self, *answers: Decision) -> None:
        self.answers = list(answers)
        self.asked: list[ApprovalRequest] = []

    async def __call__(self, request: ApprovalRequest) -> Decision:
        self.asked.append(request)
        return self.answers.pop(0)

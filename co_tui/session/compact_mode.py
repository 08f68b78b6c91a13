"""The session's side of `compact_mode` (governance/compact_mode.py): the line said before a turn
when the mode is `off` and the context is past its limits. Kept out of chat.py: the session only asks."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from co_tui.governance.compact_mode import cuts_automatically, over_budget_notice
from co_tui.session.events import Notice

if TYPE_CHECKING:
    from co_tui.session.chat import ChatSession

__all__ = ["OffNotice"]


@dataclass
class OffNotice:
    """Says once that nothing is cut while `compact_mode` is off and the context is past a limit a
    cut would answer (the policy's own triggers); says it again after the context was back under."""

    said: bool = False

    def check(self, session: ChatSession) -> Notice | None:
        """The notice for the turn about to run, or None. Nothing is cut here: overflow recovery
        still answers a provider's context-length error."""
        over = not cuts_automatically(session.compact_mode) and session.governance.governor.over_limits(
            session.context, overhead_tokens=session.overhead_tokens, next_prompt=True
        )
        if not over:
            self.said = False
            return None
        if self.said:
            return None
        self.said = True
        tokens = session.meter.reading(session.context).tokens
        return Notice(message=over_budget_notice(tokens, session.policy.budget_tokens))

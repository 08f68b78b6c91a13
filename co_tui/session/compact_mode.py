"""The session's side of `compact_mode` (governance/compact_mode.py): the line said before a turn
when the mode is `off` and the context is past its limits (`AgentBinding.turn_notices` asks), and
the modes' words the front ends show (print mode's `print_mode_ask_line`: it cannot ask)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from co_tui.governance.compact_mode import COMPACT_MODES
from co_tui.session.events import Notice
from co_tui.session.wording import over_budget_notice

__all__ = ["COMPACT_MODES", "OffNotice"]


@dataclass
class OffNotice:
    """Says once that nothing is cut while `compact_mode` is off and the context is past a limit a
    cut would answer (the policy's own triggers); says it again after the context was back under."""

    said: bool = False

    def check(self, over: bool, tokens: Callable[[], int], budget_tokens: int) -> Notice | None:
        """The notice for the turn about to run, or None. `over`: the mode is off and the next
        request is past a limit; `tokens`: the meter's figure for it. Nothing is cut here: overflow
        recovery still answers a provider's context-length error."""
        if not over:
            self.said = False
            return None
        if self.said:
            return None
        self.said = True
        return Notice(message=over_budget_notice(tokens(), budget_tokens))

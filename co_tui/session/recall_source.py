"""The session's side of the `recall` tool: what it reads and when it is offered (agent/recall_tool.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from co_tui.agent.recall_tool import RecallSource
    from co_tui.session.history import History


class _Limits(Protocol):
    """What the tool reads of the session's model setup (`model_setup.ModelSetup` is one)."""

    @property
    def governor(self) -> Any:
        """The policy's rules (`over_limits`)."""

    @property
    def overhead(self) -> int:
        """Tokens every request carries besides the history."""

    @property
    def policy(self) -> Any:
        """The policy (`budget_tokens`)."""


def recall_source(history: History, setup: _Limits) -> RecallSource:
    """The session's transcript (`history`'s: this session only), offered once it cut anything or is
    about to (by `setup`'s governor), pages of `page_chars_for(budget)`, and the store's redaction of
    secret-looking environment values. Read when the tool runs: a new model's setup is seen."""
    from co_tui.agent.recall_tool import RecallSource, offered_when
    from co_tui.governance.recall import page_chars_for
    from co_tui.session.redaction import redact_text, secret_env_values

    def over_limits(messages: object) -> bool:
        return bool(setup.governor.over_limits(messages, overhead_tokens=setup.overhead))

    return RecallSource(
        transcript=lambda: history.transcript,
        offered=offered_when(lambda: len(history.entries), over_limits),
        page_chars=lambda: page_chars_for(setup.policy.budget_tokens),
        redact=lambda text: redact_text(text, secret_env_values()),
    )

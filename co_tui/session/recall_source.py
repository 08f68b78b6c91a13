"""The session's side of the `recall` tool: what it reads and when it is offered (agent/recall_tool.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from co_tui.agent.recall_tool import RecallSource
    from co_tui.session.chat import ChatSession


def recall_source(session: ChatSession) -> RecallSource:
    """`session`'s transcript (this session only), offered once it cut anything or is about to, pages
    of `page_chars_for(budget)`, and the store's redaction of secret-looking environment values."""
    from co_tui.agent.recall_tool import RecallSource, offered_when
    from co_tui.governance.recall import page_chars_for
    from co_tui.session.redaction import redact_text, secret_env_values

    def over_limits(messages: object) -> bool:
        return bool(session.governance.governor.over_limits(messages, overhead_tokens=session.overhead_tokens))  # type: ignore[arg-type]

    return RecallSource(
        transcript=lambda: session.transcript,
        offered=offered_when(lambda: len(session.ledger), over_limits),
        page_chars=lambda: page_chars_for(session.policy.budget_tokens),
        redact=lambda text: redact_text(text, secret_env_values()),
    )

"""The session's side of the `recall` tool: what it reads (agent/recall_tool.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from co_tui.agent.recall_tool import RecallSource
    from co_tui.session.chat import ChatSession


def recall_source(session: ChatSession) -> RecallSource:
    """`session`'s transcript (this session only), pages of `page_chars_for(budget)`, and the
    store's redaction of secret-looking environment values."""
    from co_tui.agent.recall_tool import RecallSource
    from co_tui.governance.recall import page_chars_for
    from co_tui.session.redaction import redact_text, secret_env_values

    return RecallSource(
        transcript=lambda: session.transcript,
        page_chars=lambda: page_chars_for(session.policy.budget_tokens),
        redact=lambda text: redact_text(text, secret_env_values()),
    )

"""The session's side of the `recall` tool: what it reads (agent/recall_tool.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from co_tui.agent.recall_tool import RecallSource
    from co_tui.session.history import History


class _Limits(Protocol):
    """What the tool reads of the session's model setup (`model_setup.ModelSetup` is one)."""

    @property
    def policy(self) -> Any:
        """The policy (`budget_tokens`)."""


def recall_source(history: History, setup: _Limits) -> RecallSource:
    """The session's transcript (`history`'s: this session only), pages of `page_chars_for(budget)`
    (by `setup`'s policy, read when the tool runs: a new model's is seen), and the store's redaction
    of secret-looking environment values."""
    from co_tui.agent.recall_tool import RecallSource
    from co_tui.governance.recall import page_chars_for
    from co_tui.session.redaction import redact_text, secret_env_values

    return RecallSource(
        transcript=lambda: history.transcript,
        page_chars=lambda: page_chars_for(setup.policy.budget_tokens),
        redact=lambda text: redact_text(text, secret_env_values()),
    )

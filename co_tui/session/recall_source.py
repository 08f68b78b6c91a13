"""The session's side of the `recall` tool: what it reads (agent/recall_tool.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from collections.abc import Sequence

    from pydantic_ai.messages import ModelMessage

    from co_tui.agent.recall_tool import RecallSource
    from co_tui.session.history import History


class _Limits(Protocol):
    """What the tool reads of the session's model setup (`agent_binding.AgentBinding` is one)."""

    @property
    def policy(self) -> Any:
        """The policy (`budget_tokens`)."""

    @property
    def settings(self) -> Any:
        """The settings (`tool_output_preview_chars`)."""


def page_chars(budget_tokens: int, preview_chars: int) -> int:
    """The most one recall page may hold: `page_chars_for(budget)`, and under the preview cap with
    room for its header line — a page over it would itself reach the model as a preview, sending it
    back to recall the page it had just asked for."""
    from co_tui.governance.recall import page_chars_for

    pages = page_chars_for(budget_tokens)
    if preview_chars <= 0:
        return pages
    return min(pages, max(preview_chars // 2, preview_chars - 1000))


def recall_source(history: History, setup: _Limits) -> RecallSource:
    """The session's transcript (`history`'s: this session only), pages of `page_chars` (by
    `setup`'s policy and settings, read when the tool runs: a new model's is seen), the store's
    redaction of secret-looking environment values, and the subagents its transcript records."""
    from co_tui.agent.recall_tool import RecallSource

    return RecallSource(
        transcript=lambda: history.transcript,
        page_chars=lambda: page_chars(setup.policy.budget_tokens, setup.settings.tool_output_preview_chars),
        redact=_redact,
        child=lambda agent: _child_transcript(history, agent),
    )


def _redact(text: str) -> str:
    """The store's redaction of secret-looking environment values (loaded at the first recall)."""
    from co_tui.redaction import redact_text, secret_env_values

    return redact_text(text, secret_env_values())


def _child_transcript(history: History, agent: str) -> Sequence[ModelMessage] | None:
    from co_tui.session.child_record import find_child

    record = find_child(history.transcript, agent)
    return None if record is None else record.transcript

"""`GovernancePolicy`: the settings governance runs with, resolved (the budget from the model's
window); `resolve_budget`, how. Pure values: the `Governor` (policy.py) runs the policy with them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from co_tui.governance.defaults import (
    DEFAULT_COMPACT_TARGET,
    DEFAULT_MAX_HISTORY_MESSAGES,
    DEFAULT_TOOL_OUTPUT_CLEAR,
    STUB_MARK_FACTOR,
)

__all__ = ["GovernancePolicy", "resolve_budget"]


@dataclass(frozen=True)
class GovernancePolicy:
    """The settings governance runs with (already resolved; `budget_tokens > 0`)."""

    budget_tokens: int
    max_history_messages: int = DEFAULT_MAX_HISTORY_MESSAGES
    tool_output_trim_chars: int = 2000
    strategy: Literal["summarize", "trim"] = "summarize"
    summarizer_cooldown_s: float = 600.0
    window_is_guess: bool = False
    compact_target: float = DEFAULT_COMPACT_TARGET
    # "stub": old outputs `recall` can bring back are cleared to their one-line note; "head": cut to
    # `tool_output_trim_chars` (docs/context-governance.md, "The stub policy").
    tool_output_clear: Literal["stub", "head"] = "head"  # the setting's default is DEFAULT_TOOL_OUTPUT_CLEAR
    # The user's summary instructions (the setting and COMPACT.md files, read by the session), how
    # they combine with co-tui's (`compose_instructions`), and whose they are, for the events.
    summary_instructions: str = ""
    summary_instructions_mode: str = "add"
    summary_instructions_from: tuple[str, ...] = ()

    @property
    def token_mark(self) -> float:
        """The low-water mark for tokens, as a share of the budget: `compact_target`, and with the
        stub policy `STUB_MARK_FACTOR` of it — cleared outputs lose nothing (`recall` brings them
        back), so a cut goes deeper and comes rarer (docs/context-governance.md, "The stub policy")."""
        return self.compact_target * (STUB_MARK_FACTOR if self.tool_output_clear == "stub" else 1.0)

    @property
    def target_messages(self) -> int:
        """Where a message-count cut goes: `compact_target` × `max_history_messages` (at least 1)."""
        return max(1, int(self.compact_target * self.max_history_messages))

    @classmethod
    def from_settings(cls, settings: Any, *, context_window: int | None) -> GovernancePolicy:
        """Build from `co_tui.config.Settings` and the model's context window (None if unknown)."""
        budget, guess = resolve_budget(
            settings.context_budget_tokens, settings.compact_threshold, context_window, settings.fallback_context_window
        )
        return cls(
            budget_tokens=budget,
            max_history_messages=settings.max_history_messages,
            tool_output_trim_chars=settings.tool_output_trim_chars,
            strategy=settings.context_strategy,
            summarizer_cooldown_s=settings.summarizer_cooldown_s,
            window_is_guess=guess,
            compact_target=getattr(settings, "compact_target", DEFAULT_COMPACT_TARGET),
            tool_output_clear=getattr(settings, "tool_output_clear", DEFAULT_TOOL_OUTPUT_CLEAR),
            summary_instructions=getattr(settings, "summary_instructions", ""),
            summary_instructions_mode=getattr(settings, "summary_instructions_mode", "add"),
            summary_instructions_from=("setting summary_instructions",)
            if getattr(settings, "summary_instructions", "").strip()
            else (),
        )

    def instructions_for(self, base: str) -> tuple[str, list[str]]:
        """The summariser's instructions over `base` (co-tui's for a summary or /compact) and whose
        they are, in order: co-tui's (unless replaced), then each source of the user's."""
        from co_tui.governance.summarize import compose_instructions  # the summariser's: at the first summary

        text = compose_instructions(base, self.summary_instructions, self.summary_instructions_mode)
        replaced = self.summary_instructions.strip() and self.summary_instructions_mode == "replace"
        return text, [*([] if replaced else ["co-tui"]), *self.summary_instructions_from]


def resolve_budget(
    settings_budget: int, compact_threshold: float, context_window: int | None, fallback_window: int
) -> tuple[int, bool]:
    """(budget_tokens, window_is_guess).

    An explicit `context_budget_tokens` wins; otherwise `compact_threshold` × the model's context
    window; for an unknown window, `compact_threshold` × `fallback_window` and `window_is_guess=True`.
    """
    if settings_budget > 0:
        return settings_budget, False
    if context_window and context_window > 0:
        return max(1, int(compact_threshold * context_window)), False
    return max(1, int(compact_threshold * fallback_window)), True

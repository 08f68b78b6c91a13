"""The `history_trimmed` event: the one record of every change to what the model sees.

Governance produces these; the session layer forwards them (TUI banner, jsonl line, store ledger).
Field names are a contract (docs/context-governance.md) relied on by tests outside the project.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Literal

Reason = Literal[
    "token_budget",
    "message_count",
    "context_overflow",
    "manual_compact",
    "clear",
    "manual_evict",
    "restore",
    "rewind",
    "branch_switch",
]
# "branch": the context became another point of the conversation tree (a rewind, a branch switch).
Strategy = Literal["tool_output_trim", "turn_trim", "step_shrink", "summary", "static_marker", "compact", "branch"]


@dataclass(frozen=True, kw_only=True)
class HistoryTrimmed:
    """One rewrite of the context view. `summary` is set for summaries and compactions.

    `session_id` is empty when produced by pure governance functions; the session layer fills it
    in (`dataclasses.replace`) before forwarding.
    """

    reason: Reason
    strategy: Strategy
    dropped_messages: int = 0
    dropped_turns: int = 0
    kept_turns: int = 0
    tokens_before: int = 0
    tokens_after: int = 0
    budget_tokens: int = 0
    summary: str | None = None
    session_id: str = ""
    # Extra, optional detail for the UI (e.g. "summary failed: timeout"); not part of the contract.
    note: str | None = None
    # Of `dropped_messages`, how many the summary could not cover (the oldest, cut from the
    # summariser's input to fit it): removed without a summary. 0 for every other strategy.
    unsummarised_messages: int = 0
    # After a summary or compaction: the file paths, tool names, identifiers and numbers of the
    # summarised messages the summary still mentions / no longer mentions (`summary_check`). None
    # for every other cut.
    summary_kept: list[str] | None = None
    summary_lost: list[str] | None = None
    # After a summary or compaction: how many user prompts the summarised messages held, and how
    # many of them the summary keeps verbatim (governance/user_words.py). 0 for every other cut.
    prompts_kept: int = 0
    prompts_total: int = 0
    # After a summary or compaction (or a static marker whose call failed): whose instructions the
    # summariser had, in order — co-tui's, the setting, COMPACT.md files, the /compact focus. None otherwise.
    summary_instructions: list[str] | None = None
    # Reason `restore` (an undone cut, docs/context-governance.md "Undo a cut"): how many messages
    # the model sees again. 0 for every other event (a restore's `dropped_messages` stays 0).
    restored_messages: int = 0
    # The summariser call behind this change (`summary`, a `static_marker` whose call failed,
    # `compact`): tokens as the provider reported them and USD at list prices (genai-prices through
    # pydantic-ai), None when unpriced. The session adds them to its cost. 0 for zero-LLM cuts.
    summarizer_input_tokens: int = 0
    summarizer_output_tokens: int = 0
    summarizer_cost_usd: float | None = 0.0
    # Reason `restore` with `restored_messages` 1 when the user recovered an item a summary lost
    # (docs/context-governance.md, "Recover a lost item"): the item, and the verbatim excerpt of the
    # summarised messages appended to the context. None for every other event.
    salvaged_item: str | None = None
    salvaged_text: str | None = None
    # Reasons `rewind` / `branch_switch` (docs/context-governance.md, "Rewind and branches"): the
    # branch left and the branch now in use (ids in the session's conversation tree), and for a
    # rewind the turn (1-based) whose prompt the conversation went back to. None for every other event.
    branch_from: int | None = None
    branch_to: int | None = None
    rewound_to_turn: int | None = None
    # A pass that cut (reasons `token_budget`, `message_count`): how many older tool outputs became
    # a note naming an identical newer one still in context (docs/context-governance.md, "Repeated
    # reads"). 0 for every other event.
    deduplicated_outputs: int = 0
    # A child agent's cut (docs/subagents.md): the child's id and its `delegate` call. None (and
    # left out of `to_dict`) for the main agent's, so its lines and ledger rows are unchanged.
    agent: str | None = None
    delegation: str | None = None
    # Reason `manual_evict`, the session's first eviction: that removing something from the middle
    # breaks the provider's prompt cache from that point (docs/context-governance.md, "Evict"), as a
    # field of its own so a front end shows it without reading `note`. None (and left out of
    # `to_dict`) for every other event.
    cache_warning: str | None = None

    type: Literal["history_trimmed"] = "history_trimmed"

    def to_dict(self) -> dict[str, Any]:
        """The JSON-ready form (print mode's jsonl line, the store's ledger row)."""
        data = asdict(self)
        for key in ("agent", "delegation", "cache_warning"):
            if data[key] is None:
                del data[key]
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> HistoryTrimmed:
        """Inverse of `to_dict`; unknown keys are ignored so older/newer ledgers still load."""
        fields = cls.__dataclass_fields__
        return cls(**{k: v for k, v in data.items() if k in fields and k != "type"})

"""`/context`: what the next request holds, by category, adding up to the meter's figure.

Every request carries, besides the conversation, co-tui's own instructions, the project
instructions (AGENTS.md …, one row per file) and the tool schemas (one row per source: the
workspace tools, each MCP server). The user never sees these in the chat; this breakdown shows them
next to the conversation's messages, the markers and summaries governance left, the pinned turns,
the free space before the trigger (the budget) and the reserve above it (the rest of the window).

How the figures are made (docs/context-governance.md, "What the next request holds"): each part is
estimated (messages with the meter's calibrated ratio), then the parts are fitted to the meter's own
figure — the messages keep their calibrated estimate, and the remainder the meter attributes to the
fixed part (the provider's report minus the messages, or the overhead estimate before any report)
is shared among instructions and tool schemas in proportion to their estimates. So the rows always
add up to `ChatSession.meter_reading().context_tokens`; with no messages yet (the meter shows 0) they
add up to the fixed part alone, which the first request will carry.

`compute_breakdown` is pure (no session, no I/O); `metering.Metering.breakdown` gathers a session's parts.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from pydantic_ai.messages import ModelMessage


CategoryKey = Literal["instructions", "project_instructions", "memory", "tool_schemas", "messages", "markers", "pinned"]

CATEGORY_TITLES: dict[str, str] = {
    "instructions": "Instructions",
    "project_instructions": "Project instructions",
    "memory": "Memory",
    "tool_schemas": "Tool schemas",
    "messages": "Conversation messages",
    "markers": "Markers and summaries",
    "pinned": "Pinned turns",
}
"""What each category is called on screen: the fixed parts in the order the request holds them,
then the messages by kind."""


@dataclass(frozen=True)
class OverheadPart:
    """One fixed part of every request, before fitting: `key` its category, `label` the row's name
    (`co-tui`, `AGENTS.md`, `workspace`, an MCP server's name), `tokens` its estimate."""

    key: CategoryKey
    label: str
    tokens: int
    items: int = 0  # tools of a schema source


@dataclass(frozen=True)
class ContextRow:
    """One row of the breakdown: `key` the category, `label` what it is (a file, a tool source, or
    the category itself), `tokens` its share of the meter's figure, `items` how many messages or
    tools it holds (0: not counted)."""

    key: CategoryKey
    label: str
    tokens: int
    items: int = 0


@dataclass(frozen=True)
class ContextBreakdown:
    """What the next request holds (`rows`: the fixed parts, then the messages by kind) and the
    room around it.

    `total_tokens` is the rows' sum: the meter's figure (`meter_tokens`) whenever there are
    messages. `free_tokens` is what is left before the trigger (`budget_tokens`, where governance
    cuts), `over_tokens` how far past it the request is, `reserve_tokens` the window above the
    trigger (`window_tokens − budget_tokens`), kept for the answer and the cut.
    """

    rows: tuple[ContextRow, ...]
    total_tokens: int
    meter_tokens: int
    budget_tokens: int
    window_tokens: int
    exactness: str = "estimated"
    window_is_guess: bool = False
    # Whether governance cuts before the next request (the meter's `trims on next send`), and how
    # far the instructions and tool schemas are over the half of the budget they may take: a request
    # over the trigger is then not cut until its messages pass the other half.
    cut_pending: bool = False
    overhead_excess: int = 0
    # compact_mode off: nothing is cut at the trigger (the `usage` event's `cuts_off`).
    cuts_off: bool = False

    @property
    def free_tokens(self) -> int:
        """Tokens left before the trigger (0 when past it)."""
        return max(0, self.budget_tokens - self.total_tokens)

    @property
    def over_tokens(self) -> int:
        """Tokens past the trigger (governance cuts before the next request when `cut_pending`)."""
        return max(0, self.total_tokens - self.budget_tokens)

    @property
    def reserve_tokens(self) -> int:
        """The window above the trigger."""
        return max(0, self.window_tokens - self.budget_tokens)

    def category_tokens(self, key: str) -> int:
        """The tokens of every row of category `key`."""
        return sum(row.tokens for row in self.rows if row.key == key)


def apportion(weights: Sequence[float], total: int) -> list[int]:
    """Whole numbers in proportion to `weights` that add up to `total` exactly (largest remainder).
    All-zero weights put everything on the first."""
    if not weights:
        return []
    total = max(0, total)
    whole = sum(weights)
    if whole <= 0:
        return [total] + [0] * (len(weights) - 1)
    exact = [w * total / whole for w in weights]
    shares = [int(x) for x in exact]
    by_remainder = sorted(range(len(exact)), key=lambda i: exact[i] - shares[i], reverse=True)
    for i in by_remainder[: total - sum(shares)]:
        shares[i] += 1
    return shares


def classify_messages(
    messages: Sequence[ModelMessage], is_pinned: Callable[[ModelMessage], bool] | None = None
) -> list[tuple[CategoryKey, ModelMessage]]:
    """Each message of the context as the user sees it (a marker fused with the next prompt apart),
    with its category: `markers` (breadcrumbs, summaries, a compaction and its acknowledgement),
    `pinned` (when `is_pinned` says so), else `messages`."""
    from co_tui.governance.markers import is_compact_ack, is_marker, separate_markers

    shown = separate_markers(messages)
    out: list[tuple[CategoryKey, ModelMessage]] = []
    for i, message in enumerate(shown):
        previous = shown[i - 1] if i else None
        key: CategoryKey
        if is_marker(message) or is_compact_ack(message, previous):
            key = "markers"
        elif is_pinned is not None and is_pinned(message):
            key = "pinned"
        else:
            key = "messages"
        out.append((key, message))
    return out


def compute_breakdown(
    messages: Sequence[ModelMessage],
    overhead: Sequence[OverheadPart],
    *,
    meter_tokens: int,
    overhead_tokens: int,
    ratio: float,
    budget_tokens: int,
    window_tokens: int,
    exactness: str = "estimated",
    window_is_guess: bool = False,
    is_pinned: Callable[[ModelMessage], bool] | None = None,
) -> ContextBreakdown:
    """The breakdown of a request holding `messages` and the fixed `overhead` parts (see the
    module docstring for how estimates are fitted to the meter).

    `meter_tokens`: the meter's figure for `messages`; `overhead_tokens`: the fixed part the meter
    assumes (used as the total when there are no messages); `ratio`: the meter's calibration.
    Rows: the overhead parts in their order (every one listed), then conversation messages,
    markers and summaries, pinned turns (a category with no message left out). Pure: the inputs
    are not changed.
    """
    from co_tui.governance.tokens import message_tokens

    classified = classify_messages(messages, is_pinned)
    message_keys: list[CategoryKey] = ["messages", "markers", "pinned"]
    counted = {key: 0 for key in message_keys}
    estimated = {key: 0.0 for key in message_keys}
    for key, message in classified:
        counted[key] += 1
        estimated[key] += ratio * message_tokens(message)
    present = [key for key in message_keys if counted[key]]
    target = meter_tokens if classified else overhead_tokens
    message_floats = [estimated[key] for key in present]
    share = target - sum(message_floats)
    overhead_estimate = sum(part.tokens for part in overhead)
    if share >= 0 or not message_floats:
        weights = [
            max(0.0, share) * (part.tokens / overhead_estimate if overhead_estimate else (1.0 if i == 0 else 0.0))
            for i, part in enumerate(overhead)
        ] + message_floats
    else:
        # The meter's figure is below the messages' estimate (a report smaller than expected):
        # every part shrinks alike.
        weights = [float(part.tokens) for part in overhead] + message_floats
    tokens = apportion(weights, target) if weights else []
    rows = [ContextRow(part.key, part.label, tokens[i], part.items) for i, part in enumerate(overhead)] + [
        ContextRow(key, CATEGORY_TITLES[key], tokens[len(overhead) + j], counted[key]) for j, key in enumerate(present)
    ]
    return ContextBreakdown(
        rows=tuple(rows),
        total_tokens=sum(row.tokens for row in rows),
        meter_tokens=meter_tokens,
        budget_tokens=budget_tokens,
        window_tokens=max(window_tokens, budget_tokens),
        exactness=exactness,
        window_is_guess=window_is_guess,
    )


def overhead_parts(
    own_instructions: str,
    instruction_files: Sequence[Any],
    tool_costs: Sequence[tuple[str, int, int]],
    memory_files: Sequence[Any] = (),
) -> list[OverheadPart]:
    """The fixed parts in request order: co-tui's instructions, one per project instructions file
    (loaded ones), one per memory file sent (`MemoryFile`s: its `block`, `items` its notes), one per
    tool source (`(source, schema tokens, tools)`)."""
    from co_tui.agent.project_instructions import instructions_block
    from co_tui.governance import estimate_text_tokens

    parts = [OverheadPart("instructions", "co-tui", estimate_text_tokens(own_instructions))]
    for file in instruction_files:
        if file.error is None and file.text.strip():
            parts.append(
                OverheadPart("project_instructions", file.label, estimate_text_tokens(instructions_block(file)))
            )
    for memory in memory_files:
        if memory.block is not None:
            parts.append(OverheadPart("memory", memory.label, estimate_text_tokens(memory.block), len(memory.entries)))
    for source, tokens, tools in tool_costs:
        parts.append(OverheadPart("tool_schemas", source, tokens, tools))
    return parts


__all__ = [
    "CATEGORY_TITLES",
    "ContextBreakdown",
    "ContextRow",
    "OverheadPart",
    "apportion",
    "classify_messages",
    "compute_breakdown",
    "overhead_parts",
]

"""`Gauge`: what a planner reads of a session besides its history — the meter, the limits, the
governor and the request's fixed overhead. Planners (`eviction.py`, `steering.py`, `recover.py`,
`compaction.py`) are pure over a `HistoryReader` and a `Gauge`; `ChatSession` builds one per operation.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from co_tui.governance.meter import TokenMeter
    from co_tui.governance.policy import Governor

__all__ = ["Gauge"]


@dataclass(frozen=True)
class Gauge:
    """`meter`: `reading(messages).tokens` is the figure the meter shows for `messages`; `governor`:
    the policy's own rules (`over_limits`, `target_tokens`, `pins`, `clock`); `budget_tokens` and
    `max_messages` (0: no limit); `overhead_tokens`: what every request carries besides the history."""

    meter: TokenMeter
    governor: Governor
    budget_tokens: int
    max_messages: int
    overhead_tokens: int

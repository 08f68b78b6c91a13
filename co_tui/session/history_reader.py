"""`HistoryReader`: the read-only face of a `History` (history.py) that planners are given.

A planner (eviction.py, steering.py, recover.py, compaction.py, branching.py, ask_cut.py) reads
the history and returns an `Edit`; it never changes it. Typing its argument as this protocol, not
the mutable `History`, makes mypy hold them to that: `commit`, `extend`, `set_context`, `load` are
not here. `History` satisfies it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from pydantic_ai.messages import ModelMessage

    from co_tui.governance.events import HistoryTrimmed
    from co_tui.governance.undo import CutRecord
    from co_tui.session.history import BranchInfo, BranchState, LedgerEntry, Mark

__all__ = ["HistoryReader"]


class HistoryReader(Protocol):
    """What a planner reads of a history (each member documented on `History`)."""

    @property
    def transcript(self) -> Sequence[ModelMessage]:
        """Every message that happened, oldest first."""
        ...

    @property
    def context(self) -> Sequence[ModelMessage]:
        """What the model is sent next."""
        ...

    @property
    def entries(self) -> Sequence[LedgerEntry]:
        """The ledger, oldest first."""
        ...

    @property
    def ledger(self) -> Sequence[HistoryTrimmed]:
        """The ledger's events, oldest first."""
        ...

    @property
    def ledger_positions(self) -> Sequence[int]:
        """For each ledger event, the transcript's length when it happened."""
        ...

    @property
    def ledger_records(self) -> Sequence[CutRecord]:
        """For each ledger event, what undoing it needs."""
        ...

    @property
    def pins(self) -> Sequence[int]:
        """Transcript indices of the pinned turns' prompts."""
        ...

    @property
    def marks(self) -> Sequence[Mark]:
        """What the model was about to be sent before each user prompt of this branch."""
        ...

    @property
    def branch(self) -> int:
        """The id of the branch in use."""
        ...

    @property
    def tree(self) -> Sequence[BranchInfo]:
        """Every branch of the conversation."""
        ...

    def stashed(self, branch: int) -> BranchState | None:
        """Branch `branch`'s history when kept in memory."""
        ...

    def state(self) -> BranchState:
        """The branch in use's history."""
        ...

    def cut_record(self, before: Sequence[ModelMessage] | None) -> CutRecord:
        """The `CutRecord` of a cut that started from `before`."""
        ...

    def cost(self, extra: Sequence[ModelMessage] = ()) -> float | None:
        """The session's cost in USD so far (None: unpriced)."""
        ...

"""`StoredTree`: what a session's store holds of its conversation tree, for the rewinds, branch
switches, forks and file rewinds of `BranchMoves` (branch_moves.py): marks kept only in the store,
other branches' histories and figures, file checkpoints, forks written as new sessions.

A session with no store (or not saved yet) has none of it: each read says so (None, or no rows),
and a fork is refused. Every method is blocking (called in a thread).
"""

from __future__ import annotations

import uuid
from typing import TYPE_CHECKING, Any

from co_tui.session.branching import BranchMoveRefused, BranchRow
from co_tui.session.history import BranchState, HistorySnapshot, LedgerEntry
from co_tui.session.session_saves import make_title

if TYPE_CHECKING:
    from co_tui.session.history import History
    from co_tui.session.session_saves import SessionSaves

__all__ = ["StoredTree"]


class StoredTree:
    """The conversation tree as `saves`' store keeps it, beside the in-memory `history`."""

    def __init__(self, saves: SessionSaves, history: History) -> None:
        self.saves, self.history = saves, history

    def unsaved_line(self) -> str | None:
        """Why the store lacks part of this branch (a failed save), else None: a rewind or switch
        then waits, as the branch left would be kept incomplete. None for a session not saved."""
        if not self.saves.created:
            return None
        return "the last save failed" if self.saves.unsaved() else None

    def mark_context(self, position: int) -> tuple[Any, ...] | None:
        """The context of the saved mark at `position` (None: none saved)."""
        store = self.saves.store
        if store is None or not self.saves.created:
            return None
        return store.mark_context(self.saves.conversation.id, position, self.history.transcript)

    def load_branch(self, branch: int) -> BranchState | None:
        """Branch `branch`'s history from the store (None: not saved)."""
        store = self.saves.store
        if store is None or not self.saves.created:
            return None
        loaded = store.load_branch(self.saves.conversation.id, branch)
        from co_tui.governance.markers import register_markers
        from co_tui.governance.undo import CutRecord

        register_markers(loaded.context)
        records = list(loaded.ledger_records) or [CutRecord() for _ in loaded.ledger]
        entries = tuple(
            LedgerEntry(event, position, record)
            for event, position, record in zip(loaded.ledger, loaded.ledger_positions, records, strict=False)
        )
        return BranchState(loaded.transcript, tuple(loaded.context), entries, tuple(loaded.pins), tuple(loaded.marks))

    def checkpoint_rows(self) -> list[tuple[int, int, Any]]:
        """(branch, transcript length then, checkpoint) of every file edit kept (none: no store)."""
        store = self.saves.store
        return [] if store is None else store.branch_file_checkpoints(self.saves.conversation.id)

    def stored_branches(self) -> dict[int, BranchRow] | None:
        """The store's rows of the branches this process does not hold (None: not saved)."""
        store = self.saves.store
        if store is None or not self.saves.created:
            return None
        figures = store.branch_figures(self.saves.conversation.id)
        tree = {b.id: b for b in self.history.tree}
        return {
            branch: BranchRow(tree[branch], False, turns, preview, updated)
            for branch, (turns, updated, preview) in figures.items()
            if branch in tree
        }

    def write_fork(self, state: BranchState | None, turns: int, title: str) -> str:
        """Save `state` (None: the branch in use, as saved) as a new session forked from this one
        after `turns` turns; its id. Raises `BranchMoveRefused` when nothing is saved to fork."""
        store, conversation = self.saves.store, self.saves.conversation
        if store is None or not self.saves.created:
            raise BranchMoveRefused("nothing saved to fork yet: send a message first")
        if state is None:  # the branch as it is: saved (a rewind or fork waits for a failed save), copied row for row
            return store.fork_whole(conversation.id, title)
        new_id = uuid.uuid4().hex
        store.fork_session(
            conversation.id,
            new_id,
            transcript_len=len(state.transcript),
            ledger_len=len(state.entries),
            turns=turns,
            title=make_title(title),
        )
        snapshot = HistorySnapshot(
            state.transcript, len(state.transcript), state.context, state.entries, state.pins, state.marks
        )
        tokens = conversation.meter.reading(state.context).tokens
        store.save_history(new_id, snapshot, model=conversation.model_name, tokens=tokens)
        return new_id

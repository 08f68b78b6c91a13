"""`BranchMoves`: a session's moves in its conversation tree — rewind, branch switch, fork — and
putting back the files the agent edited (docs/context-governance.md, "Rewind and branches").

Each move is planned by a pure planner (branching.py) and applied by the session's `EditApplier`
like any edit; what only the store has (marks, other branches, file checkpoints, forks) comes from
the `StoredTree`. The meter follows the branch: the one of a branch left is kept for when it comes
back (in this process), and one for the target is anchored as a resume of it would be.
"""

from __future__ import annotations

import asyncio
import copy
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from co_tui.governance.refused import Refused
from co_tui.session import file_rewind
from co_tui.session.branching import (
    BranchMoveRefused,
    BranchRow,
    RewindPoint,
    Rewound,
    branch_rows,
    plan_rewind,
    plan_switch,
    prefix,
    rewind_points,
)
from co_tui.session.file_rewind import FilesBack, files_back
from co_tui.session.history import BranchState, Mark
from co_tui.session.metering import anchor_meter
from co_tui.session.wording import busy_line

if TYPE_CHECKING:
    from co_tui.governance.events import HistoryTrimmed
    from co_tui.governance.meter import TokenMeter
    from co_tui.session.agent_binding import AgentBinding
    from co_tui.session.applying import EditApplier
    from co_tui.session.stored_tree import StoredTree

__all__ = ["BranchMoves"]


class BranchMoves:
    """The tree moves of one session (module docstring): `binding` holds the meter that follows
    the branch; `busy()` refuses a move while a turn runs; `title()` names a fork."""

    def __init__(
        self,
        applier: EditApplier,
        stored: StoredTree,
        binding: AgentBinding,
        *,
        busy: Callable[[], bool],
        title: Callable[[], str],
        workspace: Path,
    ) -> None:
        self.applier, self.stored, self.binding = applier, stored, binding
        self.history = applier.history
        self._busy, self._title, self.workspace = busy, title, workspace
        self._meters: dict[int, TokenMeter] = {}  # the meters of the branches left in this process

    def rewind_points(self) -> list[RewindPoint]:
        """The earlier prompts of the branch in use, newest first (`branching.rewind_points`).
        Blocking: a resumed session's saved prompts are decoded."""
        return rewind_points(self.history)

    def branches(self) -> list[BranchRow]:
        """The conversation tree, one row per branch (`branching.branch_rows`). Blocking."""
        return branch_rows(self.history, self.stored.stored_branches())

    async def rewind(self, position: int) -> Rewound:
        """Go back to just before the prompt at transcript index `position`, on a new branch
        (`branching.plan_rewind`). Raises `BranchMoveRefused` (a `Refused`)."""
        await self._may_move("rewinding")
        mark = await self._mark_at(position, "rewound to")
        history = self.history
        assert mark.context is not None
        state = BranchState((), mark.context, tuple(history.entries[: mark.ledger_len]), mark.pins, ())
        meter = self._meter_for(replace(state, transcript=prefix(history.transcript, position)), mark.meter)
        tokens = int(meter.reading(state.context).tokens)
        left = history.branch
        applied = await self.applier.steer(
            "rewinding",
            lambda history, gauge: plan_rewind(history, gauge, mark, created=time.time(), tokens_after=tokens),
        )
        self._moved(left, meter)
        return Rewound(applied.trim, applied.result)

    async def switch_branch(self, branch: int) -> HistoryTrimmed:
        """Make branch `branch` the one in use, its history exactly as it was left
        (`branching.plan_switch`). Raises `BranchMoveRefused`."""
        await self._may_move("switching branches")
        if branch == self.history.branch:
            raise BranchMoveRefused(f"branch {branch} is the one in use")
        state = self.history.stashed(branch)
        if state is None:
            if branch not in {b.id for b in self.history.tree}:
                raise BranchMoveRefused(f"there is no branch {branch}")
            state = await asyncio.to_thread(self.stored.load_branch, branch)
            if state is None:
                raise BranchMoveRefused(f"branch {branch} is not in memory and the session is not saved")
        target, left = state, self.history.branch
        meter = self._meter_for(target, self._meters.get(branch))
        tokens = int(meter.reading(target.context).tokens)
        applied = await self.applier.steer(
            "switching branches",
            lambda history, gauge: plan_switch(history, gauge, branch, target, tokens_after=tokens),
        )
        self._moved(left, meter)
        return applied.trim

    def _meter_for(self, state: BranchState, kept: TokenMeter | None) -> TokenMeter:
        """The meter once `state` is the history in use: a copy of `kept` (the meter as it was then,
        for the same model), else one anchored as a resume of that branch would be."""
        if kept is not None and kept.model_name == self.binding.meter.model_name:
            return copy.copy(kept)
        meter = self.binding.new_meter()
        anchor_meter(meter, state.context, [e.position for e in state.entries], state.transcript)
        return meter

    def _moved(self, left: int, meter: TokenMeter) -> None:
        """The history is another branch's now: keep the meter of the branch left (not of a dropped
        one: its id may be reused) and use `meter`."""
        if any(b.id == left for b in self.history.tree):
            self._meters[left] = self.binding.meter
        else:
            self._meters.pop(left, None)
        self.binding.meter = meter

    # --- files the agent edited (file_rewind.py) ------------------------------------------------

    def files_back(self, position: int) -> FilesBack:
        """What a rewind to the prompt at `position` could put back of the files the agent edited
        after it (`file_rewind.FilesBack`). Blocking (reads the store and the files)."""
        history = self.history
        return files_back(self.stored.checkpoint_rows(), history.tree, history.branch, position, self.workspace)

    async def put_files_back(self, position: int, *, overwrite: bool = False) -> str:
        """Put the files the agent edited after the prompt at `position` back as they were before it
        (`file_rewind.put_files_back`). Returns one line. Raises `Refused` while a turn runs."""
        if self._busy():
            raise Refused(busy_line("putting files back"))
        rows = await asyncio.to_thread(self.stored.checkpoint_rows)
        tree, branch = tuple(self.history.tree), self.history.branch
        return await asyncio.to_thread(
            file_rewind.put_files_back, rows, tree, branch, position, self.workspace, overwrite=overwrite
        )

    # --- forks -----------------------------------------------------------------------------------

    async def fork(self, position: int | None = None, title: str | None = None) -> str:
        """A new saved session holding this branch as it is now (`position` None), or as it was just
        before the prompt at transcript index `position`. Returns its id; raises `Refused`."""
        await self._may_move("forking")
        history = self.history
        own = self._title()
        name = title or (f"fork of {own}" if own else "fork")
        if position is None:
            return await asyncio.to_thread(self.stored.write_fork, None, 0, name)
        mark = await self._mark_at(position, "forked from")
        assert mark.context is not None
        state = BranchState(
            prefix(history.transcript, position),
            mark.context,
            tuple(history.entries[: mark.ledger_len]),
            mark.pins,
            tuple(m for m in history.marks if m.position < position),
        )
        turns = sum(1 for p in await asyncio.to_thread(self.rewind_points) if p.position < position)
        return await asyncio.to_thread(self.stored.write_fork, state, turns, name)

    async def _mark_at(self, position: int, done: str) -> Mark:
        """The mark of the prompt at `position` with its context (read from the store when only it
        has it). Raises `BranchMoveRefused` for a prompt saved before marks were kept (`done`: "rewound to")."""
        mark = next((m for m in self.history.marks if m.position == position), None)
        if mark is None:
            raise BranchMoveRefused(
                f"that prompt was saved before co-tui kept what the model saw before each prompt: it cannot be {done}"
            )
        if mark.context is None:
            context = await asyncio.to_thread(self.stored.mark_context, position)
            if context is None:
                raise BranchMoveRefused("what the model saw before that prompt is not in the session database")
            mark = replace(mark, context=context)
        return mark

    async def _may_move(self, doing: str) -> None:
        if self._busy():
            raise Refused(busy_line(doing))
        line = await asyncio.to_thread(self.stored.unsaved_line)  # asks the store: off the event loop
        if line is not None:
            raise BranchMoveRefused(f"wait until the conversation is saved before {doing}: {line}")

"""`AppliesEdits`: the steering operations of a session, each a pure planner's `Edit` applied in one
place — shared by `ChatSession` and the tests' fake, which differ only in how they save. Rewinds
and branch switches (`branching.py`) are planned and applied the same way; what only a saved
session has (marks kept in the store, other branches' rows, file checkpoints, forks) it gives
through small hooks (`_mark_context`, `_load_branch`, `_checkpoint_rows`, `_write_fork`).

`_apply` commits the edit to the `History` on the event loop, then saves in a thread (`_write`).
A failed save undoes nothing in memory: the operation's own line says it (its event's note, a
`PinChange`'s `note`: "kept in memory, not saved"), and the session's `unsaved()` stays true until
a save succeeds, so the rescue copy keeps it. A refusal raises `Refused` with one line, before
anything changes.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from co_tui.governance.events import HistoryTrimmed
from co_tui.governance.refused import Refused, busy_line
from co_tui.session import file_rewind
from co_tui.session.branching import (
    BranchRow,
    RewindPoint,
    RewindRefused,
    Rewound,
    branch_rows,
    plan_rewind,
    plan_switch,
    prefix,
    rewind_points,
)
from co_tui.session.compaction import clear_preview_of
from co_tui.session.eviction import plan_evict
from co_tui.session.file_rewind import FilesBack, files_back
from co_tui.session.history import BranchState, Edit, History, HistorySnapshot, HistoryViews, Mark
from co_tui.session.recover import plan_recover
from co_tui.session.steering import plan_pin_newest, plan_toggle_pin, plan_undo

if TYPE_CHECKING:
    from co_tui.session.gauge import Gauge
    from co_tui.session.pin_change import PinChange

__all__ = ["KEPT_IN_MEMORY", "Applied", "AppliesEdits"]

# Said after a failed save: true in the TUI, which keeps the change; not for a one-shot session
# (print mode exits after its turn: its rescue copy keeps it).
KEPT_IN_MEMORY = " (kept in memory, not saved)"


@dataclass(frozen=True)
class Applied:
    """An edit as applied: its event as recorded, the planner's `result`, and `note`, the line a
    failed save left (None: saved)."""

    event: HistoryTrimmed | None
    result: Any = None
    note: str | None = None

    @property
    def trim(self) -> HistoryTrimmed:
        """The event of an edit that records one."""
        assert self.event is not None
        return self.event


class AppliesEdits(HistoryViews):
    """The steering operations over `history` (see module docstring). A subclass gives `id`,
    `busy`, `one_shot`, `gauge()` and `_write` (the save), and may hear of new pins (`_pins_changed`)."""

    id: str
    title: str
    busy: bool
    one_shot: bool = False

    def gauge(self) -> Gauge:
        """What the planners read of the session besides its history."""
        raise NotImplementedError

    def _write(self, snapshot: HistorySnapshot) -> str | None:
        """Save `snapshot`; the store's one line when it failed. Blocking (called in a thread)."""
        raise NotImplementedError

    def _pins_changed(self) -> None:
        """The pinned turns changed (the real session tells its governance)."""

    def _unsaved_line(self) -> str | None:
        """Why the store lacks part of this branch (a failed save), else None: a rewind or switch
        then waits, as the branch left would be kept incomplete. None for a session not saved."""
        return None

    def _mark_context(self, position: int) -> tuple[Any, ...] | None:
        """The context of the saved mark at `position` (None: none saved). Blocking."""
        return None

    def _load_branch(self, branch: int) -> BranchState | None:
        """Branch `branch`'s history from the store (None: no store). Blocking."""
        return None

    def _tokens_after(self, state: BranchState, meter: Any = None) -> int:
        """The meter's figure for `state`'s context once it is the one in use; `meter`: the meter as
        it was then, when this process kept a copy."""
        return int(self.gauge().meter.reading(state.context).tokens)

    def _meter_of(self, branch: int) -> Any:
        """The meter branch `branch` had when this process left it (None: not kept)."""
        return None

    def _branch_moved(self, left: int) -> None:
        """The history became another branch's, branch `left` was left (the real session swaps its
        meter, tells its governance)."""
        self._pins_changed()

    def _not_saved(self, error: str) -> str:
        """A failed save's line: the store's words, and, where the process keeps it, that it is kept."""
        return f"{error}{'' if self.one_shot else KEPT_IN_MEMORY}"

    async def _steer(self, doing: str, plan: Callable[[History, Gauge], Edit]) -> Applied:
        """Plan an edit (`plan` raises `Refused` with one line) and apply it. `doing`: the operation
        as the busy refusal names it."""
        if self.busy:
            raise Refused(busy_line(doing))
        return await self._apply(plan(self.history, self.gauge()))

    async def _apply(self, edit: Edit) -> Applied:
        """The one way an edit is applied (see module docstring)."""
        if edit.event is None and edit.context is None and edit.pins is None:
            return Applied(None, edit.result)  # nothing changes (a turn already pinned)
        trim = self.history.commit(edit, session_id=self.id)
        if edit.pins is not None:
            self._pins_changed()
        error = await asyncio.to_thread(self._write, self.history.snapshot())
        note = None if error is None else self._not_saved(error)
        if note is not None and trim is not None:
            trim = self.history.add_note(trim, note)
        return Applied(trim, edit.result, note)

    async def evict(self, index: int) -> HistoryTrimmed:
        """Remove context message `index`'s tool output, or its whole older turn, from the context
        (never the transcript): `eviction.plan_evict`. Raises `EvictRefused` (a `Refused`)."""
        return (await self._steer("evicting", lambda history, gauge: plan_evict(history, gauge, index))).trim

    async def undo(self, cut: int | None = None) -> HistoryTrimmed:
        """`/undo`, `u`: undo the newest cut still in effect (or ledger entry `cut`, 0-based, and every
        cut after it): `steering.plan_undo`. Returns the `restore` event; raises `UndoRefused`."""
        return (await self._steer("undoing a cut", lambda history, gauge: plan_undo(history, gauge, cut))).trim

    async def recover(self, item: str, cut: int | None = None) -> HistoryTrimmed:
        """`r` on a summary banner: append a verbatim excerpt around `item`, which ledger entry `cut`'s
        summary lost, to the end of the context (`recover.plan_recover`). Raises `RecoverRefused`."""
        return (
            await self._steer("recovering an item", lambda history, gauge: plan_recover(history, gauge, item, cut))
        ).trim

    async def toggle_pin(self, index: int) -> PinChange:
        """`p`: pin (again: unpin) the turn holding transcript message `index`. Returns a
        `PinChange`; raises `PinRefused` with one line."""
        return await self._pin(lambda history, gauge: plan_toggle_pin(history, gauge, index))

    async def pin_newest(self) -> PinChange:
        """`/pin`: pin the newest turn. Returns a `PinChange`; raises `PinRefused` with one line."""
        return await self._pin(plan_pin_newest)

    async def _pin(self, plan: Callable[[History, Gauge], Edit]) -> PinChange:
        applied = await self._steer("pinning", plan)
        change: PinChange = applied.result
        return replace(change, note=applied.note) if applied.note else change

    # --- the conversation tree (branching.py) ------------------------------------------------------

    def rewind_points(self) -> list[RewindPoint]:
        """The earlier prompts of the branch in use, newest first (`branching.rewind_points`).
        Blocking: a resumed session's saved prompts are decoded."""
        return rewind_points(self.history)

    def branches(self) -> list[BranchRow]:
        """The conversation tree, one row per branch (`branching.branch_rows`). Blocking."""
        return branch_rows(self.history, self._stored_branches())

    def _stored_branches(self) -> dict[int, BranchRow] | None:
        return None

    async def rewind(self, position: int) -> Rewound:
        """Esc Esc, `/rewind`: go back to just before the prompt at transcript index `position`, on a
        new branch (the turns after it stay, as the branch left); `branching.plan_rewind`. Returns
        the `rewind` event and the prompt's text. Raises `RewindRefused` (a `Refused`)."""
        await self._may_move("rewinding")
        mark = await self._mark_at(position, "rewound to")
        history = self.history
        assert mark.context is not None
        state = BranchState((), mark.context, tuple(history.entries[: mark.ledger_len]), mark.pins, ())
        tokens = self._tokens_after(replace(state, transcript=prefix(history.transcript, position)), mark.meter)
        left = history.branch
        applied = await self._steer(
            "rewinding",
            lambda history, gauge: plan_rewind(history, gauge, mark, created=time.time(), tokens_after=tokens),
        )
        self._branch_moved(left)
        return Rewound(applied.trim, applied.result)

    async def switch_branch(self, branch: int) -> HistoryTrimmed:
        """`/branches` Enter: make branch `branch` the one in use, its history exactly as it was left
        (`branching.plan_switch`). Returns the `branch_switch` event; raises `RewindRefused`."""
        await self._may_move("switching branches")
        if branch == self.history.branch:
            raise RewindRefused(f"branch {branch} is the one in use")
        state = self.history.stashed(branch)
        if state is None:
            if branch not in {b.id for b in self.history.tree}:
                raise RewindRefused(f"there is no branch {branch}")
            state = await asyncio.to_thread(self._load_branch, branch)
            if state is None:
                raise RewindRefused(f"branch {branch} is not in memory and the session is not saved")
        target, left = state, self.history.branch
        tokens = self._tokens_after(target, self._meter_of(branch))
        applied = await self._steer(
            "switching branches",
            lambda history, gauge: plan_switch(history, gauge, branch, target, tokens_after=tokens),
        )
        self._branch_moved(left)
        return applied.trim

    # --- files the agent edited (file_rewind.py) ------------------------------------------------

    def _checkpoint_rows(self) -> list[tuple[int, int, Any]]:
        """(branch, transcript length then, checkpoint) of every file edit kept (none: no store). Blocking."""
        return []

    def _workspace_root(self) -> Path:
        return Path.cwd()

    def files_back(self, position: int) -> FilesBack:
        """What a rewind to the prompt at `position` could put back of the files the agent edited
        after it (`file_rewind.FilesBack`). Blocking (reads the store and the files)."""
        return files_back(
            self._checkpoint_rows(), self.history.tree, self.history.branch, position, self._workspace_root()
        )

    async def put_files_back(self, position: int, *, overwrite: bool = False) -> str:
        """Put the files the agent edited after the prompt at `position` back as they were before it
        (`file_rewind.put_files_back`; a file changed since stays as it is unless `overwrite`).
        Returns one line. Raises `Refused` while a turn runs."""
        if self.busy:
            raise Refused(busy_line("putting files back"))
        rows = await asyncio.to_thread(self._checkpoint_rows)
        tree, branch = tuple(self.history.tree), self.history.branch
        return await asyncio.to_thread(
            file_rewind.put_files_back, rows, tree, branch, position, self._workspace_root(), overwrite=overwrite
        )

    # --- forks -----------------------------------------------------------------------------------

    def _write_fork(self, state: BranchState | None, turns: int, title: str) -> str:
        """Save `state` (None: the branch in use, as saved) as a new session forked from this one
        after `turns` turns; its id. Blocking."""
        raise RewindRefused("this conversation is not saved: there is nothing to fork")

    async def fork(self, position: int | None = None, title: str | None = None) -> str:
        """`/fork [title]`, `f` in the rewind picker, `--fork-session`: a new saved session holding this
        branch as it is now (`position` None), or as it was just before the prompt at transcript
        index `position` — its context exactly as the model had it then. This session is not changed.
        Returns the new session's id. Raises `Refused` (one line): busy, unsaved, not saved at all."""
        await self._may_move("forking")
        history = self.history
        name = title or (f"fork of {self.title}" if self.title else "fork")
        if position is None:
            return await asyncio.to_thread(self._write_fork, None, 0, name)
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
        return await asyncio.to_thread(self._write_fork, state, turns, name)

    async def _mark_at(self, position: int, done: str) -> Mark:
        """The mark of the prompt at `position` with its context (read from the store when only it
        has it). Raises `RewindRefused` for a prompt saved before marks were kept (`done`: "rewound to")."""
        mark = next((m for m in self.history.marks if m.position == position), None)
        if mark is None:
            raise RewindRefused(
                f"that prompt was saved before co-tui kept what the model saw before each prompt: it cannot be {done}"
            )
        if mark.context is None:
            context = await asyncio.to_thread(self._mark_context, position)
            if context is None:
                raise RewindRefused("what the model saw before that prompt is not in the session database")
            mark = replace(mark, context=context)
        return mark

    async def _may_move(self, doing: str) -> None:
        if self.busy:
            raise Refused(busy_line(doing))
        line = await asyncio.to_thread(self._unsaved_line)  # asks the store: off the event loop
        if line is not None:
            raise RewindRefused(f"wait until the conversation is saved before {doing}: {line}")

    def clear_preview(self) -> HistoryTrimmed:
        """The event `/clear` would emit now: what the confirmation dialog shows, so the dialog and
        the banner after it give the same figures (one computation feeds both)."""
        return clear_preview_of(self.history, self.gauge())

"""`AppliesEdits`: the steering operations of a session, each a pure planner's `Edit` applied in one
place — shared by `ChatSession` and the tests' fake, which differ only in how they save.

`_apply` commits the edit to the `History` on the event loop, then saves in a thread (`_write`).
A failed save undoes nothing in memory: the operation's own line says it (its event's note, a
`PinChange`'s `note`: "kept in memory, not saved"), and the session's `unsaved()` stays true until
a save succeeds, so the rescue copy keeps it. A refusal raises `Refused` with one line, before
anything changes.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from co_tui.governance.events import HistoryTrimmed
from co_tui.governance.refused import Refused, busy_line
from co_tui.session.compaction import clear_preview_of
from co_tui.session.eviction import plan_evict
from co_tui.session.history import Edit, History, HistorySnapshot, HistoryViews
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

    def clear_preview(self) -> HistoryTrimmed:
        """The event `/clear` would emit now: what the confirmation dialog shows, so the dialog and
        the banner after it give the same figures (one computation feeds both)."""
        return clear_preview_of(self.history, self.gauge())

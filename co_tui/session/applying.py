"""`EditApplier`: the one path by which a conversation's context changes.

Every change — a steering operation's planned `Edit` (evict, undo, recover, pin, `/compact`, a
rewind, a branch switch), a cut the governance capability makes inside a turn (`TurnRunner`), and
`/clear`'s reset — reaches the `History` through `commit`, here and nowhere else:

- `commit(edit)`: on the event loop, the edit is committed to the history (its event recorded in
  the ledger, stamped with the session id), and the governance is told when the pins or the whole
  history changed. No save: a turn saves at its steps and its end, and `/clear` saved before.
- `apply(edit)`: `commit`, then a save in a thread (`EditSaves.write`). A failed save undoes
  nothing in memory: the operation's own line says it (its event's note, a `PinChange`'s `note`:
  "kept in memory, not saved"), and the session's `unsaved()` stays true until a save succeeds,
  so the rescue copy keeps it.
- `steer(doing, plan)`: refuse while a turn runs (`Refused`, one line, before anything changes),
  plan over the read-only history and the gauge, `apply` (`steer_pin`: a pin's, its `PinChange`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

from co_tui.governance.refused import Refused
from co_tui.session.session_saves import KEPT_IN_MEMORY  # the failed save's words, said by `EditSaves`
from co_tui.session.wording import busy_line

if TYPE_CHECKING:
    from co_tui.governance.events import HistoryTrimmed
    from co_tui.session.gauge import Gauge
    from co_tui.session.history import Edit, History
    from co_tui.session.history_reader import HistoryReader
    from co_tui.session.persistence import EditSaves
    from co_tui.session.pin_change import PinChange

__all__ = ["KEPT_IN_MEMORY", "Applied", "EditApplier", "Plan"]

Plan = Callable[["HistoryReader", "Gauge"], "Edit"]
"""A planner bound to its arguments: pure over the history and the gauge; raises `Refused`."""


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


class EditApplier:
    """Applies the edits of one conversation's `history` (see module docstring).

    `session_id()` stamps the recorded events; `saves` keeps the history after an `apply`;
    `busy()` says a turn runs (a `steer` is refused then); `gauge()` is what planners read besides
    the history; `pins_changed()` is told when the pinned turns may have changed (a pin, a branch
    move, a reset): the session tells its governance.
    """

    def __init__(
        self,
        history: History,
        saves: EditSaves,
        *,
        session_id: Callable[[], str],
        busy: Callable[[], bool],
        gauge: Callable[[], Gauge],
        pins_changed: Callable[[], None] = lambda: None,
    ) -> None:
        self.history, self.saves = history, saves
        self._session_id, self._busy, self._gauge, self._pins_changed = session_id, busy, gauge, pins_changed

    def commit(self, edit: Edit) -> HistoryTrimmed | None:
        """Commit `edit` to the history, unsaved; its event as recorded (None: it has none)."""
        trim = self.history.commit(edit, session_id=self._session_id())
        if edit.pins is not None or edit.branch is not None or edit.reset:
            self._pins_changed()
        return trim

    async def apply(self, edit: Edit) -> Applied:
        """Commit `edit` and save (see module docstring)."""
        if edit.event is None and edit.context is None and edit.pins is None and edit.branch is None:
            return Applied(None, edit.result)  # nothing changes (a turn already pinned)
        trim = self.commit(edit)
        error = await asyncio.to_thread(self.saves.write, self.history.snapshot())
        note = None if error is None else self.saves.not_saved(error)
        if note is not None and trim is not None:
            trim = self.history.add_note(trim, note)
        return Applied(trim, edit.result, note)

    async def steer(self, doing: str, plan: Plan) -> Applied:
        """Plan an edit (`plan` raises `Refused` with one line) and apply it. `doing`: the operation
        as the busy refusal names it."""
        if self._busy():
            raise Refused(busy_line(doing))
        return await self.apply(plan(self.history, self._gauge()))

    async def steer_pin(self, plan: Plan) -> PinChange:
        """`steer` a pin planner (its result is a `PinChange`): the change, with the line a failed save left."""
        applied = await self.steer("pinning", plan)
        return cast("PinChange", applied.result).noted(applied.note)

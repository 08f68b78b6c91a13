"""`/clear`: an empty context and transcript under a fresh session id; the old session stays saved.

No ledger records it: the old session's context is not changed (it resumes whole) and the new one
never held what went, so either record would be false (docs/context-governance.md, "/compact and
/clear"). The reset itself is an `Edit` applied by the session's `EditApplier` like any other.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from typing import TYPE_CHECKING

from co_tui.governance.refused import Refused
from co_tui.governance.undo import UndoRefused
from co_tui.session.compaction import plan_clear_preview
from co_tui.session.history import Edit
from co_tui.session.wording import busy_line

if TYPE_CHECKING:
    from co_tui.governance.events import HistoryTrimmed
    from co_tui.session.agent_binding import AgentBinding
    from co_tui.session.applying import EditApplier
    from co_tui.session.busy import Busy
    from co_tui.session.gauge import Gauge
    from co_tui.session.session_saves import SessionSaves

__all__ = ["Clearing", "clear_conversation", "cleared_line"]


class Clearing:
    """`/clear` for one session: the event it would emit, clearing, and what `/undo` says after it.
    Holds `left`: the (id, title) of the conversation the newest /clear left (None: none yet)."""

    def __init__(
        self, saves: SessionSaves, edits: EditApplier, binding: AgentBinding, busy: Busy, gauge: Callable[[], Gauge]
    ) -> None:
        self._saves, self._edits, self._binding, self._busy, self._gauge = saves, edits, binding, busy, gauge
        self.left: tuple[str, str] | None = None

    def preview(self) -> HistoryTrimmed:
        """The event `/clear` would emit now: the dialog and the banner give the same figures."""
        return plan_clear_preview(self._saves.history, self._gauge())

    async def clear(self) -> HistoryTrimmed:
        """Clear the conversation (`clear_conversation`); remember the one left, if it held anything."""
        conversation = self._saves.conversation
        old = (conversation.id, conversation.title) if self._saves.history.transcript else None
        trim = await clear_conversation(self._saves, self._edits, self._binding, self._busy, self.preview())
        self.left = old or self.left
        return trim

    @contextmanager
    def explaining_undo(self, cut: int | None) -> Iterator[None]:
        """Around `/undo`: a refused plain `/undo` after a /clear with no cut since says a clear is not
        undone and where the old conversation is (`cleared_line`) instead of "nothing to undo"."""
        try:
            yield
        except UndoRefused:
            if cut is None and not self._saves.history.ledger and self.left is not None:
                raise UndoRefused(cleared_line(*self.left)) from None
            raise


def cleared_line(session_id: str, title: str) -> str:
    """What `/undo` says after a /clear with no cut since: a clear is not undone, and where the
    conversation before it is (saved under its own id and title; `/sessions` opens it)."""
    return (
        f"nothing to undo: a /clear is not undone. The conversation before it is saved as "
        f"“{title or 'untitled'}” ({session_id[:8]}): /sessions opens it"
    )


async def clear_conversation(
    saves: SessionSaves, edits: EditApplier, binding: AgentBinding, busy: Busy, preview: HistoryTrimmed
) -> HistoryTrimmed:
    """Clear `saves`' conversation: save it first (in a thread; failing that, write a rescue copy
    the banner names; failing both, nothing is cleared: `Refused`), then give it a new id and no
    title, reset its history, re-read the instruction files and meter from nothing. Returns
    `preview` (the `clear` event the dialog showed) with the old id. Refused while `busy`."""
    if busy.running:
        raise Refused(busy_line("clearing"))
    busy.running = True
    conversation = saves.conversation
    try:
        trim = replace(preview, session_id=conversation.id)
        snapshot = saves.history.snapshot()
        error = await asyncio.to_thread(saves.write, snapshot)
        if error is not None:
            rescued = await asyncio.to_thread(saves.write_rescue_copy, snapshot)
            if rescued is None:
                raise Refused(
                    f"nothing was cleared: the conversation could not be saved ({error}), nor written to a rescue copy"
                )
            trim = replace(trim, note=f"{trim.note}; not saved ({error}): the old conversation is in {rescued}")
        saves.start_new()
        conversation.id, conversation.title = uuid.uuid4().hex, ""
        edits.commit(Edit(reset=True))
        # A fresh start reads the instruction files again, and meters from nothing.
        await asyncio.to_thread(binding.resources.reload_instructions)
        binding.meter = binding.new_meter()
    finally:
        busy.running = False
    return trim

"""`EditApplier`, the one apply path (session/applying.py), on a real `History`: `commit` records
without saving, `apply` saves and says a failed save in the event's note, `steer` refuses while
busy before anything changes, and a reset or a pin tells the governance."""

from __future__ import annotations

import pytest
from support.builders import chat_turn

from co_tui.governance.events import HistoryTrimmed
from co_tui.governance.refused import Refused
from co_tui.session.applying import EditApplier
from co_tui.session.history import Edit, History, HistorySnapshot
from co_tui.session.persistence import NoStore

CUT = HistoryTrimmed(reason="manual_compact", strategy="compact", dropped_messages=2)


class Saves:
    """An `EditSaves` that records each save and fails with `error` (None: succeeds)."""

    def __init__(self, error: str | None = None) -> None:
        self.error = error
        self.saved: list[HistorySnapshot] = []

    def write(self, snapshot: HistorySnapshot) -> str | None:
        self.saved.append(snapshot)
        return self.error

    def not_saved(self, error: str) -> str:
        return f"{error} (kept)"


def applier(history: History, saves: object, *, busy: bool = False, told: list[str] | None = None) -> EditApplier:
    return EditApplier(
        history,
        saves,  # type: ignore[arg-type]
        session_id=lambda: "s1",
        busy=lambda: busy,
        gauge=lambda: None,  # type: ignore[arg-type, return-value]
        pins_changed=lambda: (told if told is not None else []).append("pins"),
    )


def a_history() -> History:
    return History(chat_turn("one", "1") + chat_turn("two", "2"), chat_turn("one", "1") + chat_turn("two", "2"))


def test_commit_records_the_event_stamped_and_saves_nothing() -> None:
    history, saves = a_history(), Saves()
    trim = applier(history, saves).commit(Edit(event=CUT, context=chat_turn("two", "2")))
    assert trim is not None and trim.session_id == "s1" and history.ledger == [trim]
    assert len(history.context) == 2 and saves.saved == []


@pytest.mark.parametrize(("error", "note"), [(None, None), ("disk full", "disk full (kept)")])
async def test_apply_saves_once_and_a_failed_save_is_said_in_the_note(error: str | None, note: str | None) -> None:
    history, saves = a_history(), Saves(error)
    applied = await applier(history, saves).apply(Edit(event=CUT, context=chat_turn("two", "2")))
    assert len(saves.saved) == 1 and len(saves.saved[0].context) == 2
    assert applied.note == note and applied.trim.note == note and history.ledger[-1].note == note


async def test_an_edit_that_changes_nothing_is_not_saved() -> None:
    history, saves = a_history(), Saves()
    applied = await applier(history, saves).apply(Edit(result="already pinned"))
    assert (applied.event, applied.result, saves.saved) == (None, "already pinned", [])


async def test_steer_refuses_while_busy_before_planning() -> None:
    history, planned = a_history(), []
    with pytest.raises(Refused, match="^evicting: a turn is running"):
        await applier(history, NoStore(), busy=True).steer("evicting", lambda h, g: planned.append(h) or Edit())
    assert planned == [] and history.ledger == []


@pytest.mark.parametrize(
    ("edit", "told"),
    [(Edit(pins=[0]), ["pins"]), (Edit(reset=True), ["pins"]), (Edit(event=CUT), [])],
)
def test_the_governance_hears_of_pins_and_resets(edit: Edit, told: list[str]) -> None:
    history, heard = a_history(), []
    applier(history, NoStore(), told=heard).commit(edit)
    assert heard == told
    if edit.reset:
        assert (list(history.transcript), list(history.context), history.ledger) == ([], [], [])

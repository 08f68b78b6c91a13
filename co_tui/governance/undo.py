"""Undo a cut: the context as it was before a cut, rebuilt from the transcript and the ledger.

Every cut (a policy pass, an overflow recovery, `/compact`) keeps `before`: the context it started
from. Undoing ledger entry k gives `before(k)` followed by every transcript message from the cut's
position on — the originals, verbatim — so the model sees what it saw then plus everything since,
and the markers of every cut from k on are gone (docs/context-governance.md, "Undo a cut").

The events of one pass share one `before` (the same tuple object): undoing any of them undoes the
pass. A restore undoes every cut from its target on; repeated undos walk back through the ledger.
Pure: nothing here mutates its inputs.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from pydantic_ai.messages import ModelMessage

from co_tui.governance.events import HistoryTrimmed
from co_tui.governance.markers import is_marker
from co_tui.governance.refused import Refused

__all__ = [
    "CutRecord",
    "UndoRefused",
    "undoable_cuts",
    "pass_start",
    "pass_span",
    "span_label",
    "undo_target",
    "undone_context",
    "undo_event",
    "cut_position",
]

# Ledger reasons that are not cuts of a live context (a /clear starts a new session; a restore is
# itself an undo): never undone.
_NOT_CUTS = frozenset({"clear", "restore"})


@dataclass(frozen=True)
class CutRecord:
    """What undoing one ledger entry needs.

    `before`: the context before the pass that made the entry (shared by the pass's entries), None
    when there is none (a clear, a restore, a cut saved before co-tui kept it). `undoes`: for a
    restore, the ledger index it went back to (every cut from there on is undone).
    """

    before: tuple[ModelMessage, ...] | None = None
    undoes: int | None = None


class UndoRefused(Refused):
    """An undo that cannot happen (`Refused`: one line)."""


def undoable_cuts(ledger: Sequence[HistoryTrimmed], records: Sequence[CutRecord]) -> list[int]:
    """Ledger indices of the cuts still in effect that can be undone, oldest first."""
    undone: set[int] = set()
    for i, record in enumerate(records):
        if record.undoes is not None:
            undone.update(range(record.undoes, i))
    return [
        i
        for i, (event, record) in enumerate(zip(ledger, records, strict=False))
        if record.before is not None and (event.reason not in _NOT_CUTS or _is_recovery(event)) and i not in undone
    ]


def _is_recovery(event: HistoryTrimmed) -> bool:
    """A recovered excerpt (reason `restore`, governance/recover.py): undone like a cut, by its `before`."""
    return event.salvaged_item is not None


def pass_start(records: Sequence[CutRecord], index: int) -> int:
    """The first ledger index of the pass `index` belongs to (entries sharing its `before`)."""
    before = records[index].before
    while index > 0 and before is not None and records[index - 1].before is before:
        index -= 1
    return index


def pass_span(records: Sequence[CutRecord], index: int) -> tuple[int, int]:
    """(first, last): the ledger indices of the pass `index` belongs to — what undoing `index`
    takes back together (`(index, index)` for a pass of one event)."""
    first, last, before = pass_start(records, index), index, records[index].before
    while before is not None and last + 1 < len(records) and records[last + 1].before is before:
        last += 1
    return first, last


def span_label(first: int, last: int) -> str:
    """How a message names ledger entries `first`..`last` (0-based): `trim #4`, or `trims #3–4 (one
    pass)` when undoing one of them takes the others back too."""
    return f"trim #{first + 1}" if first == last else f"trims #{first + 1}–{last + 1} (one pass)"


def undo_target(ledger: Sequence[HistoryTrimmed], records: Sequence[CutRecord], selected: int | None = None) -> int:
    """The ledger index to restore to: the newest cut still in effect, or `selected` (0-based).

    Returns the first entry of that cut's pass. Raises `UndoRefused` when nothing is left to undo
    or `selected` is not a cut still in effect.
    """
    cuts = undoable_cuts(ledger, records)
    if selected is None:
        if not cuts:
            if not ledger:
                raise UndoRefused(why="undo.nothing")
            if any(r.before is None and e.reason not in _NOT_CUTS for e, r in zip(ledger, records, strict=False)):
                raise UndoRefused(why="undo.unrecorded_all")
            raise UndoRefused(why="undo.all_undone")
        return pass_start(records, cuts[-1])
    if not 0 <= selected < len(ledger):
        raise UndoRefused(why="undo.no_trim", number=selected + 1)
    if selected not in cuts:
        event = ledger[selected]
        if event.reason in _NOT_CUTS and not _is_recovery(event):
            raise UndoRefused(why="undo.is_clear" if event.reason == "clear" else "undo.is_undo", number=selected + 1)
        if records[selected].before is None:
            raise UndoRefused(why="undo.unrecorded", number=selected + 1)
        raise UndoRefused(why="undo.already_undone", number=selected + 1)
    return pass_start(records, selected)


def undone_context(
    before: Sequence[ModelMessage], transcript: Sequence[ModelMessage], position: int
) -> list[ModelMessage]:
    """The context before a cut made at transcript length `position`, with everything since:
    `before` + `transcript[position:]` (the original message objects)."""
    return [*before, *transcript[position:]]


def undo_event(
    undone: HistoryTrimmed,
    *,
    current: Sequence[ModelMessage],
    restored: Sequence[ModelMessage],
    tokens_before: int,
    tokens_after: int,
    budget_tokens: int,
    cut_number: int,
) -> HistoryTrimmed:
    """The `history_trimmed` event of a restore (reason `restore`, the undone cut's strategy).

    `restored_messages` counts the messages of `restored` the model does not see in `current`
    (markers left out); `cut_number` is the undone cut's 1-based ledger number (named in the note).
    """
    # By part: pydantic-ai rebuilds a request when it fuses a marker with it, keeping its parts.
    present = {id(p) for m in current for p in m.parts}
    back = sum(1 for m in restored if not is_marker(m) and any(id(p) not in present for p in m.parts))
    return HistoryTrimmed(
        reason="restore",
        strategy=undone.strategy,
        kept_turns=0,
        tokens_before=tokens_before,
        tokens_after=tokens_after,
        budget_tokens=budget_tokens,
        restored_messages=back,
        note=(
            f'undid trim #{cut_number}: the excerpt of "{undone.salvaged_item}" left the context'
            if _is_recovery(undone)
            else f"undid trim #{cut_number} and every cut after it"
        ),
    )


def cut_position(before: Sequence[ModelMessage], transcript: Sequence[ModelMessage], fallback: int) -> int:
    """Where the transcript stood when the cut that started from `before` happened: just after the
    newest transcript message `before` holds (the same object), else `fallback` (the ledger's
    position). Every message after it is one the cut never saw."""
    for message in reversed(before):
        for i in range(len(transcript) - 1, -1, -1):
            if transcript[i] is message:
                return i + 1
        if not is_marker(message):
            break
    return fallback

"""What the history inspector (`/history`, `f2`) lays out, read from a session in one go.

Reading a resumed session's whole transcript decodes its saved rows from the store (a
`LazyTranscript`), and annotating 4,000 messages takes a second or more: `read_history_rows` is
made to run in a thread, off the UI loop (docs/architecture.md, "Nothing blocks the UI loop"). It
reads each view of the session once, then works on its own copies: a turn that ends meanwhile
shows at the next read.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

# Pure, standard library only: the words of each status and the chart's bars, for the inspector.
from co_tui.governance.turn_states import TurnBar, TurnState, status_label, turn_bars

if TYPE_CHECKING:
    from pydantic_ai.messages import ModelMessage

    from co_tui.governance.events import HistoryTrimmed
    from co_tui.governance.inspect import MessageInfo
    from co_tui.governance.next_cut import NextCut
    from co_tui.session.cost import RequestCost
    from co_tui.session.port import HistoryView
    from co_tui.session.subagent_replay import SavedChild

__all__ = ["HistoryRows", "TurnBar", "TurnState", "read_history_rows", "status_label"]


@dataclass(frozen=True)
class HistoryRows:
    """The inspector's rows: every transcript message and every context message annotated (the
    context's with the turn and status of the transcript message each shows), the ledger, one
    `RequestCost` per model request, the ledger indices `u` can undo, each ledger entry's pass
    (first, last: `u` on one undoes them all), the pinned turns and the tokens-per-turn chart's
    bars (`turn_bars` of the transcript's rows, read with them off the UI loop: each user turn's
    tokens and whether the model still sees it)."""

    transcript: tuple[MessageInfo, ...] = ()
    context: tuple[MessageInfo, ...] = ()
    ledger: tuple[HistoryTrimmed, ...] = ()
    requests: tuple[RequestCost, ...] = ()
    undoable: frozenset[int] = frozenset()
    passes: tuple[tuple[int, int], ...] = ()
    pinned_turns: frozenset[int] = frozenset()
    # The subagents the transcript records (docs/subagents.md), oldest first.
    children: tuple[SavedChild, ...] = ()
    turn_bars: tuple[TurnBar, ...] = ()


def read_history_rows(
    view: HistoryView, *, next_cut: Callable[[], NextCut | None] | None = None, undo: bool = True
) -> HistoryRows:
    """Annotate `view`'s histories for the inspector; rows the next automatic cut (`next_cut()`,
    `SessionPort.next_cut`) would remove read `next_to_go`; `undo=False` (no controller to undo
    with): no cut is undoable. Blocking (decodes a lazy transcript): call it in a thread."""
    # Imported here: the inspector's module stays light for the keys reference (no pydantic-ai).
    from co_tui.governance.inspect import annotate_history, context_view, lighten_for_inspection, mark_next_to_go
    from co_tui.session.cost import request_costs
    from co_tui.session.lazy_transcript import CHUNK, LazyTranscript
    from co_tui.session.subagent_replay import saved_children

    transcript = view.transcript
    context = list(view.context)
    # A chunk at a time, each made light before the next is read: a resumed transcript's saved
    # messages are decoded for this read only (the session keeps them rows), and its big tool
    # outputs are cut to their heads (`lighten_for_inspection`), so the read's peak is a chunk.
    messages: list[ModelMessage] = []
    children = []
    for start in range(0, len(transcript), CHUNK):
        chunk = (
            transcript.read_through(start, start + CHUNK)
            if isinstance(transcript, LazyTranscript)
            else list(transcript[start : start + CHUNK])
        )
        children += saved_children(chunk, start)  # before lightening: a child's record is on its result
        messages += lighten_for_inspection(chunk, context)
    ledger = tuple(view.ledger)
    # Statuses come from the ledger and the context, never from the text (docs/context-governance.md,
    # "The history inspector").
    rows = annotate_history(messages, context, ledger=ledger, positions=list(view.ledger_positions))
    context_rows = context_view(rows, annotate_history(context, context))
    cut = next_cut() if next_cut is not None else None
    if cut is not None and cut.going:
        going = set(cut.going)
        rows = mark_next_to_go(rows, going, context_rows=False)
        context_rows = mark_next_to_go(context_rows, going, context_rows=True)
    turn_of = {row.index: row.turn for row in rows}
    return HistoryRows(
        transcript=tuple(rows),
        context=tuple(context_rows),
        ledger=ledger,
        requests=tuple(request_costs(messages)),
        undoable=frozenset(view.undoable_cuts()) if undo else frozenset(),
        passes=tuple(view.cut_pass(i) for i in range(len(ledger))),
        pinned_turns=frozenset(turn_of[i] for i in view.pins if i in turn_of),
        children=tuple(children),
        turn_bars=turn_bars(rows),
    )

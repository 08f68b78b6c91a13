"""`History`: the one owner of a session's transcript, context, ledger and pins.

- `transcript`: every message that happened, append-only, originals only;
- `context`: what the model is sent next (governance rewrites only this);
- the ledger: one `LedgerEntry` per `history_trimmed` event — the event, the transcript's length
  when it happened (where its banner goes), and what undoing it needs (`CutRecord`) — one list, so
  the three can never disagree; `ledger`, `ledger_positions` and `ledger_records` are views of it;
- `pins`: transcript indices of the pinned turns' prompts;
- `marks`: per user prompt of this branch, what the model was about to be sent just before it went
  out (`Mark`: the context, the ledger's length, the pins, the meter's figure) — what a rewind
  restores, exactly;
- the conversation tree (`branch`, `tree`): the branch in use and every branch's parent and fork
  point; a branch left in this process is kept whole in memory (`stashed`) when its transcript is.

A branch is a whole history: the transcript, context, ledger, pins and marks are the active
branch's. A rewind or a branch switch is an `Edit` whose `branch` move replaces all of them at once.

Every change of the context with an event (a cut, an undo, an eviction, a recovery, a compaction, a
pin, a rewind, `/clear`'s reset) is an `Edit`, applied by `commit` — which the session's
`EditApplier` (applying.py) alone calls; a turn folds its run's messages in with `extend` and
`set_context` (its cuts are committed through the applier as they happen). Nothing here does I/O: the
session saves a `snapshot` in a thread. What the store holds is the store's to know (`unsaved`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from co_tui.governance.events import HistoryTrimmed
from co_tui.governance.markers import register_markers
from co_tui.governance.undo import CutRecord, pass_span, undoable_cuts
from co_tui.session.conversation_counts import ConversationCounts
from co_tui.session.cost import RunningCost, ledger_item_cost, session_cost, transcript_item_cost
from co_tui.session.lazy_transcript import LazyTranscript

if TYPE_CHECKING:
    from pydantic_ai.messages import ModelMessage

    from co_tui.session.saved_session import LoadedSession
    from co_tui.session.subagent_replay import SubagentsUsage

__all__ = [
    "BranchInfo",
    "BranchMove",
    "BranchState",
    "Edit",
    "History",
    "HistorySnapshot",
    "HistoryViews",
    "LedgerEntry",
    "Mark",
]


@dataclass(frozen=True)
class LedgerEntry:
    """One ledger row: the `event`, the transcript's length when it happened (`position`), and what
    undoing it needs (`record`)."""

    event: HistoryTrimmed
    position: int
    record: CutRecord = field(default_factory=CutRecord)


@dataclass(frozen=True)
class Mark:
    """The state just before the user prompt at transcript index `position` went out: what a rewind
    to that prompt restores. `context` is None when it is in the store only (a resumed session),
    read when a rewind needs it; `tokens` is the meter's figure for it then, `created` when (epoch s).
    `meter`: a copy of the meter then, in this process only (a resumed mark re-anchors one)."""

    position: int
    ledger_len: int
    pins: tuple[int, ...]
    tokens: int
    created: float
    context: tuple[ModelMessage, ...] | None = None
    meter: Any = field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class BranchInfo:
    """One branch of the conversation tree: its `id`, the branch it was forked from (`parent`, None
    for the first), how many transcript messages (`fork_at`: the rewound prompt's index) and ledger
    entries (`fork_ledger`) it shares with it; `created` in epoch seconds (0: unknown); `fork_turn`:
    the 1-based turn of the prompt it was rewound to (0 for the first branch)."""

    id: int
    parent: int | None
    fork_at: int
    fork_ledger: int
    created: float
    fork_turn: int = 0


@dataclass(frozen=True)
class BranchState:
    """A branch's whole history (the one in use, or one kept in memory)."""

    transcript: Sequence[ModelMessage]
    context: tuple[ModelMessage, ...]
    entries: tuple[LedgerEntry, ...]
    pins: tuple[int, ...]
    marks: tuple[Mark, ...]


@dataclass(frozen=True)
class BranchMove:
    """The branch part of an `Edit`: make branch `to` (whose history is `state`) the one in use;
    `tree`: the conversation tree after the move (a rewind adds the new branch)."""

    to: int
    state: BranchState
    tree: tuple[BranchInfo, ...]


@dataclass(frozen=True)
class Edit:
    """A planned change of the history, returned by a planner and applied by `History.commit`.

    `event`: recorded in the ledger with `record` (None: no ledger row, e.g. a pin); `context`: the
    new context (None: unchanged); `pins`: the new pinned prompts (None: unchanged). `result`: what
    the operation returns to its caller besides the event (a pin's `PinChange`). `branch`: another
    branch's history replaces this one's first (a rewind, a branch switch; the branch left is kept).
    `reset`: everything is emptied first (`/clear` starts a new session).
    """

    event: HistoryTrimmed | None = None
    context: Sequence[ModelMessage] | None = None
    record: CutRecord = field(default_factory=CutRecord)
    pins: Sequence[int] | None = None
    result: Any = None
    branch: BranchMove | None = None
    reset: bool = False


@dataclass(frozen=True)
class HistorySnapshot:
    """What a save writes, taken on the event loop so a save in a thread reads nothing that moves:
    the transcript (append-only: its first `transcript_len` messages are fixed), the context, the
    ledger and the pins as they were."""

    transcript: Sequence[ModelMessage]
    transcript_len: int
    context: tuple[ModelMessage, ...]
    entries: tuple[LedgerEntry, ...]
    pins: tuple[int, ...]
    marks: tuple[Mark, ...] = ()
    branch: int = 0
    tree: tuple[BranchInfo, ...] = ()


class History:
    """A session's histories (see module docstring). The views are read-only: the ledger's and the
    pins' are new lists at each read, changing one changes nothing here."""

    def __init__(
        self,
        transcript: Sequence[ModelMessage] | None = None,
        context: Iterable[ModelMessage] = (),
        entries: Iterable[LedgerEntry] = (),
        pins: Iterable[int] = (),
    ) -> None:
        # A `LazyTranscript` (a resumed session) is kept as it is: its saved messages decode when read.
        self._transcript: Any = transcript if transcript is not None else []
        self._context: list[ModelMessage] = list(context)
        self._entries: tuple[LedgerEntry, ...] = tuple(entries)
        self._pins: tuple[int, ...] = tuple(pins)
        self._marks: tuple[Mark, ...] = ()  # by position, oldest first
        self._branch = 0
        self._tree: tuple[BranchInfo, ...] = ()  # empty: one branch (0), never rewound
        self._stash: dict[int, BranchState] = {}
        # A resumed session's saved messages' counts, as the store keeps them (never decoded for them).
        self.saved_counts: ConversationCounts | None = None
        # The session's cost so far, kept as the transcript and the ledger grow (`cost`).
        self._transcript_cost = RunningCost(transcript_item_cost, Decimal(0))
        self._ledger_cost = RunningCost(lambda entry: ledger_item_cost(entry.event), 0.0)
        self._restart_costs()

    # --- views -----------------------------------------------------------------------------------

    @property
    def transcript(self) -> Sequence[ModelMessage]:
        """Every message that happened, oldest first (append-only)."""
        return self._transcript  # type: ignore[no-any-return]

    @property
    def context(self) -> Sequence[ModelMessage]:
        """What the model is sent next."""
        return self._context

    @property
    def entries(self) -> Sequence[LedgerEntry]:
        """The ledger, oldest first."""
        return self._entries

    @property
    def ledger(self) -> Sequence[HistoryTrimmed]:
        """The ledger's events, oldest first."""
        return [entry.event for entry in self._entries]

    @property
    def ledger_positions(self) -> Sequence[int]:
        """For each ledger event, the transcript's length when it happened."""
        return [entry.position for entry in self._entries]

    @property
    def ledger_records(self) -> Sequence[CutRecord]:
        """For each ledger event, what undoing it needs."""
        return [entry.record for entry in self._entries]

    @property
    def pins(self) -> Sequence[int]:
        """Transcript indices of the pinned turns' prompts, in order."""
        return list(self._pins)

    @property
    def marks(self) -> Sequence[Mark]:
        """What the model was about to be sent before each user prompt of this branch, oldest first."""
        return self._marks

    @property
    def branch(self) -> int:
        """The id of the branch in use."""
        return self._branch

    @property
    def tree(self) -> Sequence[BranchInfo]:
        """Every branch of the conversation, by id (one branch 0 when it was never rewound)."""
        return self._tree or (BranchInfo(0, None, 0, 0, 0.0),)

    def stashed(self, branch: int) -> BranchState | None:
        """Branch `branch`'s history when this process keeps it in memory, else None (the store has it)."""
        return self._stash.get(branch)

    def state(self) -> BranchState:
        """The branch in use's history, as a `BranchState`."""
        return BranchState(self._transcript, tuple(self._context), self._entries, self._pins, self._marks)

    def cost(self, extra: Sequence[ModelMessage] = ()) -> float | None:
        """The session's cost in USD so far: every response of the transcript and of `extra` (a
        response not in it yet), and the summariser calls of the ledger; None when any of them is
        unpriced (`cost.session_cost`'s rule). A resumed transcript's saved messages count with
        the figure the store saved (never decoded for it). Only what was added since the last call
        is priced (`RunningCost`)."""
        transcript = self._transcript
        base: float | None = transcript.saved_cost if isinstance(transcript, LazyTranscript) else 0.0
        own: Decimal | None = self._transcript_cost.total(transcript)
        cuts: float | None = self._ledger_cost.total(self._entries)
        rest = session_cost(extra) if extra else 0.0
        if base is None or own is None or cuts is None or rest is None:
            return None
        return base + float(own) + rest + cuts

    def _restart_costs(self) -> None:
        transcript = self._transcript
        self._transcript_cost.restart(transcript.saved if isinstance(transcript, LazyTranscript) else 0)
        self._ledger_cost.restart()

    def counts(self) -> ConversationCounts:
        """The transcript's turns and chat-log items: the store's figures for a resumed session's
        saved messages (never decoded for this) plus this process's own."""
        saved, transcript = self.saved_counts, self._transcript
        if isinstance(transcript, LazyTranscript) and saved is not None and saved.messages == transcript.saved:
            return saved.add(transcript.added())
        return ConversationCounts().add(transcript)

    def snapshot(self) -> HistorySnapshot:
        """What a save writes now (see `HistorySnapshot`)."""
        return HistorySnapshot(
            self._transcript,
            len(self._transcript),
            tuple(self._context),
            self._entries,
            self._pins,
            self._marks,
            self._branch,
            self._tree,
        )

    def cut_record(self, before: Sequence[ModelMessage] | None) -> CutRecord:
        """The `CutRecord` of a cut that started from `before`: the events of one pass share one
        `before` object (undoing any of them undoes the pass)."""
        if before is None:
            return CutRecord()
        last = self._entries[-1].record.before if self._entries else None
        if last is not None and len(last) == len(before) and all(a is b for a, b in zip(last, before, strict=True)):
            return CutRecord(before=last)
        return CutRecord(before=tuple(before))

    # --- changes ---------------------------------------------------------------------------------

    def commit(self, edit: Edit, *, session_id: str | None = None) -> HistoryTrimmed | None:
        """Apply `edit`: the new context and pins, and its event as a ledger row at the transcript's
        length now (stamped with `session_id`). Returns the event as recorded (None: it had none).
        A `branch` move first keeps the branch left (in memory when its transcript is) and takes the
        target's whole history; a `reset` empties everything first."""
        if edit.reset:
            self._reset()
        if edit.branch is not None:
            self._move(edit.branch)
        if edit.context is not None:
            self._context = list(edit.context)
        if edit.pins is not None:
            self._pins = tuple(sorted(edit.pins))
        if edit.event is None:
            return None
        event = replace(edit.event, session_id=session_id) if session_id is not None else edit.event
        self._entries = (*self._entries, LedgerEntry(event, len(self._transcript), edit.record))
        return event

    def _move(self, move: BranchMove) -> None:
        from co_tui.session.lazy_transcript import LazyTranscript as Lazy

        # A lazy transcript reads its branch's rows wherever the store keeps them: kept in memory too.
        if any(b.id == self._branch for b in move.tree):  # a branch dropped from the tree is not kept
            self._stash[self._branch] = self.state()
        self._stash.pop(move.to, None)
        state = move.state
        transcript = state.transcript
        self._transcript = transcript if isinstance(transcript, Lazy) else list(transcript)
        self._context, self._entries = list(state.context), state.entries
        self._pins, self._marks = state.pins, state.marks
        self._branch, self._tree = move.to, move.tree
        self._restart_costs()  # another transcript and ledger: the cost is the branch in use's
        self.saved_counts = None  # the store's counts were the branch left's: counted from the rows now

    def mark_turn(self, tokens: int, created: float, meter: Any = None) -> None:
        """A user prompt is about to go out at the transcript's end: keep what the model is sent
        before it (`Mark`; a mark at the same position, left by a turn whose prompt never went out,
        is replaced). `meter`: a copy of the meter now."""
        position = len(self._transcript)
        mark = Mark(position, len(self._entries), self._pins, tokens, created, tuple(self._context), meter)
        self._marks = (*(m for m in self._marks if m.position < position), mark)

    def add_note(self, event: HistoryTrimmed, note: str) -> HistoryTrimmed:
        """Add `note` to ledger event `event`'s own (a save that failed after the edit); returns the
        event as it now reads (`event` itself when it is not in the ledger any more)."""
        for i in range(len(self._entries) - 1, -1, -1):
            entry = self._entries[i]
            if entry.event is event:
                noted = replace(event, note=f"{event.note}; {note}" if event.note else note)
                self._entries = (*self._entries[:i], replace(entry, event=noted), *self._entries[i + 1 :])
                return noted
        return event

    def extend(self, messages: Iterable[ModelMessage]) -> None:
        """Append `messages` to the transcript (a run's steps as they finish)."""
        self._transcript.extend(messages)

    def set_context(self, messages: Iterable[ModelMessage]) -> None:
        """The context a turn left (its run's repaired history); its cuts were committed as they
        happened, so this records nothing."""
        self._context = list(messages)

    def _reset(self) -> None:
        """Empty everything (an `Edit` with `reset`: `/clear` starts a new session)."""
        self._transcript, self._context, self._entries, self._pins = [], [], (), ()
        self._marks, self._branch, self._tree, self._stash = (), 0, (), {}
        self.saved_counts = None
        self._restart_costs()

    def load(self, loaded: LoadedSession) -> None:
        """Take a saved session's histories (`SessionStore.load`): its transcript as it comes (a
        `LazyTranscript` decodes saved messages when read), the context with its markers known as
        markers, one ledger entry per saved event (a row saved before undo data was kept: not
        undoable), the pins and the saved counts."""
        transcript = loaded.transcript
        self._transcript = transcript if isinstance(transcript, LazyTranscript) else list(transcript)
        # A saved marker fused with a prompt at the next run start must still be known as a marker.
        register_markers(loaded.context)
        self._context = list(loaded.context)
        records = list(loaded.ledger_records) or [CutRecord() for _ in loaded.ledger]
        positions = list(loaded.ledger_positions)
        self._entries = tuple(
            LedgerEntry(event, positions[i] if i < len(positions) else len(transcript), records[i])
            for i, event in enumerate(loaded.ledger)
        )
        self._pins = tuple(loaded.pins)
        self._marks, self._stash = tuple(loaded.marks), {}
        self._branch, self._tree = loaded.branch, tuple(loaded.tree)
        self.saved_counts = loaded.counts
        self._restart_costs()


class HistoryViews:
    """The read-only views a session port gives of its `history` (`port.HistoryView`): the real
    session and the tests' fake share them."""

    history: History

    @property
    def transcript(self) -> Sequence[ModelMessage]:
        """Every message that happened, oldest first (append-only; lazy once resumed)."""
        return self.history.transcript

    @property
    def context(self) -> Sequence[ModelMessage]:
        """What the model is sent next."""
        return self.history.context

    @property
    def ledger(self) -> Sequence[HistoryTrimmed]:
        """Every `history_trimmed` event of this session, oldest first."""
        return self.history.ledger

    @property
    def ledger_positions(self) -> Sequence[int]:
        """For each ledger event, the transcript's length when it happened."""
        return self.history.ledger_positions

    @property
    def pins(self) -> Sequence[int]:
        """Transcript indices of the pinned turns' prompts."""
        return self.history.pins

    def undoable_cuts(self) -> list[int]:
        """Ledger indices of the cuts still in effect that `restore` can undo, oldest first."""
        return undoable_cuts(self.history.ledger, self.history.ledger_records)

    def cut_pass(self, index: int) -> tuple[int, int]:
        """(first, last) ledger indices of the pass entry `index` belongs to (`undo.pass_span`)."""
        return pass_span(self.history.ledger_records, index)

    def conversation_counts(self) -> ConversationCounts:
        """The transcript's turns and chat-log items (`History.counts`)."""
        return self.history.counts()

    def subagents_usage(self) -> SubagentsUsage:
        """What this conversation's subagents used in their own contexts (/context); blocking."""
        from co_tui.session.subagent_replay import subagents_usage

        return subagents_usage(self.history.transcript)

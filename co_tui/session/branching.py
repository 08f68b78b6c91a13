"""Planning a rewind and a branch switch: the conversation tree (docs/context-governance.md,
"Rewind and branches").

Pure over a `HistoryReader` (a read-only `History`) and a `Gauge`, as every planner (steering.py): each returns the `Edit` the
session applies in its one place (`EditApplier.apply`, applying.py), or raises `BranchMoveRefused` with one line.

- A **rewind** to the user prompt at transcript index `p` starts a new branch whose history is the
  one just before that prompt went out: the transcript up to `p`, the context the model was about to
  be sent then (its `Mark`: markers, summaries and trimmed copies included), the ledger as long as it
  was then (cuts made later are not in effect), the pins and the marks of then. The branch left stays
  whole (nothing is deleted) and the event says where the conversation went.
- A **branch switch** makes another branch's whole history the one in use, as it was left.

Both emit `history_trimmed` (reasons `rewind`, `branch_switch`; strategy `branch`): the model's
context changes, so it is never silent.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from co_tui.governance.events import HistoryTrimmed
from co_tui.governance.markers import separate_markers
from co_tui.governance.refused import Refused
from co_tui.governance.turns import segment, starts_turn
from co_tui.session.history import BranchInfo, BranchMove, BranchState, Edit
from co_tui.text import one_line

if TYPE_CHECKING:
    from collections.abc import Sequence

    from pydantic_ai.messages import ModelMessage

    from co_tui.session.gauge import Gauge
    from co_tui.session.history import Mark
    from co_tui.session.history_reader import HistoryReader

__all__ = [
    "BranchRow",
    "RewindPoint",
    "BranchMoveRefused",
    "Rewound",
    "branch_rows",
    "plan_rewind",
    "plan_switch",
    "prefix",
    "prompt_of",
    "rewind_points",
]


class BranchMoveRefused(Refused):
    """A rewind or a branch switch that cannot happen (`Refused`: one line)."""


@dataclass(frozen=True)
class Rewound:
    """A rewind as applied: its `event` (reason `rewind`, in the ledger) and the `prompt` it went back
    to (the front end puts it in the input to edit and send again)."""

    event: HistoryTrimmed
    prompt: str


@dataclass(frozen=True)
class RewindPoint:
    """One earlier prompt a rewind can go back to (the picker's row): its 1-based `turn`, its
    transcript index `position`, its `text` (whole: choosing it puts it back in the input), when it
    was sent (`created`, epoch s; 0 unknown) and the meter's figure for the context then (`tokens`).
    `restorable`: False for a prompt saved before co-tui kept what the model saw (not rewindable)."""

    turn: int
    position: int
    text: str
    created: float
    tokens: int
    restorable: bool = True

    @property
    def first_line(self) -> str:
        """The prompt's first line, on one line."""
        return one_line(self.text.strip().splitlines()[0] if self.text.strip() else "", 80)


@dataclass(frozen=True)
class BranchRow:
    """One branch as `/branches` lists it: its `info`, whether it is the one in use, its turns, its
    last prompt and when it last changed (epoch s; 0 unknown)."""

    info: BranchInfo
    active: bool
    turns: int
    last_prompt: str
    updated: float


def prompt_of(message: Any) -> str | None:
    """The user prompt text a transcript message starts a turn with, or None."""
    if not starts_turn(message):
        return None
    from co_tui.agent.extractive import prompt_text

    for part in message.parts:
        if getattr(part, "part_kind", "") == "user-prompt":
            return prompt_text(part.content)
    return None


def rewind_points(history: HistoryReader) -> list[RewindPoint]:
    """Every user prompt of the branch in use, newest first. Reads the whole transcript (a resumed
    session's saved messages are decoded): blocking."""
    marks = {mark.position: mark for mark in history.marks}
    points: list[RewindPoint] = []
    turn = 0
    for position, message in enumerate(history.transcript):
        text = prompt_of(message)
        if text is None:
            continue
        turn += 1
        mark = marks.get(position)
        if mark is None:
            points.append(RewindPoint(turn, position, text, 0.0, 0, restorable=False))
        else:
            points.append(RewindPoint(turn, position, text, mark.created, mark.tokens))
    return points[::-1]


def prefix(transcript: Sequence[ModelMessage], length: int) -> Sequence[ModelMessage]:
    """The first `length` messages of `transcript`, nothing decoded (a resumed session's lazy one
    stays lazy)."""
    truncated = getattr(transcript, "truncated", None)
    return truncated(length) if truncated is not None else list(transcript[:length])


def _turn_number(transcript: Sequence[ModelMessage], position: int) -> int:
    return sum(1 for i in range(position + 1) if prompt_of(transcript[i]) is not None)


def plan_rewind(history: HistoryReader, gauge: Gauge, mark: Mark, *, created: float, tokens_after: int) -> Edit:
    """Go back to just before the prompt at transcript index `mark.position` (whose `mark` carries
    its context), on a new branch forked from the one in use (from its parent when nothing was sent
    on it: it is dropped, `empty_branch`); the edit's `result` is that prompt's text. `tokens_after`: the meter's figure for the restored context (`mark.tokens` as re-anchored by
    the caller). Raises `BranchMoveRefused` when that index holds no prompt or the mark has no context."""
    transcript = history.transcript
    position = mark.position
    if not 0 <= position < len(transcript) or (text := prompt_of(transcript[position])) is None:
        raise BranchMoveRefused(f"there is no prompt at message {position} to rewind to")
    if mark.context is None:
        raise BranchMoveRefused("what the model saw before that prompt could not be read")
    turn = _turn_number(transcript, position)
    # A branch left before anything was sent on it is not kept: its parent holds all it had.
    empty = empty_branch(history)
    parent = history.branch if empty is None else empty.parent
    tree = tuple(b for b in history.tree if empty is None or b.id != empty.id)
    new_id = max(b.id for b in tree) + 1
    info = BranchInfo(new_id, parent, position, mark.ledger_len, created, turn)
    kept_marks = tuple(m for m in history.marks if m.position < position)
    state = BranchState(
        prefix(transcript, position), mark.context, tuple(history.entries[: mark.ledger_len]), mark.pins, kept_marks
    )
    event = _event(
        history,
        gauge,
        mark.context,
        "rewind",
        new_id,
        tokens_after,
        rewound_to_turn=turn,
        branch_from=parent,
    )
    return Edit(
        event=event,
        context=mark.context,
        pins=mark.pins,
        branch=BranchMove(new_id, state, (*tree, info)),
        result=text,
    )


def empty_branch(history: HistoryReader) -> BranchInfo | None:
    """The branch in use when nothing was sent on it since it was rewound (its transcript is what
    it shares with its parent): left, it is dropped rather than kept. None otherwise."""
    info = next((b for b in history.tree if b.id == history.branch), None)
    if info is None or info.parent is None or len(history.transcript) > info.fork_at:
        return None
    return info


def plan_switch(history: HistoryReader, gauge: Gauge, target: int, state: BranchState, *, tokens_after: int) -> Edit:
    """Make branch `target` (whose history is `state`) the one in use (a branch left before anything
    was sent on it is dropped: `empty_branch`). Raises `BranchMoveRefused` for the branch in use or one
    not in the tree."""
    if target == history.branch:
        raise BranchMoveRefused(f"branch {target} is the one in use")
    if target not in {b.id for b in history.tree}:
        raise BranchMoveRefused(f"there is no branch {target}")
    event = _event(history, gauge, state.context, "branch_switch", target, tokens_after)
    empty = empty_branch(history)
    tree = tuple(b for b in history.tree if empty is None or b.id != empty.id)
    return Edit(event=event, context=state.context, pins=state.pins, branch=BranchMove(target, state, tree))


def _event(
    history: HistoryReader,
    gauge: Gauge,
    context: Sequence[ModelMessage],
    reason: Any,
    to: int,
    tokens_after: int,
    *,
    rewound_to_turn: int | None = None,
    branch_from: int | None = None,
) -> HistoryTrimmed:
    kept = {id(m) for m in context}
    left = [m for m in separate_markers(history.context) if id(m) not in kept]
    return HistoryTrimmed(
        reason=reason,
        strategy="branch",
        dropped_messages=len(left),
        kept_turns=sum(1 for t in segment(context).turns if t.has_prompt),
        tokens_before=gauge.meter.reading(history.context).tokens,
        tokens_after=tokens_after,
        budget_tokens=gauge.budget_tokens,
        branch_from=history.branch if branch_from is None else branch_from,
        branch_to=to,
        rewound_to_turn=rewound_to_turn,
    )


def branch_rows(history: HistoryReader, others: dict[int, BranchRow] | None = None) -> list[BranchRow]:
    """The tree as `/branches` lists it, in id order: the branch in use from the history, the others
    from memory (`History.stashed`) or `others` (what the store says of them)."""
    rows: list[BranchRow] = []
    for info in history.tree:
        if info.id == history.branch:
            rows.append(_row(info, True, history.transcript, history.marks))
        elif (state := history.stashed(info.id)) is not None:
            rows.append(_row(info, False, state.transcript, state.marks))
        elif others is not None and info.id in others:
            rows.append(others[info.id])
        else:
            rows.append(BranchRow(info, False, 0, "", info.created))
    return rows


def _row(info: BranchInfo, active: bool, transcript: Sequence[Any], marks: Sequence[Mark]) -> BranchRow:
    prompts = [(i, text) for i, m in enumerate(transcript) if (text := prompt_of(m)) is not None]
    updated = max((m.created for m in marks), default=info.created)
    return BranchRow(info, active, len(prompts), prompts[-1][1] if prompts else "", updated)

"""A finished subagent as the session keeps it: its whole transcript, its cuts and its figures.

The record travels in the metadata of the parent's `delegate` tool result (`SUBAGENT_KEY`), which
pydantic-ai keeps and saves with the transcript and never sends to a model. So a child is saved
with the turn that made it, a rewind to before that turn drops it, a fork copies it, and an export
finds it at its delegation, with nothing stored apart (docs/subagents.md, "Where a child is kept").
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

from co_tui.governance.events import HistoryTrimmed
from co_tui.session.events import SubagentFinished

if TYPE_CHECKING:
    from pydantic_ai.messages import ModelMessage

__all__ = ["SUBAGENT_KEY", "ChildRecord", "child_records", "count_children", "find_child", "record_of"]

SUBAGENT_KEY = "co_tui_subagent"


@dataclass(frozen=True)
class ChildRecord:
    """One child: `finished` holds its ids, outcome and figures; `task` what it was asked;
    `transcript` every message it made (originals, handles stamped); `ledger` its cuts."""

    finished: SubagentFinished
    task: str
    transcript: tuple[ModelMessage, ...]
    ledger: tuple[HistoryTrimmed, ...] = ()

    @property
    def agent(self) -> str:
        """The child's id (`explore-1`): the handle `recall` takes."""
        return self.finished.agent

    def to_metadata(self) -> dict[str, Any]:
        """JSON-ready form (the transcript as pydantic-ai's JSON of its messages)."""
        from pydantic_ai.messages import ModelMessagesTypeAdapter

        return {
            "finished": self.finished.to_dict(),
            "task": self.task,
            "transcript": ModelMessagesTypeAdapter.dump_python(list(self.transcript), mode="json"),
            "ledger": [event.to_dict() for event in self.ledger],
        }

    @classmethod
    def from_metadata(cls, data: Any) -> ChildRecord | None:
        """Inverse of `to_metadata`; None for anything that is not one (a damaged row reads as no child)."""
        from pydantic_ai.messages import ModelMessagesTypeAdapter

        if not isinstance(data, dict) or not isinstance(data.get("finished"), dict):
            return None
        try:
            fields = SubagentFinished.__dataclass_fields__
            finished = SubagentFinished(**{k: v for k, v in data["finished"].items() if k in fields and k != "type"})
            transcript = tuple(ModelMessagesTypeAdapter.validate_python(data.get("transcript") or []))
            ledger = tuple(HistoryTrimmed.from_dict(e) for e in data.get("ledger") or () if isinstance(e, dict))
        except (TypeError, ValueError):
            return None
        return cls(finished=finished, task=str(data.get("task", "")), transcript=transcript, ledger=ledger)

    def summary_dict(self) -> dict[str, Any]:
        """The record without its transcript (an export's header for it)."""
        return {**asdict(self.finished), "task": self.task}


def record_of(part: Any) -> ChildRecord | None:
    """The child recorded on a tool result part, or None."""
    meta = getattr(part, "metadata", None)
    if not isinstance(meta, dict) or SUBAGENT_KEY not in meta:
        return None
    return ChildRecord.from_metadata(meta[SUBAGENT_KEY])


def _has_child(part: Any) -> bool:
    meta = getattr(part, "metadata", None)
    return isinstance(meta, dict) and SUBAGENT_KEY in meta


def child_records(messages: Iterable[ModelMessage]) -> list[tuple[int, ChildRecord]]:
    """Every child recorded in `messages` (a transcript), with the index of the message holding it."""
    found: list[tuple[int, ChildRecord]] = []
    for index, message in enumerate(messages):
        if message.kind != "request":
            continue
        for part in message.parts:
            if _has_child(part) and (record := record_of(part)) is not None:
                found.append((index, record))
    return found


def count_children(messages: Sequence[ModelMessage]) -> int:
    """How many children `messages` record (numbers the next child's id)."""
    return sum(1 for m in messages if m.kind == "request" for p in m.parts if _has_child(p))


def find_child(messages: Sequence[ModelMessage], agent: str) -> ChildRecord | None:
    """The child with id `agent` recorded in `messages`, the newest first; None when there is none."""
    for message in reversed(messages):
        if message.kind != "request":
            continue
        for part in message.parts:
            meta: Any = getattr(part, "metadata", None)
            if _has_child(part) and meta[SUBAGENT_KEY].get("finished", {}).get("agent") == agent:
                return record_of(part)
    return None

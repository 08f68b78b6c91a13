"""What the store hands back of a saved session: `SessionMeta` (a row of the session list) and
`LoadedSession` (the session read back). Plain data, in a module of its own so that the store's
helpers (`co_tui/store/tail.py`) and the session's history can name them without importing the store."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from co_tui.governance.events import HistoryTrimmed
from co_tui.session.conversation_counts import ConversationCounts

if TYPE_CHECKING:
    from pydantic_ai.messages import ModelMessage

__all__ = ["LoadedSession", "SessionHit", "SessionMeta"]


@dataclass(frozen=True)
class SessionMeta:
    """What the session list shows. `messages` counts transcript messages; `tokens` is the meter's
    last figure for the context; `cost_usd` the session's cost so far (None: unknown). `damaged` is
    set once a load found the session unreadable."""

    id: str
    title: str
    created: datetime
    updated: datetime
    model: str
    workspace: Path
    messages: int = 0
    context_messages: int = 0
    tokens: int = 0
    # What the session's subagents' contexts held at their end, apart from `tokens` (docs/subagents.md).
    subagent_tokens: int = 0
    damaged: str | None = None
    cost_usd: float | None = None
    # A fork (`/fork`, `--fork-session`): the session it was copied from and how many of its turns it holds.
    forked_from: str | None = None
    forked_at: int | None = None


@dataclass(frozen=True)
class SessionHit:
    """A session a search found (`SessionStore.search`): its list row, the snippet around the hits
    of its newest matching message (hits marked, see `store_search.hit_segments`; empty when only
    the title matched) and that message's transcript index (None then, and when the message is in
    a branch of the session other than the one in use)."""

    meta: SessionMeta
    snippet: str = ""
    at_message: int | None = None


@dataclass
class LoadedSession:
    """A session read back: metadata, transcript, context, and the ledger of cuts.

    `ledger_positions[i]` is the transcript length when `ledger[i]` happened (where its banner goes).
    Context messages that are verbatim transcript messages are the very same objects.
    """

    meta: SessionMeta
    transcript: Sequence[ModelMessage]  # a `LazyTranscript` from `load(lazy=True)`
    context: list[ModelMessage]
    ledger: list[HistoryTrimmed]
    ledger_positions: list[int] = field(default_factory=list)
    # Per ledger entry, what undoing it needs (`co_tui/store/steering_rows.py`); the pinned turns' prompt indices.
    ledger_records: list[Any] = field(default_factory=list)
    pins: list[int] = field(default_factory=list)
    # The transcript's turns and chat-log items (conversation_counts.py); None: count `transcript`.
    counts: ConversationCounts | None = None
    # Per user prompt, the state just before it (`history.Mark`, contexts left in the store); the
    # branch in use and the conversation tree (`history.BranchInfo`; empty: one branch, 0).
    marks: list[Any] = field(default_factory=list)
    branch: int = 0
    tree: list[Any] = field(default_factory=list)

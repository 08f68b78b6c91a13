"""`SessionStore`: sessions in one SQLite file — a `Database` (database.py: the connection, the
lock, transactions) with the store's operations, each in its own module: saving (writer.py),
loading (reader.py), listing and deleting (catalog.py), the conversation tree and forks
(branches.py), file checkpoints (checkpoints.py). Each method here is that function's entry point,
with its full contract on the function, and imports its module when called: a store opened for a
new session loads none of them until its first save (writer.py) or first listing (catalog.py) —
the reading side, the tree and the records it builds stay off the session's opening (issue 44).
See the package docstring.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar, cast

from co_tui.store.database import Database
from co_tui.store.errors import StoreError
from co_tui.store.keep import KEEP, KeepType

if TYPE_CHECKING:
    from pydantic_ai.messages import ModelMessage

    from co_tui.agent.checkpoints import FileCheckpoint
    from co_tui.governance.events import HistoryTrimmed
    from co_tui.session.history import HistorySnapshot
    from co_tui.session.saved_session import LoadedSession, SessionHit, SessionMeta
    from co_tui.store.tail import SessionTail

__all__ = ["SessionStore"]

_Method = TypeVar("_Method", bound=Callable[..., Any])


def _search_derived(method: _Method) -> _Method:
    """A store method that writes or searches: when it fails on a damaged search index, the index
    is rebuilt from the rows and the method runs again (once). The index is derived data: its
    damage never blocks a save (`search_index.py`)."""

    @functools.wraps(method)
    def run(self: SessionStore, *args: Any, **kwargs: Any) -> Any:
        try:
            return method(self, *args, **kwargs)
        except StoreError:
            if not self.rebuild_damaged_search():
                raise
        return method(self, *args, **kwargs)

    return cast(_Method, run)


class SessionStore(Database):
    """Sessions in one SQLite file. Build with `SessionStore.open(data_dir)`; see module docstring."""

    # --- writer.py ------------------------------------------------------------------------------------
    @_search_derived
    def create_session(self, *, model: str, workspace: Path, title: str = "", session_id: str | None = None) -> str:
        """Add an empty session; return its id (`writer.create_session`)."""
        from co_tui.store import writer

        return writer.create_session(self, model=model, workspace=workspace, title=title, session_id=session_id)

    @_search_derived
    def save_turn(
        self,
        session_id: str,
        *,
        new_transcript: Sequence[ModelMessage],
        context: Sequence[ModelMessage] | None,
        new_events: Sequence[HistoryTrimmed],
        title: str | None = None,
        model: str | None = None,
        tokens: int | None = None,
        event_positions: Sequence[int] | None = None,
        cost_usd: float | None | KeepType = KEEP,
        event_records: Sequence[Any] | None = None,
        pins: Sequence[int] | None = None,
    ) -> None:
        """Append `new_transcript` and `new_events`, store `context` (None: unchanged) … (`writer.save_turn`)."""
        from co_tui.store import writer

        writer.save_turn(
            self,
            session_id,
            new_transcript=new_transcript,
            context=context,
            new_events=new_events,
            title=title,
            model=model,
            tokens=tokens,
            event_positions=event_positions,
            cost_usd=cost_usd,
            event_records=event_records,
            pins=pins,
        )

    @_search_derived
    def save_history(
        self,
        session_id: str,
        history: HistorySnapshot,
        *,
        context: Sequence[ModelMessage] | None = None,
        title: str | None = None,
        model: str | None = None,
        tokens: int | None = None,
        cost_usd: float | None | KeepType = KEEP,
    ) -> None:
        """Save what `history` (a `session.history.HistorySnapshot`) holds that the store … (`writer.save_history`)."""
        from co_tui.store import writer

        writer.save_history(
            self, session_id, history, context=context, title=title, model=model, tokens=tokens, cost_usd=cost_usd
        )

    def saved_figures(self, session_id: str) -> tuple[int, int, tuple[int, ...]]:
        """What the store holds of a session: (`writer.saved_figures`)."""
        from co_tui.store import writer

        return writer.saved_figures(self, session_id)

    def set_pin(self, session_id: str, transcript_seq: int, pinned: bool) -> None:
        """Pin (or unpin) the turn whose user prompt is transcript message `transcript_seq` (`writer.set_pin`)."""
        from co_tui.store import writer

        writer.set_pin(self, session_id, transcript_seq, pinned)

    # --- reader.py ------------------------------------------------------------------------------------
    def load(self, session_id: str, *, lazy: bool = False) -> LoadedSession:
        """Read one session back (`reader.load`)."""
        from co_tui.store import reader

        return reader.load(self, session_id, lazy=lazy)

    def load_readable(self, session_id: str) -> tuple[LoadedSession, list[str]]:
        """`load` for an export, which gives what can be read rather than nothing: a … (`reader.load_readable`)."""
        from co_tui.store import reader

        return reader.load_readable(self, session_id)

    def check(self, session_id: str) -> None:
        """Read the session as a resume reads it (`load(lazy=True)`: the context, the … (`reader.check`)."""
        from co_tui.store import reader

        reader.check(self, session_id)

    def load_tail(self, session_id: str, enough: Callable[[SessionTail], bool]) -> SessionTail:
        """The newest transcript rows of a session as parsed JSON, with its metadata, its … (`reader.load_tail`)."""
        from co_tui.store import reader

        return reader.load_tail(self, session_id, enough)

    def last_summary_failure(self, session_id: str) -> float | None:
        """When (epoch seconds) the session's newest failed summary happened — its newest … (`reader.last_summary_failure`)."""
        from co_tui.store import reader

        return reader.last_summary_failure(self, session_id)

    # --- catalog.py -----------------------------------------------------------------------------------
    def list_sessions(self, workspace: Path | None = None) -> list[SessionMeta]:
        """Every session (or those of `workspace`), newest first (`catalog.list_sessions`)."""
        from co_tui.store import catalog

        return catalog.list_sessions(self, workspace)

    @_search_derived
    def search(self, query: str, workspace: Path | None = None, *, limit: int = 200) -> list[SessionHit]:
        """The sessions (`catalog.search`)."""
        from co_tui.store import catalog

        return catalog.search(self, query, workspace, limit=limit)

    def latest(self, workspace: Path) -> SessionMeta | None:
        """The most recently updated session of `workspace`, or None (`catalog.latest`)."""
        from co_tui.store import catalog

        return catalog.latest(self, workspace)

    def delete_refusal(self, session_id: str) -> str | None:
        """The line `delete` would refuse with now, else None (`catalog.delete_refusal`)."""
        from co_tui.store import catalog

        return catalog.delete_refusal(self, session_id)

    @_search_derived
    def delete(self, session_id: str) -> None:
        """Remove a session with its transcript, context, ledger and file checkpoints (`catalog.delete`)."""
        from co_tui.store import catalog

        catalog.delete(self, session_id)

    def preview(self, session_id: str) -> str:
        """One line for the sessions picker: the newest prompt, or the newest answer of a … (`catalog.preview`)."""
        from co_tui.store import catalog

        return catalog.preview(self, session_id)

    def resolve_id(self, prefix: str) -> str:
        """The one session id starting with `prefix` (case-insensitive); else `StoreError` (`catalog.resolve_id`)."""
        from co_tui.store import catalog

        return catalog.resolve_id(self, prefix)

    # --- branches.py ----------------------------------------------------------------------------------
    def branch_in_use(self, session_id: str) -> int:
        """The branch whose rows are the session's own (the one a resume opens) (`branches.branch_in_use`)."""
        from co_tui.store import branches

        return branches.branch_in_use(self, session_id)

    def mark_context(self, session_id: str, position: int, transcript: Sequence[Any]) -> tuple[Any, ...] | None:
        """What the model was about to be sent before the prompt at `position` of the … (`branches.mark_context`)."""
        from co_tui.store import branches

        return branches.mark_context(self, session_id, position, transcript)

    def load_branch(self, session_id: str, branch: int) -> LoadedSession:
        """Branch `branch` of a session as `load (`branches.load_branch`)."""
        from co_tui.store import branches

        return branches.load_branch(self, session_id, branch)

    def branch_figures(self, session_id: str) -> dict[int, tuple[int, float, str]]:
        """For each branch kept apart: (`branches.branch_figures`)."""
        from co_tui.store import branches

        return branches.branch_figures(self, session_id)

    def fork_whole(self, source_id: str, title: str | None = None) -> str:
        """A new session copied from `source_id`'s branch in use as it is saved now — … (`branches.fork_whole`)."""
        from co_tui.store import branches

        return branches.fork_whole(self, source_id, title)

    def fork_session(
        self,
        source_id: str,
        new_id: str,
        *,
        transcript_len: int,
        ledger_len: int,
        turns: int,
        title: str,
        whole: bool = False,
    ) -> None:
        """A new session `new_id` holding the first `transcript_len` transcript rows … (`branches.fork_session`)."""
        from co_tui.store import branches

        branches.fork_session(
            self,
            source_id,
            new_id,
            transcript_len=transcript_len,
            ledger_len=ledger_len,
            turns=turns,
            title=title,
            whole=whole,
        )

    # --- checkpoints.py -------------------------------------------------------------------------------
    def add_file_checkpoint(
        self, session_id: str, checkpoint: FileCheckpoint, *, at_message: int, branch: int = 0
    ) -> int:
        """Keep one edit's checkpoint (before the edit is written), made at transcript … (`checkpoints.add_file_checkpoint`)."""
        from co_tui.store import checkpoints

        return checkpoints.add_file_checkpoint(self, session_id, checkpoint, at_message=at_message, branch=branch)

    def file_checkpoint_bytes(self, session_id: str) -> int:
        """Bytes of previous file content the session's checkpoints keep (`checkpoints.file_checkpoint_bytes`)."""
        from co_tui.store import checkpoints

        return checkpoints.file_checkpoint_bytes(self, session_id)

    def file_checkpoints(self, session_id: str) -> list[tuple[int, FileCheckpoint]]:
        """(transcript length then, checkpoint) for every edit of the session, oldest first (`checkpoints.file_checkpoints`)."""
        from co_tui.store import checkpoints

        return checkpoints.file_checkpoints(self, session_id)

    def branch_file_checkpoints(self, session_id: str) -> list[tuple[int, int, FileCheckpoint]]:
        """(branch, transcript length then, checkpoint) for every edit of the session … (`checkpoints.branch_file_checkpoints`)."""
        from co_tui.store import checkpoints

        return checkpoints.branch_file_checkpoints(self, session_id)

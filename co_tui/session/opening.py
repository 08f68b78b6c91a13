"""Opening sessions, for the front ends: the store, a new or resumed `ChatSession`, the id to
resume, and what to print when the TUI quits. The one module that imports `chat.py`.

A failure raises `OpenSessionError` carrying one line and the exit code to use.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from co_tui.session.closing_lines import rescue_line, resume_hint

if TYPE_CHECKING:
    from co_tui.config import Settings
    from co_tui.session.approvals import Ask
    from co_tui.session.chat import ChatSession
    from co_tui.session.port import SessionPort
    from co_tui.store.session_store import SessionStore


class OpenSessionError(Exception):
    """A session could not be opened. `str(err)` is one line; `exit_code` is 1 (model) or 2 (usage/data)."""

    def __init__(self, message: str, exit_code: int = 1) -> None:
        super().__init__(message)
        self.exit_code = exit_code


def exit_code_for(exc: BaseException) -> int:
    """The exit status for a session that could not be opened: an `OpenSessionError`'s own code,
    2 for an unusable session database (`StoreError`: usage/data), 1 for anything else (a model
    that cannot be built, `ModelConfigError`, included)."""
    from co_tui.store.errors import StoreError

    if isinstance(exc, OpenSessionError):
        return exc.exit_code
    return 2 if isinstance(exc, StoreError) else 1


def open_store(settings: Settings) -> SessionStore:
    """The session database under the data dir. Raises `OpenSessionError` (exit 2) when unusable."""
    return open_store_at(settings.resolved_data_dir)


def open_store_at(data_dir: Path) -> SessionStore:
    """`open_store` given the data dir itself (`paths.data_dir_without_settings` at start-up, before
    the settings are built). Raises `OpenSessionError` (exit 2) when unusable. A data dir other users
    can read is used as it is; the store's `warning` says so, for the front end to show (nothing is
    printed here: the TUI's start-up worker has no terminal)."""
    from co_tui.paths import ensure_private_dir, loose_dir_warning
    from co_tui.store.errors import StoreError
    from co_tui.store.session_store import SessionStore

    try:
        ensure_private_dir(data_dir)
        warning = loose_dir_warning(data_dir)
        store = SessionStore.open(data_dir)
        store.warning = warning
        return store
    except OSError as exc:
        raise OpenSessionError(f"data dir {data_dir}: {exc.strerror or exc}", 2) from None
    except StoreError as exc:
        raise OpenSessionError(str(exc), 2) from None


def open_store_read_only(settings: Settings) -> SessionStore | None:
    """The session database opened read-only (`SessionStore.open_read_only`): nothing in the data
    dir is created, chmod-ed or written. None when there is no database yet. Raises
    `OpenSessionError` (exit 2) when it cannot be read."""
    from co_tui.store.errors import StoreError
    from co_tui.store.session_store import SessionStore

    data_dir = settings.resolved_data_dir
    try:
        return SessionStore.open_read_only(data_dir)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise OpenSessionError(f"data dir {data_dir}: {exc.strerror or exc}", 2) from None
    except StoreError as exc:
        raise OpenSessionError(str(exc), 2) from None


def open_session(
    settings: Settings,
    workspace: Path,
    *,
    resume_id: str | None = None,
    continue_latest: bool = False,
    ask: Ask | None = None,
    store: SessionStore | None = None,
    title: str | None = None,
    one_shot: bool = False,
    fork: bool = False,
) -> ChatSession:
    """A new session, or the one named by `resume_id` (id or unique prefix) / the latest here;
    `fork` (`--fork-session`): a new session copied from that one as it is now, which stays unchanged.

    `resume_id == ""` (a bare `--resume`) needs a picker, which only the TUI has: an error here.
    `title` names a session that has no title yet (else its first prompt does); `one_shot`: the
    front end exits after one turn (print mode), so a failed save's error does not say the
    conversation is kept in memory.
    """
    from co_tui.agent.models import ModelConfigError
    from co_tui.session.chat import ChatSession
    from co_tui.session.session_saves import make_title
    from co_tui.store.errors import StoreError

    store = store or open_store(settings)
    try:
        session_id = resolve_session_id(store, workspace, resume_id=resume_id, continue_latest=continue_latest)
        if fork and session_id is not None:
            session_id = fork_saved(store, session_id)
        if session_id is not None:
            session = resume_session(
                settings, workspace=workspace, store=store, session_id=session_id, ask=ask, one_shot=one_shot
            )
        else:
            session = ChatSession(settings, workspace=workspace, store=store, ask=ask, one_shot=one_shot)
    except (ModelConfigError, StoreError) as exc:
        raise OpenSessionError(str(exc), exit_code_for(exc)) from None
    if title and not session.title:
        session.title = make_title(title)
    return session


def resume_session(
    settings: Settings,
    *,
    workspace: Path,
    store: SessionStore,
    session_id: str,
    session_type: type[ChatSession] | None = None,
    **options: Any,
) -> ChatSession:
    """Reopen saved session `session_id` (a full id): transcript, context and ledger exactly as
    saved, as a `session_type` (default `ChatSession`) built with `options`. Raises `StoreError`
    (one line) when it cannot be read, `SessionBusy` when another process has it open (claimed
    before loading, so no stale copy is ever saved over it)."""
    from co_tui.session.chat import ChatSession
    from co_tui.session.session_lock import claim_session

    claim = claim_session(store.path.parent, session_id)
    try:
        loaded = store.load(session_id, lazy=True)
        build = session_type or ChatSession
        session = build(settings, workspace=workspace, store=store, session_id=loaded.meta.id, **options)
    except BaseException:
        claim.release()
        raise
    session.reopen(loaded, claim)
    return session


def fork_saved(store: SessionStore, session_id: str) -> str:
    """`--fork-session`: copy saved session `session_id` (its branch in use, as saved) to a new
    session and return the new one's id; the source is not changed (`SessionStore.fork_whole`:
    no message is decoded, so the TUI still paints before pydantic-ai loads). Raises `StoreError`."""
    return store.fork_whole(session_id)


def resolve_session_id(
    store: SessionStore, workspace: Path, *, resume_id: str | None = None, continue_latest: bool = False
) -> str | None:
    """The full id of the session to resume: `resume_id` (an id or unique prefix), else with
    `continue_latest` the latest session of `workspace`; None when neither asks for one (a new
    session). Imports no pydantic-ai (the TUI shows a resumed conversation before it loads).

    A `resume_id` that names a JSON export or rescue file (`rescued-….json`) is imported as a new
    session first (`json_import`, which does import pydantic-ai), and that session is resumed.

    Raises `OpenSessionError` (exit 2) for a bare `--resume` (`resume_id == ""`: only the TUI has a
    picker) or when nothing is there to continue; `StoreError` (one line) for an unknown or
    ambiguous id, a file that is no export, or a damaged database (`StoreCorrupt`, also when a
    damaged index finds no session).
    """
    if resume_id == "":
        raise OpenSessionError("--resume needs a session id here (see co-tui --list-sessions)", 2)
    if resume_id:
        from co_tui.session.json_import import import_json_export, is_export_file

        if is_export_file(resume_id):
            return import_json_export(store, Path(resume_id).expanduser(), workspace)
        return store.resolve_id(resume_id)
    if continue_latest:
        latest = store.latest(workspace)
        if latest is None:
            raise OpenSessionError(f"no saved session in {workspace} to continue", 2)
        return latest.id
    return None


def quit_lines(session: SessionPort | None) -> tuple[str | None, str | None]:
    """What the TUI prints when it quits, as (stdout line, stderr line): how to resume `session`
    (`resume_hint`); or, when its last save failed (`unsaved`), where a rescue copy of the whole
    conversation was written instead — the database cannot resume what it does not hold."""
    if session is None or not session.unsaved():
        return resume_hint(session), None
    return None, rescue_line(session.write_rescue_copy())

"""Read a JSON export back in as a new saved session: `co-tui --resume rescued-….json`.

A save that failed (a damaged database, a session deleted under a running co-tui) leaves the
conversation in a rescue copy beside the database, a `--format json` export (`export.export_json`).
`--resume FILE` with such a file (or any JSON export) imports it into the store as a new session
and resumes that: transcript, context (what the model last saw; an export without it sends the whole
transcript, trimmed to the budget as usual) and the ledger of cuts with their places. The file is
left as it is; resuming it twice makes two sessions.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from co_tui.governance.events import HistoryTrimmed
from co_tui.store.errors import StoreError
from co_tui.store.session_store import SessionStore

MAX_IMPORT_BYTES = 512 * 1024 * 1024
"""A larger file is refused with one line rather than read into memory."""


class ExportUnreadable(StoreError):
    """The file is not a JSON export co-tui can read. `str()` is one line naming it."""


def is_export_file(argument: str) -> bool:
    """Whether `--resume ARGUMENT` names a file (a path to a `.json` file) rather than a session id."""
    return argument.endswith(".json") or "/" in argument


def _document(path: Path) -> dict[str, Any]:
    from co_tui.session.export import JSON_FORMAT_NAME

    try:
        size = path.stat().st_size
        if size > MAX_IMPORT_BYTES:
            raise ExportUnreadable(f"{path}: {size:,} bytes, more than a session export holds; not imported")
        document = json.loads(path.read_bytes())
    except OSError as exc:
        raise ExportUnreadable(f"{path}: cannot be read ({exc.strerror or exc})") from None
    except (ValueError, RecursionError):
        raise ExportUnreadable(f"{path}: not JSON; give a co-tui --format json export or rescue file") from None
    if not isinstance(document, dict) or document.get("format") != JSON_FORMAT_NAME:
        raise ExportUnreadable(f'{path}: not a co-tui session export (no "format": "{JSON_FORMAT_NAME}")')
    return document


def import_json_export(store: SessionStore, path: Path, workspace: Path) -> str:
    """Save the export at `path` as a new session of `workspace` in `store`; returns its id.
    Raises `StoreError` (one line): a file that cannot be read, is not a co-tui export or holds
    messages pydantic-ai cannot read; a store that cannot save it."""
    from pydantic_ai.messages import ModelMessagesTypeAdapter
    from pydantic_core import ValidationError

    document = _document(path)
    meta = document.get("meta") if isinstance(document.get("meta"), dict) else {}
    assert isinstance(meta, dict)
    try:
        transcript = ModelMessagesTypeAdapter.validate_python(document.get("transcript") or [])
        raw_context = document.get("context")
        # No context (an older export, or one of a damaged session): the model is sent the transcript.
        context = ModelMessagesTypeAdapter.validate_python(raw_context) if raw_context else transcript
        entries = [e for e in document.get("ledger") or [] if isinstance(e, dict)]
        ledger = [HistoryTrimmed.from_dict(e) for e in entries]
    except (ValidationError, TypeError, ValueError) as exc:
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise ExportUnreadable(f"{path}: a message or cut cannot be read ({first}); not imported") from None
    if not transcript:
        raise ExportUnreadable(f"{path}: the export holds no messages; nothing to resume")
    positions = [min(max(int(e.get("at_message") or 0), 0), len(transcript)) for e in entries]
    session_id = store.create_session(
        model=str(meta.get("model") or ""), workspace=workspace, title=str(meta.get("title") or "")
    )
    try:
        store.save_turn(
            session_id, new_transcript=transcript, context=context, new_events=ledger, event_positions=positions
        )
    except StoreError:
        store.delete(session_id)  # no half-imported session left behind
        raise
    return session_id


__all__ = ["MAX_IMPORT_BYTES", "ExportUnreadable", "import_json_export", "is_export_file"]

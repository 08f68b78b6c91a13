"""The CLI's session commands: `--list-sessions [--search WORDS]` (a table) and `--export ID` (to stdout).

Each returns the process's exit code and prints one line on stderr when it fails.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

from co_tui.session import (
    OpenSessionError,
    SessionHit,
    SessionMeta,
    StoreError,
    fork_origin,
    format_updated,
    format_usd,
    hit_segments,
    open_store_read_only,
    render_saved,
)
from co_tui.text import escape_controls, format_tokens, plural

if TYPE_CHECKING:
    from co_tui.config import Settings

__all__ = ["export_session", "list_sessions"]


def list_sessions(settings: Settings, workspace: Path, *, search: str | None = None) -> int:
    """`--list-sessions`: a table of saved sessions of all workspaces, the most recently updated first
    (one of another workspace names it, a fork the session it came from); UPDATED is local time, as
    `/sessions` shows it; COST is the session's cost at list prices, `–` when unknown (an unpriced
    model, or saved before costs were kept).

    `search` (`--search WORDS`): only the sessions whose title or saved text matches
    (`SessionStore.search`), each followed by an indented line around the hit in its newest matching
    message — hits in bold on a terminal; text from tools has its control characters escaped."""
    try:
        store = open_store_read_only(settings)
        if store is None:
            hits = []
        else:
            with store:  # closed when read: an embedding caller (a test) outlives the command
                hits = [SessionHit(meta) for meta in store.list_sessions()] if search is None else store.search(search)
    except OpenSessionError as exc:
        print(f"co-tui: {exc}", file=sys.stderr)
        return exc.exit_code
    except StoreError as exc:  # a damaged file: one line saying where and how to recover
        print(f"co-tui: {exc}", file=sys.stderr)
        return 2
    if not hits:
        print("no saved sessions" if search is None else f"no saved session matches “{escape_controls(search)}”")
        return 0
    bold = sys.stdout.isatty()
    width = 13 if any(hit.meta.subagent_tokens for hit in hits) else 7  # "3.4k+39.6k": subagents apart
    print(f"{'ID':<10} {'UPDATED':<16} {'MSGS':>5} {'TOKENS':>{width}} {'COST':>7}  TITLE")
    for hit in hits:
        meta = hit.meta
        updated = format_updated(meta.updated)
        here = "" if Path(meta.workspace) == workspace else f"  [{meta.workspace}]"
        damaged = "  (damaged: cannot be opened)" if meta.damaged else ""
        print(
            f"{meta.id[:8]:<10} {updated:<16} {meta.messages:>5} {_tokens(meta):>{width}} "
            f"{format_usd(meta.cost_usd):>7}  "
            f"{meta.title}{here}{fork_origin(meta)}{damaged}"
        )
        if hit.snippet:
            line = "".join(
                f"\x1b[1m{text}\x1b[22m" if is_hit and bold else text for text, is_hit in hit_segments(hit.snippet)
            )
            print(f"{'':<10} › {line}")
    return 0


def export_session(settings: Settings, session_id: str, fmt: str) -> int:
    """`--export ID --format md|json`: write the session to stdout."""
    try:
        store = open_store_read_only(settings)
        if store is None:
            raise StoreError(f"no session matches {session_id!r} (no session database in {settings.resolved_data_dir})")
        with store:
            meta, text, problems = render_saved(store, store.resolve_id(session_id), fmt)
    except OpenSessionError as exc:
        print(f"co-tui: {exc}", file=sys.stderr)
        return exc.exit_code
    except StoreError as exc:
        print(f"co-tui: {exc}", file=sys.stderr)
        return 2
    sys.stdout.write(text)
    if problems:  # the rest is exported, each bad row marked in its place
        print(
            f"co-tui: session {meta.id[:8]} is damaged: {plural(len(problems), 'part')} could not be read and "
            f"{'is' if len(problems) == 1 else 'are'} marked in the export; the rest was exported ({problems[0]})",
            file=sys.stderr,
        )
    return 0


def _tokens(meta: SessionMeta) -> str:
    """The main context's tokens, then `+` what the subagents' contexts held (docs/subagents.md)."""
    children = f"+{format_tokens(meta.subagent_tokens)}" if meta.subagent_tokens else ""
    return format_tokens(meta.tokens) + children

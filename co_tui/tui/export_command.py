"""`/export [md|json] [path]` in the TUI: its arguments, and the file written in a thread.

The session writes the file (`SessionPort.export`, `export.write_export`: never overwrites, mode
0600); this says where it went, or one line on what was wrong (docs/keys-and-commands.md).
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from co_tui.session import SessionPort
    from co_tui.tui.controller import ChatController

__all__ = ["export", "parse_export_args"]


def parse_export_args(args: str) -> tuple[str, Path | None]:
    """`[md|json] [path]` → (format, path or None). Without a format word the path's suffix
    decides (`.json` → json, else md). A bare word that is neither a format nor path-like
    (no `/`, `.` or `~`) is taken as a mistyped format: ValueError with one line."""
    from co_tui.session import FORMATS

    words = args.split(maxsplit=1)
    if not words:
        return "md", None
    if words[0] in FORMATS:
        return words[0], Path(words[1].strip()) if len(words) > 1 else None
    raw = args.strip()
    if not any(c in raw for c in "/.~"):
        raise ValueError(f"unknown export format '{words[0]}' — use /export [{'|'.join(FORMATS)}] [path]")
    path = Path(raw)
    return ("json" if path.suffix.lower() == ".json" else "md"), path


def export(controller: ChatController, args: str = "") -> None:
    """/export [md|json] [path]: write the open session to a new file (default: the data dir's
    exports folder). A relative path is taken from the workspace; an existing directory gets the
    default file name. A file that exists is refused by the hint under the prompt."""
    try:
        fmt, target = parse_export_args(args)
    except ValueError as exc:
        controller.view.show_hint(str(exc))
        return
    session = controller.ready_for("/export", idle=False)
    if session is None:
        return
    if not session.saved or not session.transcript:
        controller.view.show_hint("nothing saved to export yet", info=True)
        return
    controller.host.spawn(_run_export(controller, session, fmt, target))


async def _run_export(controller: ChatController, session: SessionPort, fmt: str, target: Path | None) -> None:
    from co_tui.session import ErrorEvent

    view = controller.view
    where = None if target is None else controller.workspace / target.expanduser()
    try:
        path = await asyncio.to_thread(session.export, fmt, where)
    except FileExistsError:  # the path the user gave is taken: their input, not a storage fault
        view.show_hint(f"export refused: {target} exists (nothing was overwritten) — give another path")
        return
    except Exception as exc:  # one line, the app keeps running
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        name = f" ({exc.filename})" if isinstance(exc, OSError) and exc.filename else ""
        await view.show_event(ErrorEvent(message=f"export failed: {reason}{name}", kind="storage"))
        return
    await view.add_notice(f"Exported {fmt} to {path}")

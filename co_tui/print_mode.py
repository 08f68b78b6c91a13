"""Print mode (`co-tui -p PROMPT`): one turn, the answer on stdout, then exit.

`--output-format jsonl` writes every domain event as one JSON object per line (DESIGN §3) and
always ends with a `done` line. Errors: one line on stderr, exit 1. Ctrl+C interrupts the turn
cleanly (the partial answer is kept and saved), exit 130.
"""

from __future__ import annotations

import asyncio
import json
import signal
import sys
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from co_tui.config import Settings

if TYPE_CHECKING:
    from co_tui.session.chat import ChatSession
    from co_tui.session.events import Event

EXIT_OK, EXIT_MODEL_ERROR, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130


def _write_event(event: Event, fmt: str, out: TextIO, err: TextIO) -> None:
    if fmt == "jsonl":
        out.write(json.dumps(event.to_dict(), ensure_ascii=False) + "\n")
        out.flush()
        return
    if event.type == "text_delta":
        out.write(event.text)
        out.flush()
    elif event.type == "tool_call":
        err.write(f"· {event.tool_name} {event.args}\n")
    elif event.type == "history_trimmed":
        from co_tui.session.banner import banner_line

        err.write(banner_line(event) + "\n")


async def _run(session: ChatSession, prompt: str, fmt: str, out: TextIO, err: TextIO) -> int:
    loop = asyncio.get_running_loop()
    try:
        loop.add_signal_handler(signal.SIGINT, session.cancel)
    except (NotImplementedError, RuntimeError):  # not on the main thread / platform without signals
        pass
    code = EXIT_OK
    ended_with_text = True
    async for event in session.run_turn(prompt):
        if event.type == "error":
            if event.kind != "interrupted":
                code = EXIT_MODEL_ERROR
            err.write(f"co-tui: {event.message}\n")
            err.flush()
        if event.type == "done":
            if event.interrupted and code == EXIT_OK:
                code = EXIT_INTERRUPTED
            ended_with_text = event.output.endswith("\n") or not event.output
        if event.type != "error" or fmt == "jsonl":
            _write_event(event, fmt, out, err)
    if fmt == "text" and not ended_with_text:
        out.write("\n")
    return code


def run_print_mode(
    settings: Settings,
    workspace: Path,
    prompt: str,
    *,
    output_format: str = "text",
    assume_yes: bool = False,
    resume_id: str | None = None,
    continue_latest: bool = False,
    out: TextIO | None = None,
    err: TextIO | None = None,
) -> int:
    """Run one turn and print it. Returns the exit code (0, 1, 2 or 130)."""
    out = out or sys.stdout
    err = err or sys.stderr
    if not prompt.strip():
        err.write("co-tui: -p needs a non-empty prompt\n")
        return EXIT_USAGE

    async def approve(command: str) -> bool:
        if not assume_yes:
            err.write(f"co-tui: run_shell refused ({command!r}): pass --yes to approve shell commands in print mode\n")
        return assume_yes

    from co_tui.session.commands import OpenSessionError, open_session

    try:
        session = open_session(
            settings, workspace, resume_id=resume_id, continue_latest=continue_latest, approver=approve
        )
    except OpenSessionError as exc:
        err.write(f"co-tui: {exc}\n")
        return exc.exit_code
    return asyncio.run(_run(session, prompt, output_format, out, err))

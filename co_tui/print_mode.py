"""Print mode (`co-tui -p PROMPT`): one turn, the answer on stdout, then exit.

`--output-format jsonl` writes every domain event as one JSON object per line and always ends
with a `done` line; the first line and `done` carry `session_id`. Errors: one line on stderr,
exit 1. Ctrl+C, SIGTERM and SIGHUP interrupt the turn cleanly (the partial answer is kept and saved), exit 130; so
does a reader that closes stdout early (`| head`), quietly, exit 141 (`co_tui.broken_pipe`).
The prompt, with stdin, is put together by `co_tui.print_input`.
"""

from __future__ import annotations

import asyncio
import json
import signal
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, TextIO, cast

from co_tui.config import Settings

if TYPE_CHECKING:
    from co_tui.session import ApprovalRequest, Decision, Event, SessionPort

EXIT_OK, EXIT_MODEL_ERROR, EXIT_USAGE, EXIT_INTERRUPTED, EXIT_BROKEN_PIPE = 0, 1, 2, 130, 141


def _write_event(event: Event, fmt: str, out: TextIO, err: TextIO, session_id: str | None = None) -> None:
    """Write one event; `session_id` is added to its JSON line (second, after `type`) when given."""
    if fmt == "jsonl":
        data = event.to_dict()
        if session_id is not None:
            data = {"type": data.pop("type"), "session_id": session_id, **data}
        out.write(json.dumps(data, ensure_ascii=False) + "\n")
        out.flush()
        return
    if event.type == "subagent_started":
        err.write(f"· subagent {event.agent}: {event.task.splitlines()[0][:120] if event.task else ''}\n")
    elif event.type == "subagent_finished":
        err.write(f"· {event.summary}\n")
    elif event.agent is not None:
        return  # text mode: a child's own events stay out of the answer (jsonl carries them all)
    elif event.type == "text_delta":
        out.write(event.text)
        out.flush()
    elif event.type == "tool_call":
        err.write(f"· {event.tool_name} {event.args}\n")
    elif event.type == "history_trimmed":
        from co_tui.session import banner_line

        line = banner_line(event)
        if event.strategy == "static_marker" and event.note:  # its last words ("summary rejected") in full
            line = f"{line.rsplit(' · ', 1)[0]} · {event.note}"
        err.write(line + "\n")
        if event.cache_warning:  # an eviction's (the session's first): the line after the cut's
            err.write(f"  note: {event.cache_warning}\n")
    elif event.type == "oversized_turn":
        err.write(f"co-tui: {event.message}\n")


async def _run(
    session: SessionPort, prompt: str, fmt: str, out: TextIO, err: TextIO, at_turn: int | None = None
) -> int:
    """The turn, with the session's MCP servers up around it (each failure: one line on stderr);
    `at_turn`: first go back to just before that turn's prompt, on a new branch (`--at`)."""
    from co_tui.daemon_threads import use_daemon_executor

    use_daemon_executor()  # a thread blocked for good (a FIFO read) never holds the exit
    # The data dir's warning, unreadable instruction files, each MCP server's news: one line each.
    async for event in session.start(announce=False, wait_for_mcp=True, on_mcp=lambda news: _say_all(news, err)):
        _say(event, err)
    if at_turn is not None:
        from co_tui.session import Refused

        point = next((p for p in await asyncio.to_thread(session.rewind_points) if p.turn == at_turn), None)
        try:
            if point is None:
                raise Refused(f"--at {at_turn}: the session has no turn {at_turn}")
            rewound = await session.rewind(point.position)
        except Refused as exc:
            err.write(f"co-tui: {exc}\n")
            await session.aclose()
            return EXIT_USAGE
        # The context changed: never silently (jsonl: its own line, naming the session; text: the banner on stderr).
        _write_event(rewound.event, fmt, out, err, session.id)
    if session.compact_mode == "ask":  # nobody to ask: the policy cuts as in auto, said once the run starts
        from co_tui.session import print_mode_ask_line

        err.write(f"co-tui: {print_mode_ask_line()}\n")
        session.set_compact_mode("auto")
    try:
        return await _run_turn(session, prompt, fmt, out, err)
    finally:
        closing = await session.aclose()  # MCP down, the claim let go, a rescue copy after a failed save
        if closing.problem:
            err.write(f"co-tui: {closing.problem}\n")


def _say_all(events: Sequence[Event], err: TextIO) -> None:
    for event in events:
        _say(event, err)


def _say(event: Event, err: TextIO) -> None:
    """One start-up line (a notice or a problem) on stderr."""
    from co_tui.session import ErrorEvent, Notice

    if isinstance(event, (Notice, ErrorEvent)):
        err.write(f"co-tui: {event.message}\n")
        err.flush()


async def _run_turn(session: SessionPort, prompt: str, fmt: str, out: TextIO, err: TextIO) -> int:
    loop = asyncio.get_running_loop()
    # SIGTERM and SIGHUP (a closed terminal) interrupt and save like Ctrl+C: the turn is kept.
    for signum in (signal.SIGINT, signal.SIGTERM, getattr(signal, "SIGHUP", None)):
        try:
            if signum is not None:
                loop.add_signal_handler(signum, session.cancel)
        except (NotImplementedError, RuntimeError, ValueError):  # not on the main thread / no signals
            pass
    code = EXIT_OK
    ended_with_text = True
    line_open = False  # the answer's text on stdout does not end with a newline yet
    ended_early = False  # that newline was written before an error line
    first = True
    closed = False  # the reader closed stdout (`| head`): the turn is interrupted, and saved
    last_usage = None  # the turn's end repeats the last reading: one line of it is enough
    async for event in session.run_turn(prompt):
        if event.type == "usage":
            if event == last_usage:
                continue
            last_usage = event
        if event.type == "error" and event.agent is not None:  # a child's: its delegate result says so
            if fmt == "jsonl" and not closed:
                _write_event(event, fmt, out, err)
            continue
        if event.type == "error" and not closed:
            if event.kind != "interrupted":
                code = EXIT_MODEL_ERROR
            if fmt == "text" and line_open:  # end the partial answer's line first: on a terminal the
                ended_early = _end_line(out)  # error line would start glued to it ("You co-tui: …")
                line_open = False
            err.write(f"co-tui: {event.message}\n")
            err.flush()
        if event.type == "oversized_turn" and event.refused:
            code = EXIT_MODEL_ERROR
        if event.type == "notice":  # not part of the jsonl stream (docs/architecture.md)
            if not closed:
                err.write(f"co-tui: {event.message}\n")
                err.flush()
            continue
        if event.type == "done":
            if event.interrupted and code == EXIT_OK:
                code = EXIT_INTERRUPTED
            ended_with_text = event.output.endswith("\n") or not event.output or ended_early
        if closed or (event.type == "error" and fmt != "jsonl"):
            continue
        # The first line and `done` name the session, so a script can --resume it.
        tagged = session.id if first or event.type == "done" else None
        try:
            _write_event(event, fmt, out, err, tagged)
            if event.type == "text_delta" and event.text:
                line_open = not event.text.endswith("\n")
        except BrokenPipeError:
            closed = True
            session.cancel()
        first = False
    if closed:
        return EXIT_BROKEN_PIPE
    if fmt == "text" and not ended_with_text:
        try:
            out.write("\n")
            out.flush()
        except BrokenPipeError:
            return EXIT_BROKEN_PIPE
    return code


def _end_line(out: TextIO) -> bool:
    """Write the newline that ends the answer's open line on stdout (the one the turn would end
    with anyway); True when written. A closed stdout is noticed by the next write."""
    try:
        out.write("\n")
        out.flush()
    except BrokenPipeError:
        return False
    return True


def run_print_mode(
    settings: Settings,
    workspace: Path,
    prompt: str,
    *,
    output_format: str = "text",
    assume_yes: bool = False,
    resume_id: str | None = None,
    continue_latest: bool = False,
    title: str | None = None,
    out: TextIO | None = None,
    err: TextIO | None = None,
    fork: bool = False,
    at_turn: int | None = None,
) -> int:
    """Run one turn and print it. Returns the exit code (0, 1, 2, 130, or 141 when stdout was
    closed by its reader). `title` names a new session instead of the prompt (which may start
    with attached stdin). `fork`: the resumed session is copied to a new one first
    (`--fork-session`); `at_turn`: the turn goes out from just before that earlier prompt, on a
    new branch (`--at`)."""
    from co_tui.escaped_output import EscapedOutput, is_terminal

    # Model, tool and server text reach these inside co-tui's lines: escaped, never obeyed by a terminal.
    err = cast(TextIO, EscapedOutput(err or sys.stderr))
    out = out or sys.stdout
    if output_format == "text" and is_terminal(out):
        out = cast(TextIO, EscapedOutput(out, keep_lines=True))
    if not prompt.strip():
        err.write("co-tui: -p needs a non-empty prompt\n")
        return EXIT_USAGE

    async def ask(request: ApprovalRequest) -> Decision:
        if assume_yes:
            return "once"
        shown: str | None
        if request.is_memory:  # the exact line, and the memory file it would go into
            what, shown = "memory notes", f"remembering {request.memory_words()}: {request.text!r}"
        elif request.is_edit:  # a file edit: `text` is its diff; the file says enough
            what, shown = "file edits", request.path
        else:
            what = "shell commands" if request.tool == "run_shell" else "tool calls that need approval"
            shown = repr(request.text)
        err.write(f"co-tui: {request.tool} refused ({shown}): pass --yes to approve {what} in print mode\n")
        # Nobody was asked: the model must not read that a user declined it.
        raise CannotAsk("print mode cannot ask for approval (co-tui was run without --yes)")

    from co_tui.session import CannotAsk, OpenSessionError, open_session, open_store

    try:
        store = open_store(settings)
    except OpenSessionError as exc:
        err.write(f"co-tui: {exc}\n")
        return exc.exit_code
    try:  # the store is print mode's to close: an embedding caller (ACP, a test) outlives the turn
        try:
            session = open_session(
                settings,
                workspace,
                resume_id=resume_id,
                continue_latest=continue_latest,
                ask=ask,
                title=title,
                one_shot=True,
                fork=fork,
                store=store,
            )
        except OpenSessionError as exc:
            err.write(f"co-tui: {exc}\n")
            return exc.exit_code
        if session.mcp.config_error:  # a malformed .mcp.json: one line naming the file, nothing run
            err.write(f"co-tui: {session.mcp.config_error}\n")
            session.release_claim()
            return EXIT_USAGE
        return asyncio.run(_run(session, prompt, output_format, out, err, at_turn))
    finally:
        store.close()

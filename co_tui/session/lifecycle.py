"""A session's start and close, said the same way by every front end (the TUI, print mode, ACP).

`SessionLifecycle.start()` yields what a front end must say as a session opens — the data dir's
warning, the project instructions (and each file that could not be read), a budget too tight for
them, a malformed `.mcp.json` — and starts the MCP servers; each server's news (failed, left tools
out, back after `/mcp restart`, a stray line) becomes a `Notice`. `aclose()` stops the servers,
lets go of the session's claim and, after a failed save, writes the rescue copy; it returns the
lines to print (`Closing`).

Front ends used to do each of these themselves (three copies); now they only show the events.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable, Sequence
from typing import TYPE_CHECKING, Any

from co_tui.session.events import ErrorEvent, Event, Notice
from co_tui.session.lifecycle_types import Background, Closing, Spawn, Task

if TYPE_CHECKING:
    from pathlib import Path

    from co_tui.session.port import SessionPort

__all__ = ["MCP_STOP_S", "Closing", "SessionLifecycle", "instruction_events", "server_events"]

MCP_STOP_S = 6.0  # closing waits this long at most for the MCP servers (2 s each, then SIGTERM)


McpListener = Callable[[Sequence[Event]], None]
"""Told on every status change of an MCP server after `start` returned, with the lines to show
(possibly none: the change still moves the meter, which counts the servers' tool schemas)."""


def server_events(server: Any) -> list[Event]:
    """What to say about an MCP server whose status just changed (`co_tui.agent.mcp_servers.
    McpServer`): its stray line, its failure, its return after `/mcp restart`, the tools it offered
    that the model is not given (a bad or taken name). None for a plain start or stop."""
    if server.notice:  # one line about it, its status unchanged (a stray stdout line)
        return [Notice(message=server.notice)]
    if server.status == "failed":
        return [Notice(message=server.line())]
    events: list[Event] = []
    if server.status == "running":
        if server.restarts:  # `/mcp restart`: say it is back
            events.append(Notice(message=server.line()))
        if server.left_out:
            events.append(Notice(message=server.left_out_line()))
    return events


def instruction_events(session: SessionPort, *, announce: bool = True) -> list[Event]:
    """The project instruction files the model is sent (one line, `announce`), an error per file
    that could not be read (the rest works without it), and — `announce` — the warning that the
    budget is too tight for what every request carries."""
    from co_tui.agent.project_instructions import describe_files
    from co_tui.session.oversize import tight_budget_warning

    files = list(session.instruction_files)
    events: list[Event] = []
    line = describe_files(files)
    if line and announce:
        events.append(Notice(message=f"Project {line} · /context shows what each request holds"))
    events += [ErrorEvent(message=f"instructions skipped: {f.error}", kind="config") for f in files if f.error]
    if announce:
        warning = tight_budget_warning(session.meter_reading(), [f.path.name for f in files if not f.error])
        if warning is not None:  # said once, as the conversation starts: requests will go over the budget
            events.append(warning)
    return events


class SessionLifecycle:
    """One session's start and close (see the module docstring). `session`: the port it serves."""

    def __init__(self, session: SessionPort) -> None:
        self.session = session
        self._mcp_task: Background | None = None
        self._listener: McpListener | None = None

    async def start(
        self,
        *,
        data_dir: bool = True,
        announce: bool = True,
        wait_for_mcp: bool = False,
        on_mcp: McpListener | None = None,
        spawn: Spawn | None = None,
    ) -> AsyncIterator[Event]:
        """Yield the opening lines and start the MCP servers (in a task on this loop).

        `data_dir`: say the data dir's warning (once a process: a session switch keeps the same dir);
        `announce`: the informational lines a chat shows and a one-shot run does not (the
        instructions loaded, the tight budget); `wait_for_mcp`: yield each server's news until every
        one runs or failed (print mode, ACP) — else return at once (the TUI: typing never waits).
        Every later change goes to `on_mcp`; `spawn` runs the servers' supervisor (default: a task
        on this loop). A malformed `.mcp.json` is an `ErrorEvent` (kind
        `config`) and no server starts. Never raises.
        """
        session = self.session
        if data_dir and session.data_dir_warning:
            yield Notice(message=session.data_dir_warning)
        for event in instruction_events(session, announce=announce):
            yield event
        servers = session.mcp
        if servers is None:
            return
        if servers.config_error:
            yield ErrorEvent(message=f"MCP: {servers.config_error}", kind="config")
        if not servers or self._mcp_task is not None:
            return
        self._listener = on_mcp
        early: asyncio.Queue[Sequence[Event] | None] = asyncio.Queue()
        waiting = wait_for_mcp

        warned = False  # the tool schemas' share of the window: said once

        def changed(server: Any) -> None:
            nonlocal warned
            events = server_events(server)
            if server.status == "running" and not server.notice and not warned:
                from co_tui.session.oversize import tool_schemas_warning

                heavy = tool_schemas_warning(servers.servers, session.meter_reading())
                if heavy:  # every request carries them
                    warned = True
                    events = [*events, Notice(message=heavy)]
            if waiting:
                early.put_nowait(events)
            elif self._listener is not None:
                self._listener(events)

        servers.set_listener(changed)
        self._mcp_task = (spawn or Task)(servers.run(lambda: early.put_nowait(None)))
        while waiting:
            news = await early.get()
            if news is None:
                waiting = False
                break
            for event in news:
                yield event
        # News queued after the last server started goes on to the listener.
        while not early.empty():
            queued = early.get_nowait()
            if queued and self._listener is not None:
                self._listener(queued)

    @property
    def mcp_running(self) -> bool:
        """Whether `start` started MCP servers that `aclose` has not stopped yet."""
        return self._mcp_task is not None

    async def stop_mcp(self) -> list[str]:
        """Close the MCP servers and wait for them (at most `MCP_STOP_S`); returns their names.
        Left to the event loop's teardown, a server busy in a tool call kept co-tui from exiting
        until that call ended (docs/configuration.md, "MCP servers")."""
        task, self._mcp_task = self._mcp_task, None
        if task is None:
            return []
        servers = self.session.mcp
        servers.set_listener(None)
        await servers.stop()  # each server is closed: a stdio process gets 2 s, then a SIGTERM
        with contextlib.suppress(Exception):
            await asyncio.wait_for(task.wait(), MCP_STOP_S)
        task.cancel()
        return [server.name for server in servers.servers]

    async def aclose(self) -> Closing:
        """Stop the MCP servers, write the rescue copy after a failed save, let go of the claim.
        Returns what to say (`Closing`). Never raises."""
        from co_tui.session.closing_lines import rescue_line, resume_hint

        stopped = await self.stop_mcp()
        session = self.session
        rescued: Path | None = None
        hint = problem = None
        try:
            if await asyncio.to_thread(session.unsaved):
                rescued = await asyncio.to_thread(session.write_rescue_copy)
                problem = rescue_line(rescued)
            else:
                hint = resume_hint(session)
        except Exception as exc:  # the store cannot even say: one line, the claim still let go
            problem = f"the conversation could not be checked for a last save: {exc}"
        session.release_claim()
        return Closing(hint=hint, problem=problem, rescued=rescued, mcp_stopped=stopped, released=True)

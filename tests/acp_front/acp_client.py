"""A real ACP client for the tests: the SDK's own client side (`acp.spawn_agent_process`) driving a
`co-tui acp` subprocess over real stdio. `Recorder` keeps every update and answers permission
requests from a script; `open_agent` starts the process and initializes it."""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from acp import PROTOCOL_VERSION, schema, spawn_agent_process
from cli_process import ROOT


class Recorder:
    """The client: records `session_update`s; answers `request_permission` with the next option id
    of `answers` ("cancelled" when none is left, or when `answers` holds None)."""

    def __init__(self, *answers: str | None) -> None:
        self.updates: list[tuple[str, Any]] = []
        self.asked: list[schema.RequestPermissionRequest] = []
        self.answers = list(answers)
        self.asking = asyncio.Event()
        self.hold: asyncio.Event | None = None  # set: permission answers wait for it

    async def session_update(self, session_id: str, update: Any, **_: Any) -> None:
        self.updates.append((session_id, update))

    async def request_permission(self, session_id: str, tool_call: Any, options: list[Any], **_: Any) -> Any:
        self.asked.append(schema.RequestPermissionRequest(session_id=session_id, tool_call=tool_call, options=options))
        self.asking.set()
        if self.hold is not None:
            await self.hold.wait()
        answer = self.answers.pop(0) if self.answers else None
        if answer is None:
            return schema.RequestPermissionResponse(outcome=schema.DeniedOutcome(outcome="cancelled"))
        return schema.RequestPermissionResponse(outcome=schema.AllowedOutcome(outcome="selected", option_id=answer))

    def of(self, kind: str, session_id: str | None = None) -> list[Any]:
        """The updates of `kind` (`session_update` value), of `session_id` if given."""
        return [u for sid, u in self.updates if u.session_update == kind and (session_id is None or sid == session_id)]

    def text(self, session_id: str | None = None) -> str:
        """Every agent message chunk's text, joined."""
        return "".join(u.content.text for u in self.of("agent_message_chunk", session_id))

    def on_connect(self, conn: Any) -> None:
        pass


@contextlib.asynccontextmanager
async def open_agent(
    client: Recorder, *args: str, cwd: Path, env: dict[str, str] | None = None
) -> AsyncIterator[tuple[Any, Any]]:
    """`co-tui acp args…` in `cwd`, initialized: yields (the client's connection, the process)."""
    environment = {**os.environ, "PYTHONPATH": str(ROOT), **(env or {})}
    # At the end the SDK closes the agent's stdin and waits for it to exit, by default 2 s, then
    # terminates it: on a loaded host the agent (closing its session) took longer, and the terminate
    # raced its exit (ProcessLookupError). The wait is for the exit; 60 s bounds a hung agent only.
    async with spawn_agent_process(
        client,
        sys.executable,
        "-m",
        "co_tui",
        "acp",
        *args,
        cwd=cwd,
        env=environment,
        transport_kwargs={"shutdown_timeout": 60},
        use_unstable_protocol=True,
    ) as (conn, process):
        await asyncio.wait_for(conn.initialize(protocol_version=PROTOCOL_VERSION), 60)
        yield conn, process

"""A real ACP client for the tests: the SDK's own client side (`acp.connect_to_agent`) driving
co-tui's ACP agent (`co_tui.acp.serve`, what `co-tui acp` serves on stdio) over a pair of real
pipes in the test's process: the protocol's JSON lines are written and parsed as on stdio, without
a ~1.5 s process start per test. `Recorder` keeps every update and answers permission requests
from a script; `open_agent` starts the agent and initializes it. The real `co-tui acp` process on
stdio is tested in test_acp_stdio.py."""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from acp import PROTOCOL_VERSION, connect_to_agent, schema
from cli_process import environment, working_dir


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


async def _pipe() -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """Both ends of a new pipe as asyncio streams (as `co_tui.acp` reads stdin and writes stdout)."""
    loop = asyncio.get_running_loop()
    read_fd, write_fd = os.pipe()
    reader = asyncio.StreamReader(limit=50 * 1024 * 1024)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), os.fdopen(read_fd, "rb", buffering=0))
    transport, protocol = await loop.connect_write_pipe(
        asyncio.streams.FlowControlMixin, os.fdopen(write_fd, "wb", buffering=0)
    )
    return reader, asyncio.StreamWriter(transport, protocol, None, loop)


def _settings(args: tuple[str, ...]) -> Any:
    """The settings `co-tui acp args…` runs with (its flags: --model M, --allow-shell, --no-compact)."""
    from co_tui.cli import build_parser
    from co_tui.config import load_settings

    parsed = build_parser().parse_args(list(args))
    return load_settings(
        model=parsed.model,
        allow_shell=parsed.allow_shell,
        compact_mode="off" if parsed.no_compact else None,
    )


@contextlib.asynccontextmanager
async def open_agent(
    client: Recorder, *args: str, cwd: Path, env: dict[str, str] | None = None
) -> AsyncIterator[tuple[Any, None]]:
    """`co-tui acp args…` in `cwd` with `env` on top of the environment (both for the agent's whole
    life, restored after), served in this process, initialized: yields (the client's connection,
    None: there is no process). Leaving closes the client's end, as an editor closes stdin; the
    agent then stops every turn and closes every session, and is waited for."""
    from co_tui.acp import serve

    with working_dir(cwd), environment(env or {}):
        agent_in, client_out = await _pipe()
        client_in, agent_out = await _pipe()
        served = asyncio.create_task(serve(_settings(args), agent_in, agent_out))
        conn = connect_to_agent(client, client_out, client_in, use_unstable_protocol=True)
        try:
            await asyncio.wait_for(conn.initialize(protocol_version=PROTOCOL_VERSION), 60)
            yield conn, None
        finally:
            await conn.close()
            client_out.close()
            await asyncio.wait_for(served, 60)  # the bound only fails a hung agent
            agent_out.close()

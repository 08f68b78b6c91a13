"""MCP servers as agent toolsets: configured, started in the background, supervised (docs/configuration.md, "MCP servers").

Everything MCP is pydantic-ai's: `MCPToolset` connects (stdio or streamable HTTP), `load_mcp_toolsets`
reads a Claude Code `.mcp.json` (which servers there are: mcp_config.py), `PrefixedToolset`
namespaces the tools by server (`NAME_tool`). What
co-tui adds, in `McpServerToolset` (a `WrapperToolset` the agent holds):

- a server is entered once by its own supervisor task, started after the TUI's first paint, and not
  by each agent run: a server that fails to start is `failed` with a one-line reason, offers no
  tools, and the run goes on with the others;
- a server that dies mid-call becomes a failed tool result (and `failed`), never a crashed turn;
- calls the server marks destructive (`destructiveHint`), or every call of a server listed in
  `mcp_approve`, await the same approver as `run_shell`;
- a text output is kept whole up to co-tui's limit on one output (`output_limit.cap_output`, as
  the shell's); governance previews a big one and trims it in later turns like any tool output.

pydantic-ai and fastmcp are imported only when a server is configured, so a session without MCP
servers (and the TUI's start-up) never loads them.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from co_tui.agent.output_limit import OUTPUT_MAX_CHARS, cap_output
from co_tui.agent.tools import Approver, CannotAsk
from co_tui.text import one_line

if TYPE_CHECKING:
    from pydantic_ai.toolsets import AbstractToolset


McpStatus = Literal["starting", "running", "failed", "stopped"]
StatusListener = Callable[["McpServer"], None]
"""Called on every status change of a server (the TUI turns `failed` into a line in the chat)."""

START_TIMEOUT_S = 30.0  # connect + initialize; a server started by `npx`/`uvx` may install first
REASON_CHARS = 200
_CONNECTION_CLOSED = -32000  # JSON-RPC error code of MCP's "Connection closed" (mcp_types.CONNECTION_CLOSED)
_REQUEST_TIMEOUT = -32001  # the SDK's "no answer within the read timeout" (mcp_types.REQUEST_TIMEOUT)
# What providers accept as a tool name (OpenAI's and Anthropic's rule): a name outside it (a newline,
# an ESC, a dot) would fail every request, or reach a terminal raw; such a tool is left out.
_TOOL_NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


@dataclass
class McpServer:
    """One configured server: where it came from, its status, its tools once running."""

    name: str
    source: str  # "config file …" or the `.mcp.json` path: where the user fixes it
    toolset: Any  # pydantic-ai MCPToolset
    approve_all: bool = False
    status: McpStatus = "starting"
    reason: str = ""
    tool_defs: list[Any] = field(default_factory=list)  # pydantic-ai ToolDefinitions, names prefixed
    # Each tool the server lists but the model is not offered (a bad or taken name) and why, set with
    # its `running` status: the front ends show `left_out_line()` once (print mode: stderr), `/mcp` too.
    left_out: list[str] = field(default_factory=list)
    stderr: Any = None  # a stdio server's `mcp_stdio.StderrTail` (its last lines: why it died)
    transport: Any = None  # a stdio server's `mcp_stdio.CappedStdioTransport` (`ended`: why co-tui closed it)
    call_timeout_s: float = 300.0  # `mcp_call_timeout_s`
    # `stderr.total` when the latest call began: a death is explained by what the server wrote
    # since, not by an earlier tool's error (`… (Connection closed) (purpose')`).
    stderr_mark: int = 0
    restart_requested: asyncio.Event | None = None  # set by `McpServers.restart`; None when not supervised
    restarts: int = 0  # how often `/mcp restart` started it again
    # A one-line notice while the listener is told it (`say`), not a status: "" otherwise.
    notice: str = ""
    listener: StatusListener | None = None
    # Called after every status change, besides `listener` (the front end's): the session recounts
    # what every request carries (`McpServers.watch_tools`).
    tools_watcher: Callable[[], None] | None = None

    @property
    def prefix(self) -> str:
        """The namespace of the server's tools: a tool `x` is offered as `NAME_x`."""
        return self.name

    def set_status(self, status: McpStatus, reason: str = "") -> None:
        """Move to `status` (a failed server keeps its first reason) and tell the listener."""
        if self.status == "failed" and status == "failed":
            return
        self.status = status
        self.reason = one_line(reason, REASON_CHARS) if reason else ""
        if status != "running":
            self.tool_defs = []
        if status == "starting":  # again (`/mcp restart`): its list is taken afresh
            self.left_out = []
        if self.listener is not None:
            self.listener(self)
        if self.tools_watcher is not None:
            self.tools_watcher()

    def say(self, text: str) -> None:
        """Tell the listener one line about the server (its status unchanged): `notice` while it runs."""
        if self.listener is not None:
            self.notice = redacted(text)
            try:
                self.listener(self)
            finally:
                self.notice = ""

    def fail(self, reason: str) -> None:
        """Mark the server failed with `reason` plus the last line it wrote to stderr since its latest
        call began, if any, credentials redacted (the line reaches the model and the chat)."""
        last = self.last_stderr_line()
        self.set_status("failed", redacted(f"{reason} ({last})" if last and last not in reason else reason))

    def last_stderr_line(self) -> str:
        """The last non-empty line the server wrote to stderr since `stderr_mark` (stdio servers), or ""."""
        return self.stderr.last_line(since=self.stderr_mark) if self.stderr is not None else ""

    def mark_call(self) -> None:
        """A call (or a start) begins: only stderr written from now on can explain its failure."""
        if self.stderr is not None:
            self.stderr_mark = self.stderr.mark()

    def left_out_line(self) -> str:
        """One line naming the tools the model is not offered and why, or "" when none was left out."""
        if not self.left_out:
            return ""
        count = f"{len(self.left_out)} tool{'s' if len(self.left_out) > 1 else ''}"
        return one_line(f"MCP server {self.name}: {count} left out: {'; '.join(self.left_out)}", 400)

    def needs_approval(self, tool_def: Any) -> bool:
        """Every tool of a server in `mcp_approve`, and any tool the server marks destructive."""
        if self.approve_all:
            return True
        annotations = (tool_def.metadata or {}).get("annotations") or {}
        return annotations.get("destructiveHint") is True

    def line(self) -> str:
        """One line for the chat: which server, what happened."""
        if self.status == "failed":
            return f"MCP server {self.name} failed: {self.reason}"
        if self.status == "running":
            return f"MCP server {self.name}: running, {len(self.tool_defs)} tools"
        return f"MCP server {self.name}: {self.status}"


class McpServers:
    """The session's MCP servers (possibly none), their toolsets for the agent and their lifecycle."""

    def __init__(self, servers: Sequence[McpServer] = (), *, config_error: str | None = None) -> None:
        self.servers = list(servers)
        self.config_error = config_error
        """A malformed `.mcp.json` or server entry, one line (print mode exits 2; the TUI shows it)."""
        self.approver: Approver | None = None
        self._stop: asyncio.Event | None = None
        self._toolsets: list[Any] | None = None

    def __bool__(self) -> bool:
        return bool(self.servers)

    def toolsets(self) -> list[AbstractToolset[Any]]:
        """One toolset per server for `build_agent` (the same objects across agent rebuilds)."""
        if self._toolsets is None:
            self._toolsets = [_server_toolset(server, self) for server in self.servers]
        return list(self._toolsets)

    def set_listener(self, listener: StatusListener | None) -> None:
        """Call `listener(server)` on every status change from now on."""
        for server in self.servers:
            server.listener = listener

    def watch_tools(self, watcher: Callable[[], None] | None) -> None:
        """Call `watcher()` whenever a server's tools may have changed (it started with its list, or
        failed or stopped: none), independently of `set_listener`'s listener."""
        for server in self.servers:
            server.tools_watcher = watcher

    def tool_defs(self) -> list[Any]:
        """The `ToolDefinition`s the running servers offer the model now (names prefixed)."""
        return [d for server in self.servers for d in server.tool_defs]

    def starting(self) -> list[str]:
        """The servers whose tools are not known yet (not started, or starting): their schemas are
        in no count until they run (docs/context-governance.md, "The meter")."""
        return [server.name for server in self.servers if server.status == "starting"]

    async def run(self, on_ready: Callable[[], None] | None = None) -> None:
        """Start every server and keep them up until `stop()` or cancellation, then close them.

        Never raises for a server's failure: it becomes that server's `failed` status. `on_ready`
        is called once every server is running or failed.
        """
        if not self.servers:
            if on_ready is not None:
                on_ready()
            return
        self._stop = asyncio.Event()
        started = [asyncio.Event() for _ in self.servers]
        tasks = [asyncio.ensure_future(self._supervise(s, e)) for s, e in zip(self.servers, started, strict=True)]
        try:
            await asyncio.gather(*(e.wait() for e in started))  # each supervisor sets its event, come what may
            if on_ready is not None:
                on_ready()
            await asyncio.gather(*tasks)
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)

    async def start(self) -> None:
        """Start the servers in a background task; return once each is running or failed (print mode)."""
        ready = asyncio.Event()
        self._runner = asyncio.ensure_future(self.run(ready.set))
        await ready.wait()

    async def stop(self) -> None:
        """Close every server (stdio processes end) and wait for it."""
        if self._stop is not None:
            self._stop.set()
        runner = getattr(self, "_runner", None)
        if runner is not None:
            await asyncio.gather(runner, return_exceptions=True)

    def restart(self, name: str) -> str:
        """Ask the supervisor of server `name` to close it and start it again (`/mcp restart NAME`).

        Returns the one line to show: what happens, or why nothing does (no such server, not
        supervised now, starting already). Its new status reaches the listener as usual.
        """
        server = next((s for s in self.servers if s.name == name), None)
        if server is None:
            names = ", ".join(s.name for s in self.servers) or "none configured"
            return f"no MCP server is named {name!r} (servers: {names})"
        if server.restart_requested is None or self._stop is None or self._stop.is_set():
            return f"MCP server {name} cannot be restarted now ({server.status})"
        if server.status == "starting":
            return f"MCP server {name} is starting already"
        server.restart_requested.set()
        return f"MCP server {name}: restarting"

    async def _supervise(self, server: McpServer, started: asyncio.Event) -> None:
        """Start `server`, keep it until `stop()`, and start it again each time `restart` asks."""
        assert self._stop is not None
        try:
            while True:
                server.restart_requested = asyncio.Event()
                entered = await self._start_one(server)
                started.set()
                waits = [
                    asyncio.ensure_future(self._stop.wait()),
                    asyncio.ensure_future(server.restart_requested.wait()),
                ]
                try:
                    await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
                finally:
                    for waiting in waits:
                        waiting.cancel()
                    restarting = server.restart_requested.is_set() and not self._stop.is_set()
                    if server.status == "running" and not restarting:  # stop() or cancelled
                        server.set_status("stopped")
                    if entered:
                        try:
                            await server.toolset.__aexit__(None, None, None)
                        except Exception:  # a dead process or closed pipe: nothing left to close
                            pass
                if self._stop.is_set():
                    return
                server.restarts += 1
                server.set_status("starting")
        finally:
            server.restart_requested = None
            started.set()
            if server.stderr is not None:
                server.stderr.close()

    async def _start_one(self, server: McpServer) -> bool:
        """Connect and list the tools: `running`, or `failed` with why. True if the toolset was entered."""
        server.mark_call()  # a restart's failure is not explained by the previous process's last words
        try:
            async with asyncio.timeout(START_TIMEOUT_S):
                await server.toolset.__aenter__()
        except Exception as exc:
            why = f"no answer in {START_TIMEOUT_S:g} s" if isinstance(exc, TimeoutError) else _reason(exc)
            server.fail(f"could not start: {why}")
            return False
        try:
            tools = await server.toolset.list_tools()
            accepted = self._accept(server, tools)
        except Exception as exc:
            server.fail(f"could not list its tools: {_reason(exc)}")
            return True
        server.tool_defs, server.left_out = accepted
        # Outside the try: a listener's own error is not the server's (it once marked a healthy one
        # failed, "could not list its tools: No nodes match '#mcp-text'").
        server.set_status("running")
        return True

    def _accept(self, server: McpServer, tools: Sequence[Any]) -> tuple[list[Any], list[str]]:
        """The tools of `server` the model is offered, and a note for each one left out: a name
        outside `[A-Za-z0-9_-]` (1-64 characters, prefix included), or one already taken — by a
        workspace tool, or by another server's tool (`a` + `b_c` and `a_b` + `c` are both `a_b_c`:
        the server that listed it first keeps it)."""
        from co_tui.agent.tools import SHELL_TOOL_NAME, TOOL_NAMES

        taken = {name: "a workspace tool" for name in (*TOOL_NAMES, SHELL_TOOL_NAME)}
        for other in self.servers:
            if other is not server:
                taken.update({d.name: f"MCP server {other.name}" for d in other.tool_defs})
        accepted: list[Any] = []
        left_out: list[str] = []
        for tool in tools:
            name = f"{server.prefix}_{tool.name}"
            shown = one_line(repr(str(tool.name)), 80)  # escaped: a name may hold a newline or ESC
            if not _TOOL_NAME.match(name):
                why = "a tool name is 1-64 letters, digits, '_' or '-', the server's name included"
            elif name in taken:
                why = f"{name} is already a name of {taken[name]}"
            else:
                taken[name] = f"MCP server {server.name}"
                accepted.append(_tool_def(server.prefix, tool))
                continue
            left_out.append(f"{shown} ({why})")
        return accepted, left_out


def _reason(exc: BaseException) -> str:
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    text = str(exc) or type(exc).__name__
    return text.removeprefix("Client failed to connect: ")


def _tool_def(prefix: str, tool: Any) -> Any:
    """A pydantic-ai `ToolDefinition` for an MCP tool as the model sees it (name prefixed)."""
    from pydantic_ai.tools import ToolDefinition

    annotations = tool.annotations.model_dump(by_alias=True) if tool.annotations else None
    return ToolDefinition(
        name=f"{prefix}_{tool.name}",
        description=tool.description,
        parameters_json_schema=dict(tool.input_schema),
        metadata={"annotations": annotations},
    )


def redacted(text: str) -> str:
    """`text` without any credential co-tui knows of (the environment's, the servers' env and headers)."""
    from co_tui.redaction import redact_text, secret_env_values

    return redact_text(text, secret_env_values())


# --- the agent's view of a server ----------------------------------------------------------------


def _server_toolset(server: McpServer, servers: McpServers) -> AbstractToolset[Any]:
    from pydantic_ai.toolsets import PrefixedToolset

    return _guarded_toolset_class()(PrefixedToolset(server.toolset, prefix=server.prefix), server, servers)


_GUARDED: type | None = None


def _guarded_toolset_class() -> type:
    """`McpServerToolset`, defined on first use: it subclasses pydantic-ai's `WrapperToolset`."""
    global _GUARDED
    if _GUARDED is not None:
        return _GUARDED
    from pydantic_ai import ToolDenied, ToolFailed
    from pydantic_ai.exceptions import ModelRetry
    from pydantic_ai.toolsets import WrapperToolset

    class McpServerToolset(WrapperToolset[Any]):
        """One server's tools for the agent (see the module docstring); `server_name` says which."""

        def __init__(self, wrapped: Any, server: McpServer, servers: McpServers) -> None:
            super().__init__(wrapped)
            self.server = server
            self.servers = servers

        @property
        def server_name(self) -> str:
            return self.server.name

        async def __aenter__(self) -> Any:
            return self  # the supervisor task keeps the connection, not each run

        async def __aexit__(self, *args: Any) -> bool | None:
            return None

        async def get_tools(self, ctx: Any) -> dict[str, Any]:
            if self.server.status != "running":
                return {}
            try:
                tools = await super().get_tools(ctx)
            except Exception as exc:
                self.server.fail(f"stopped answering: {_reason(exc)}")
                return {}
            # Only the tools accepted when the server listed them (`McpServers._accept`): a bad or
            # taken name would fail every request ("… conflicts with …"), and what is offered is
            # what is counted.
            offered = {d.name for d in self.server.tool_defs}
            return {name: tool for name, tool in tools.items() if name in offered}

        async def call_tool(self, name: str, tool_args: dict[str, Any], ctx: Any, tool: Any) -> Any:
            server = self.server
            if server.status != "running":
                raise ToolFailed(f"MCP server {server.name} is not running ({server.reason or server.status})")
            if server.needs_approval(tool.tool_def):
                text = f"{name} {json.dumps(tool_args, ensure_ascii=False)}"
                approver = self.servers.approver
                if approver is None:
                    return ToolDenied(f"Not run: no one can approve {name} here, so the call was refused.")
                try:
                    approved = await approver(text, tool=name, tool_call_id=getattr(ctx, "tool_call_id", None))
                except CannotAsk as exc:
                    return ToolDenied(f"Not run: {exc}, so the call to {name} was refused. Do not retry it.")
                except Exception as exc:  # a broken dialog must not run the tool
                    return ToolDenied(f"Not run: asking for approval failed ({exc}), so {name} was not called.")
                if not approved:
                    return ToolDenied(f"The user declined the call to {name}. Do not retry it; ask what they want.")
            server.mark_call()
            try:
                result = await super().call_tool(name, tool_args, ctx, tool)
            except ModelRetry as exc:
                # pydantic-ai turns a protocol error into a retry. Three are failures no retry fixes:
                # the process is gone ("connection closed": the server failed), an answer over the
                # read cap, no answer in time.
                code = getattr(exc.__cause__, "code", None)
                if code == _CONNECTION_CLOSED:
                    server.fail(f"it stopped during a call to {name} ({_closed_reason(server, exc)})")
                    raise ToolFailed(f"MCP server {server.name} failed: {server.reason}") from None
                if code == _oversized_code():
                    raise ToolFailed(f"MCP server {server.name}: {_reason(exc.__cause__ or exc)}") from None
                if code == _REQUEST_TIMEOUT:
                    raise ToolFailed(
                        f"MCP server {server.name}: no answer from {name} in {server.call_timeout_s:g} s "
                        "(mcp_call_timeout_s)"
                    ) from None
                raise
            except ToolFailed as exc:  # the tool's own error: its text may quote what the server was given
                raise ToolFailed(redacted(str(exc))) from None
            except Exception as exc:
                server.fail(f"it stopped during a call to {name} ({_closed_reason(server, exc)})")
                raise ToolFailed(f"MCP server {server.name} failed: {server.reason}") from None
            return _capped(result)

    _GUARDED = McpServerToolset
    return McpServerToolset


def _closed_reason(server: McpServer, exc: BaseException) -> str:
    """Why a connection closed: co-tui's own reason when it ended it (`CappedStdioTransport.ended`)."""
    ended = getattr(server.transport, "ended", "")
    return ended or _reason(exc.__cause__ or exc)


def _oversized_code() -> int:
    from co_tui.agent.mcp_stdio import OVERSIZED

    return OVERSIZED


def _capped(result: Any) -> Any:
    """A text (or JSON) result over co-tui's limit on one output: its head and tail around a note, as
    run_shell's output; a credential co-tui knows of is redacted before the model reads it."""
    if isinstance(result, str):
        return cap_output(redacted(result), OUTPUT_MAX_CHARS)
    if isinstance(result, (dict, list)):
        text = redacted(json.dumps(result, ensure_ascii=False, default=str))
        if len(text) > OUTPUT_MAX_CHARS:
            return cap_output(text, OUTPUT_MAX_CHARS)
        return json.loads(text)
    return result


@dataclass(frozen=True)
class McpServerRow:
    """One line of `/mcp`: a server, its status, its tools and what their schemas cost per request."""

    name: str
    status: McpStatus
    reason: str
    tools: int
    schema_tokens: int
    approve_all: bool
    source: str
    left_out: tuple[str, ...] = ()  # tools not offered, each with why (`McpServer.left_out`)
    tool_names: tuple[str, ...] = ()  # as the model sees them
    asks_first: tuple[str, ...] = ()  # those of `tool_names` that need approval


def mcp_overview(servers: McpServers | None) -> list[McpServerRow]:
    """The rows of `/mcp`, in configuration order (tokens by `factory.tool_schema_tokens`)."""
    from co_tui.agent.factory import tool_schema_tokens

    if servers is None:
        return []
    return [
        McpServerRow(
            s.name,
            s.status,
            s.reason,
            len(s.tool_defs),
            tool_schema_tokens(s.tool_defs),
            s.approve_all,
            s.source,
            tuple(s.left_out),
            tuple(d.name for d in s.tool_defs),
            tuple(d.name for d in s.tool_defs if s.needs_approval(d)),
        )
        for s in servers.servers
    ]


def mcp_tool_definitions_by_server(servers: McpServers | None) -> dict[str, list[Any]]:
    """`{server name: its ToolDefinitions as the model sees them}` — empty lists for servers not running.

    For `/mcp` and `/context`: price them with `co_tui.agent.factory.tool_schema_tokens`.
    """
    if servers is None:
        return {}
    return {server.name: list(server.tool_defs) for server in servers.servers}


__all__ = [
    "McpServer",
    "McpServerRow",
    "McpServers",
    "mcp_overview",
    "mcp_tool_definitions_by_server",
]

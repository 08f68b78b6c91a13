"""`CoTuiAgent`: co-tui as an ACP agent (the SDK's `Agent` protocol), a front end like the TUI and
print mode — the session does the work; this opens sessions, forwards requests and says the
session's events as updates (`updates.updates_of`).

Each ACP session is one co-tui session (`co_tui.session.open_session`) in the client's `cwd`, saved
in the same SQLite store the TUI and `co-tui --list-sessions` use. Approvals go to the client as
`session/request_permission`; `compact_mode` is the session's mode; the command table is advertised
and runs when a prompt starts with `/`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

from acp import PROTOCOL_VERSION, RequestError
from acp import schema as s
from acp.helpers import update_current_mode

from co_tui.acp.updates import Calls, available_commands, kind_of, modes_of, replayed, updates_of
from co_tui.config import Settings
from co_tui.session import (
    ApprovalRequest,
    CannotAsk,
    Decision,
    Done,
    Event,
    OpenSessionError,
    SessionPort,
    headless_commands,
    open_session,
    open_store,
    parse_slash,
    plan_before_send,
    planned_cut_rows,
    run_command,
    with_client_servers,
)

__all__ = ["CoTuiAgent"]

log = logging.getLogger("co_tui.acp")

ALLOW_ONCE, ALLOW_ALWAYS, REJECT = "allow-once", "allow-always", "reject"
CUT, OVER_BUDGET, CANCEL = "cut", "over-budget", "cancel"


@dataclass
class Live:
    """One open ACP session: its co-tui session, its mapping state, the running prompt."""

    session: SessionPort
    calls: Calls
    running: asyncio.Task[Any] | None = None
    notices: list[Event] = field(default_factory=list)  # said before the first prompt's answer


class CoTuiAgent:
    """The agent side; `conn` (the client) is given by the SDK on connect (`on_connect`)."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.conn: Any = None
        self.live: dict[str, Live] = {}
        self._store: Any = None

    def on_connect(self, conn: Any) -> None:
        """The SDK hands over the client's side of the connection."""
        self.conn = conn

    # --- the store and opening sessions ----------------------------------------------------------

    def _store_now(self) -> Any:
        if self._store is None:
            self._store = open_store(self.settings)
        return self._store

    async def _open(
        self,
        cwd: str,
        mcp_servers: list[Any] | None,
        *,
        resume_id: str | None = None,
        fork: bool = False,
    ) -> tuple[str, Live]:
        workspace = Path(cwd).expanduser()
        if not workspace.is_absolute() or not workspace.is_dir():
            raise RequestError.invalid_params({"cwd": f"{cwd}: not an absolute path to a directory"})
        settings, problems = with_client_servers(self.settings, [_table(server) for server in mcp_servers or []])
        holder: dict[str, str] = {}

        async def ask(request: ApprovalRequest) -> Decision:
            return await self._ask(holder["id"], request)

        try:
            session = await asyncio.to_thread(
                open_session,
                settings,
                workspace,
                resume_id=resume_id,
                ask=ask,
                store=self._store_now(),
                fork=fork,
            )
        except OpenSessionError as exc:
            raise RequestError.invalid_params({"session": str(exc)}) from None
        acp_id = session.id
        holder["id"] = acp_id
        live = Live(session, Calls(workspace.resolve()))
        live.calls.undoable = session.undoable_cuts
        from co_tui.session import ErrorEvent, Notice

        live.notices += [Notice(message=line) for line in problems]
        # The opening lines (the data dir, the instructions, a bad .mcp.json) and every server up.
        async for event in session.start(announce=False, wait_for_mcp=True, on_mcp=self._mcp_news(acp_id)):
            if isinstance(event, (Notice, ErrorEvent)):
                live.notices.append(event)
        self.live[acp_id] = live
        return acp_id, live

    def _mcp_news(self, acp_id: str) -> Any:
        def news(events: Any) -> None:
            for event in events:
                self._spawn(self._send(acp_id, event))

        return news

    def _spawn(self, work: Any) -> None:
        task = asyncio.ensure_future(work)
        task.add_done_callback(lambda t: t.cancelled() or t.exception())

    def _after_open(self, acp_id: str) -> None:
        """The command table and the meter, once the client has the session's id."""

        async def tell() -> None:
            live = self.live.get(acp_id)
            if live is None:
                return
            await self._update(acp_id, available_commands(headless_commands()))
            await self._send(acp_id, live.session.meter_reading())

        self._spawn(tell())

    def _live(self, session_id: str) -> Live:
        live = self.live.get(session_id)
        if live is None:
            raise RequestError.invalid_params({"sessionId": f"no open session {session_id} (session/load opens one)"})
        return live

    # --- talking to the client -------------------------------------------------------------------

    async def _update(self, acp_id: str, update: Any) -> None:
        await self.conn.session_update(session_id=acp_id, update=update)

    async def _send(self, acp_id: str, event: Event) -> None:
        live = self.live.get(acp_id)
        if live is None:
            return
        for update in updates_of(event, live.calls):
            await self._update(acp_id, update)

    async def _ask(self, acp_id: str, request: ApprovalRequest) -> Decision:
        """An approval as `session/request_permission`: the exact command or diff, and allow once,
        allow always (the session's grant) or reject. A client that cannot answer refuses the call."""
        live = self.live.get(acp_id)
        workspace = live.calls.workspace if live is not None else Path.cwd()
        text = f"```diff\n{request.text}\n```" if request.is_edit else f"```\n{request.text}\n```"
        title = f"{request.tool}: approve?"
        if request.is_memory:  # a note, not a file edit: what it does, then the exact line
            title = "remember: add this note to memory?"
            text = f"Remembering {request.memory_words()}; this exact line is added:\n{text}"
        locations = [s.ToolCallLocation(path=str(workspace / request.path))] if request.path else None
        tool_call = s.ToolCallUpdate(
            tool_call_id=request.tool_call_id or f"user-shell-{id(request)}",
            title=title,
            kind=kind_of(request.tool),
            status="pending",
            locations=locations,
            content=[s.ContentToolCallContent(type="content", content=s.TextContentBlock(type="text", text=text))],
        )
        options = [
            s.PermissionOption(option_id=ALLOW_ONCE, name="Allow once", kind="allow_once"),
            s.PermissionOption(
                option_id=ALLOW_ALWAYS, name=f"Allow always: {request.grant.describe()}", kind="allow_always"
            ),
            s.PermissionOption(option_id=REJECT, name="Reject", kind="reject_once"),
        ]
        try:
            answer = await self.conn.request_permission(session_id=acp_id, tool_call=tool_call, options=options)
        except RequestError as exc:
            raise CannotAsk(f"the editor could not be asked for approval ({exc})") from None
        outcome = answer.outcome
        if getattr(outcome, "outcome", "") != "selected":
            return "deny"
        decision: Decision = {ALLOW_ONCE: "once", ALLOW_ALWAYS: "always"}.get(outcome.option_id, "deny")  # type: ignore[assignment]
        return decision

    async def _ask_cut(self, acp_id: str, prompt: str) -> Any:
        """`compact_mode` ask: the planned cut as a permission request (cut then send, send over the
        budget once, or cancel). Returns the `run_turn` choice, None to send as it is, or CANCEL."""
        live = self._live(acp_id)
        plan, failure = await plan_before_send(live.session, prompt)
        if failure is not None:
            await self._send(acp_id, failure)
        if plan is None:
            return None
        rows = "\n".join(f"- {label}: {text}" for label, text in planned_cut_rows(plan))
        tool_call = s.ToolCallUpdate(
            tool_call_id=f"cut-{len(live.session.ledger)}",
            title="compact_mode ask: this send would cut the context",
            kind="other",
            status="pending",
            content=[s.ContentToolCallContent(type="content", content=s.TextContentBlock(type="text", text=rows))],
        )
        options = [
            s.PermissionOption(option_id=CUT, name="Cut as planned, then send", kind="allow_once"),
            s.PermissionOption(option_id=OVER_BUDGET, name="Send over the budget once", kind="allow_once"),
            s.PermissionOption(option_id=CANCEL, name="Do not send", kind="reject_once"),
        ]
        try:
            answer = await self.conn.request_permission(session_id=acp_id, tool_call=tool_call, options=options)
        except RequestError:
            return "cut"  # nobody to ask: the policy cuts as in auto (print mode does the same)
        outcome = answer.outcome
        choice = outcome.option_id if getattr(outcome, "outcome", "") == "selected" else CANCEL
        if choice == OVER_BUDGET and plan.over_budget_refusal:
            await self._send(acp_id, _notice(plan.over_budget_refusal))
            return CANCEL
        return {CUT: "cut", OVER_BUDGET: "over_budget"}.get(choice, CANCEL)

    # --- the protocol ----------------------------------------------------------------------------

    async def initialize(
        self,
        protocol_version: int,
        client_capabilities: s.ClientCapabilities | None = None,
        client_info: s.Implementation | None = None,
        **_: Any,
    ) -> s.InitializeResponse:
        """What co-tui offers: sessions (load, list, resume, fork, close), embedded context, MCP over stdio and HTTP."""
        from co_tui import __version__

        return s.InitializeResponse(
            protocol_version=min(protocol_version, PROTOCOL_VERSION),
            agent_capabilities=s.AgentCapabilities(
                load_session=True,
                prompt_capabilities=s.PromptCapabilities(embedded_context=True),
                mcp_capabilities=s.McpCapabilities(http=True),
                session_capabilities=s.SessionCapabilities(
                    list=s.SessionListCapabilities(),
                    fork=s.SessionForkCapabilities(),
                    resume=s.SessionResumeCapabilities(),
                    close=s.SessionCloseCapabilities(),
                ),
            ),
            agent_info=s.Implementation(name="co-tui", title="co-tui", version=__version__),
        )

    async def authenticate(self, method_id: str, **_: Any) -> s.AuthenticateResponse:
        """No authentication: the model's API keys come from co-tui's own settings."""
        return s.AuthenticateResponse()

    async def new_session(
        self,
        cwd: str,
        additional_directories: list[str] | None = None,
        mcp_servers: list[Any] | None = None,
        **_: Any,
    ) -> s.NewSessionResponse:
        """A new co-tui session in `cwd` (the workspace), with the client's MCP servers too."""
        acp_id, live = await self._open(cwd, mcp_servers)
        self._after_open(acp_id)
        return s.NewSessionResponse(session_id=acp_id, modes=modes_of(live.session.compact_mode))

    async def load_session(
        self,
        cwd: str,
        session_id: str,
        mcp_servers: list[Any] | None = None,
        additional_directories: list[str] | None = None,
        **_: Any,
    ) -> s.LoadSessionResponse:
        """Open saved session `session_id` and replay its branch in use (its cuts included) as updates."""
        acp_id, live = await self._open(cwd, mcp_servers, resume_id=session_id)
        entries = await asyncio.to_thread(live.session.replay)
        for entry in entries:
            for update in replayed(entry, live.calls):
                await self._update(acp_id, update)
        self._after_open(acp_id)
        return s.LoadSessionResponse(modes=modes_of(live.session.compact_mode))

    async def resume_session(
        self,
        session_id: str,
        cwd: str,
        additional_directories: list[str] | None = None,
        mcp_servers: list[Any] | None = None,
        **_: Any,
    ) -> s.ResumeSessionResponse:
        """Open saved session `session_id` without replaying it (the client shows its own copy)."""
        acp_id, live = await self._open(cwd, mcp_servers, resume_id=session_id)
        self._after_open(acp_id)
        return s.ResumeSessionResponse(modes=modes_of(live.session.compact_mode))

    async def fork_session(
        self,
        session_id: str,
        cwd: str,
        additional_directories: list[str] | None = None,
        mcp_servers: list[Any] | None = None,
        **_: Any,
    ) -> s.ForkSessionResponse:
        """A new saved session copied from `session_id` as it is now (`/fork`); the source stays."""
        open_first = self.live.get(session_id)
        if open_first is not None:  # open here: its own fork, as /fork makes it
            from co_tui.session import Refused

            try:
                new_id = await open_first.session.fork(None, None)
            except Refused as exc:
                raise RequestError.invalid_params({"sessionId": str(exc)}) from None
            acp_id, live = await self._open(cwd, mcp_servers, resume_id=new_id)
        else:
            acp_id, live = await self._open(cwd, mcp_servers, resume_id=session_id, fork=True)
        self._after_open(acp_id)
        return s.ForkSessionResponse(session_id=acp_id, modes=modes_of(live.session.compact_mode))

    async def list_sessions(
        self, cwd: str | None = None, cursor: str | None = None, **_: Any
    ) -> s.ListSessionsResponse:
        """The saved sessions (of `cwd`, or all), newest first: those `co-tui --list-sessions` shows."""
        store = self._store_now()
        where = Path(cwd) if cwd else None
        metas = await asyncio.to_thread(store.list_sessions, where)
        return s.ListSessionsResponse(
            sessions=[
                s.SessionInfo(
                    session_id=meta.id,
                    cwd=str(meta.workspace),
                    title=meta.title or None,
                    updated_at=meta.updated.isoformat(),
                )
                for meta in metas
            ]
        )

    async def close_session(self, session_id: str, **_: Any) -> s.CloseSessionResponse:
        """Close the session: a running turn is stopped and kept, its MCP servers stop, it is let go."""
        live = self.live.pop(session_id, None)
        if live is not None:
            await self._close(live)
        return s.CloseSessionResponse()

    async def set_session_mode(self, session_id: str, mode_id: str, **_: Any) -> s.SetSessionModeResponse:
        """`compact_mode`: auto, ask or off, for this session."""
        from co_tui.session import COMPACT_MODES

        live = self._live(session_id)
        if mode_id not in COMPACT_MODES:
            raise RequestError.invalid_params({"modeId": f"{mode_id!r}: auto, ask or off"})
        live.session.set_compact_mode(mode_id)
        await self._update(session_id, update_current_mode(mode_id))
        await self._send(session_id, live.session.meter_reading())
        return s.SetSessionModeResponse()

    async def cancel(self, session_id: str, **_: Any) -> None:
        """Stop the running turn as Esc does: the partial answer is kept, history stays valid."""
        live = self.live.get(session_id)
        if live is not None:
            live.session.cancel()

    async def prompt(self, session_id: str, prompt: list[Any], **_: Any) -> s.PromptResponse:
        """Run one turn (or a slash command) and stream its events; the stop reason says how it ended."""
        live = self._live(session_id)
        text = _prompt_text(prompt, live.calls.workspace)
        for event in live.notices:
            await self._send(session_id, event)
        live.notices.clear()
        if parse_slash(text) is not None:
            events = run_command(live.session, text)
        else:
            choice = await self._ask_cut(session_id, text) if live.session.compact_mode == "ask" else None
            if choice == CANCEL:
                await self._send(session_id, _notice("send cancelled: nothing was cut or sent"))
                return s.PromptResponse(stop_reason="cancelled")
            events = live.session.run_turn(text, choice) if choice is not None else live.session.run_turn(text)
        stop: s.StopReason = "end_turn"
        async for event in events:
            await self._send(session_id, event)
            if isinstance(event, Done) and event.interrupted:
                stop = "cancelled"
        return s.PromptResponse(stop_reason=stop)

    async def set_config_option(
        self, config_id: str, session_id: str, value: str | bool, **_: Any
    ) -> s.SetSessionConfigOptionResponse | None:
        """No config options: `compact_mode` is the session's mode."""
        raise RequestError.invalid_params(
            {"configId": f"{config_id}: co-tui has no config options (modes: auto, ask, off)"}
        )

    async def ext_method(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        """No extensions."""
        raise RequestError.method_not_found(method)

    async def ext_notification(self, method: str, params: dict[str, Any]) -> None:
        """No extensions: ignored."""

    # --- closing ---------------------------------------------------------------------------------

    async def _close(self, live: Live) -> None:
        live.session.cancel()
        closing = await live.session.aclose()
        if closing.problem:
            log.warning("co-tui: %s", closing.problem)

    async def close_all(self) -> None:
        """The client went away: stop every turn (kept and saved), close every session."""
        lives, self.live = list(self.live.values()), {}
        for live in lives:
            with contextlib.suppress(Exception):
                await self._close(live)
        if self._store is not None:
            self._store.close()


def _notice(line: str) -> Event:
    from co_tui.session import Notice

    return Notice(message=line)


def _table(server: Any) -> dict[str, Any]:
    """An ACP MCP server as a `[mcp_servers.NAME]` table (with its `name`)."""
    if isinstance(server, s.McpServerStdio):
        env = {variable.name: variable.value for variable in server.env} or None
        return {"name": server.name, "command": server.command, "args": list(server.args), "env": env}
    headers = {header.name: header.value for header in getattr(server, "headers", [])} or None
    return {"name": server.name, "url": getattr(server, "url", ""), "headers": headers}


def _prompt_text(blocks: list[Any], workspace: Path) -> str:
    """The prompt's text; a resource (link or embedded) inside the workspace is attached as `@path`
    is (the session reads it, confined and capped); an embedded one from elsewhere goes in as text."""
    parts: list[str] = []
    for block in blocks:
        if isinstance(block, s.TextContentBlock):
            parts.append(block.text)
            continue
        uri = str(getattr(block, "uri", None) or getattr(getattr(block, "resource", None), "uri", "") or "")
        path = _workspace_path(uri, workspace)
        if path is not None:
            parts.append(f"@{path}")
        elif isinstance(block, s.EmbeddedResourceContentBlock) and isinstance(block.resource, s.TextResourceContents):
            parts.append(f'<attached uri="{uri}">\n{block.resource.text}\n</attached>')
    return " ".join(part for part in parts if part)


def _workspace_path(uri: str, workspace: Path) -> str | None:
    """`uri` (file:// or a path) as a path relative to the workspace, None when outside it."""
    if not uri:
        return None
    parsed = urlparse(uri)
    raw = unquote(parsed.path) if parsed.scheme == "file" else uri if not parsed.scheme else ""
    if not raw:
        return None
    path = Path(raw)
    try:
        rel = (path if path.is_absolute() else workspace / path).resolve().relative_to(workspace.resolve())
    except ValueError:
        return None
    return str(rel) if " " not in str(rel) else None

"""The slash commands' handlers on the session port, for front ends with no screens (ACP).

Each takes the session and the text after the command's name, and yields the command's events — a
banner's `HistoryTrimmed`, the meter's `UsageUpdate`, a `Notice` for a line to show, a refusal as a
`Notice` — ending with `Done` (`failed` when refused). None raises. They are the same operations the
TUI's keys and dialogs call (`co_tui.tui.controller`), worded as the TUI words them.

Module-level imports stay light: the command table (commands.py) is read before the TUI's first paint.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from co_tui.governance.events import HistoryTrimmed
    from co_tui.session.events import Event
    from co_tui.session.port import SessionPort

__all__ = [
    "clear",
    "compact",
    "compact_mode",
    "context",
    "fork",
    "mcp",
    "memory",
    "model",
    "pin",
    "remember",
    "rewind",
    "said",
    "undo",
]


async def said(line: str, *, failed: bool = False) -> AsyncIterator[Event]:
    """`line` as a `Notice`, then `Done` (`failed`: a refusal)."""
    from co_tui.session.events import Done, Notice

    yield Notice(message=line)
    yield Done(output="" if failed else line, failed=failed)


async def _steer(session: SessionPort, call: Callable[[], Awaitable[HistoryTrimmed]]) -> AsyncIterator[Event]:
    """A steering operation: its banner and the meter, or its refusal in one line."""
    from co_tui.session.banner import banner_line
    from co_tui.session.events import Done
    from co_tui.session.port import Refused

    try:
        trim = await call()
    except Refused as exc:
        async for event in said(str(exc), failed=True):
            yield event
        return
    yield trim
    yield session.meter_reading()
    yield Done(output=banner_line(trim))


async def compact(session: SessionPort, focus: str) -> AsyncIterator[Event]:
    """`/compact [focus]`: summarise the context (`Turns.compact`)."""
    async for event in session.compact(focus or None):
        yield event


async def clear(session: SessionPort, _: str) -> AsyncIterator[Event]:
    """`/clear`: a fresh conversation under a new id; the old one stays saved."""
    async for event in _steer(session, session.clear):
        yield event


async def undo(session: SessionPort, _: str) -> AsyncIterator[Event]:
    """`/undo`: undo the newest cut still in effect."""
    async for event in _steer(session, session.undo):
        yield event


async def pin(session: SessionPort, _: str) -> AsyncIterator[Event]:
    """`/pin`: pin the newest turn."""
    from co_tui.session.events import Done
    from co_tui.session.port import Refused

    try:
        change = await session.pin_newest()
    except Refused as exc:
        async for event in said(str(exc), failed=True):
            yield event
        return
    line = change.describe()
    async for event in said(line):
        if isinstance(event, Done):
            yield session.meter_reading()
        yield event


async def context(session: SessionPort, _: str) -> AsyncIterator[Event]:
    """`/context`: what the next request holds, by category, one line each, against the budget."""
    from co_tui.session.context_breakdown import CATEGORY_TITLES
    from co_tui.text import format_tokens

    breakdown = session.context_breakdown()
    lines = [
        f"Context: {format_tokens(breakdown.total_tokens)} of the {format_tokens(breakdown.budget_tokens)}-token "
        f"budget (window {format_tokens(breakdown.window_tokens)}), "
        + (
            f"{format_tokens(breakdown.over_tokens)} over"
            if breakdown.over_tokens
            else f"{format_tokens(breakdown.free_tokens)} free"
        )
    ]
    for row in breakdown.rows:
        title = CATEGORY_TITLES.get(row.key, row.key)
        label = "" if row.label in (row.key, title) else f" · {row.label}"
        items = f" ({row.items})" if row.items else ""
        lines.append(f"- {title}{label}{items}: {format_tokens(row.tokens)}")
    async for event in said("\n".join(lines)):
        yield event


async def model(session: SessionPort, name: str) -> AsyncIterator[Event]:
    """`/model [name]`: say which model answers, or switch to `name` for the following turns."""
    if not name:
        offline = " (offline, built in)" if session.is_offline else ""
        async for event in said(f"Model: {session.model_name}{offline} · /model NAME switches"):
            yield event
        return
    if session.busy:  # refused as every operation is while a turn runs (the model stays)
        from co_tui.session.wording import busy_line

        async for event in said(busy_line("switching models"), failed=True):
            yield event
        return
    try:
        await asyncio.to_thread(session.set_model, name)  # builds the agent: imports the provider's SDK
    except Exception as exc:  # ModelConfigError: one line, the old model stays
        async for event in said(str(exc).replace("--model ", "/model "), failed=True):
            yield event
        return
    yield session.meter_reading()
    async for event in said(f"Model switched to {session.model_name}"):
        yield event


async def compact_mode(session: SessionPort, argument: str) -> AsyncIterator[Event]:
    """`/compact-mode [auto|ask|off]`: who cuts the context for this session (none: the next mode)."""
    from co_tui.governance.compact_mode import COMPACT_MODES, parse_mode
    from co_tui.session.wording import MODE_TEXT

    nxt = COMPACT_MODES[(COMPACT_MODES.index(session.compact_mode) + 1) % len(COMPACT_MODES)]
    mode = parse_mode(argument) if argument.strip() else nxt
    if mode is None:
        async for event in said(f"/compact-mode: {argument.strip()!r} is not a mode — auto, ask or off", failed=True):
            yield event
        return
    session.set_compact_mode(mode)
    yield session.meter_reading()
    async for event in said(f"compact_mode {mode} for this session: {MODE_TEXT[mode]}"):
        yield event


async def rewind(session: SessionPort, turn: str) -> AsyncIterator[Event]:
    """`/rewind [turn]`: go back to just before the newest prompt (or prompt number `turn`), as the
    model saw it then, on a new branch; the prompt's text is the `Done` output (to edit and send)."""
    from co_tui.session.events import Done
    from co_tui.session.port import Refused

    try:
        points = await asyncio.to_thread(session.rewind_points)
        if turn.strip():
            point = next((p for p in points if str(p.turn) == turn.strip()), None)
        else:
            point = points[0] if points else None
        if point is None:
            raise Refused(f"no prompt {turn.strip()} to rewind to" if turn.strip() else "nothing to rewind to yet")
        rewound = await session.rewind(point.position)
    except Refused as exc:
        async for event in said(str(exc), failed=True):
            yield event
        return
    yield rewound.event
    yield session.meter_reading()
    async for event in said(f"Rewound to before prompt {point.turn}: {rewound.prompt}"):
        if isinstance(event, Done):
            event = Done(output=rewound.prompt)
        yield event


async def fork(session: SessionPort, title: str) -> AsyncIterator[Event]:
    """`/fork [title]`: a new saved session copied from this one as it is now; this one stays."""
    from co_tui.session.port import Refused

    try:
        new_id = await session.fork(None, title or None)
    except Refused as exc:
        async for event in said(str(exc), failed=True):
            yield event
        return
    async for event in said(f"Forked to session {new_id} (this one stays as it was)"):
        yield event


async def mcp(session: SessionPort, argument: str) -> AsyncIterator[Event]:
    """`/mcp [restart NAME]`: the MCP servers' status and tools, or restart one."""
    servers = session.mcp
    verb, _, name = argument.partition(" ")
    if argument and (verb != "restart" or not name.strip()):
        lines = "usage: /mcp, or /mcp restart NAME"
    elif argument:
        lines = servers.restart(name.strip())
    elif not servers:
        lines = "no MCP servers configured"
    else:
        lines = "\n".join(f"- {server.line()}" for server in servers.servers)
    async for event in said(lines):
        yield event


async def agents(session: SessionPort, _: str) -> AsyncIterator[Event]:
    """`/agents`: the agents the model can delegate to, where each came from, and files refused."""
    async for event in said("\n".join(session.agents_listing())):
        yield event


async def remember(session: SessionPort, argument: str) -> AsyncIterator[Event]:
    """`/remember [--global] note` (and `#note`): after the approval showing the line and the file,
    the note is added; the line says where."""
    from co_tui.session.note_prompt import parse_remember
    from co_tui.session.port import Refused

    scope, note = parse_remember(argument)
    try:
        line = await session.memory.remember(note, scope)
    except Refused as exc:
        async for event in said(str(exc), failed=True):
            yield event
        return
    yield session.meter_reading()  # every request now carries the note
    async for event in said(line):
        yield event


async def memory(session: SessionPort, _: str) -> AsyncIterator[Event]:
    """`/memory` with no screen: each note with its file and line."""
    lines = await asyncio.to_thread(session.memory.listing)
    async for event in said("Memory:\n" + "\n".join(lines)):
        yield event

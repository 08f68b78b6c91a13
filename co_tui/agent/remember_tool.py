"""Remembering a note: plan the line, ask the user, write it — one flow for the user's `#note` /
`/remember` and the model's `remember` tool.

The approval is the one a file edit gets (the session's `Approver`, `tool="remember"`): its `text`
is the exact line that will be written and `path` the file, so the user sees both before anything
is written. A declined note is not written and the model is told so (`ToolDenied`, outcome
`denied`); a refused one (empty, too long, already there, the file full or unusable) is a failed
tool result with the one line saying why.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Literal

from co_tui.agent.memory_file import MemoryEntry, MemoryFiles, MemoryRefused, MemoryScope
from co_tui.agent.tools import Approver, CannotAsk

if TYPE_CHECKING:
    from pydantic_ai.toolsets import FunctionToolset

__all__ = ["REMEMBER_TOOL", "MemoryDeclined", "remember_note", "remember_toolset"]

REMEMBER_TOOL = "remember"


class MemoryDeclined(Exception):
    """The user said no (or nobody could be asked); `str()` says which, in one line."""


async def remember_note(
    files: MemoryFiles,
    approver: Approver | None,
    text: str,
    scope: MemoryScope = "workspace",
    *,
    by_user: bool = False,
    tool_call_id: str | None = None,
) -> MemoryEntry:
    """Add `text` to `scope`'s memory file once the user approved the exact line and file.

    Raises `MemoryRefused` (not written: the note or the file is not fit; nothing asked) or
    `MemoryDeclined` (not written: denied, or nobody to ask). File work runs in a thread."""
    real, line = await asyncio.to_thread(files.plan_append, scope, text)
    if approver is None:
        raise MemoryDeclined("no one can approve a memory write here")
    try:
        approved = await approver(line, tool=REMEMBER_TOOL, path=str(real), tool_call_id=tool_call_id, by_user=by_user)
    except CannotAsk as exc:
        raise MemoryDeclined(str(exc)) from None
    if not approved:
        raise MemoryDeclined(f"declined: {line[2:]!r} was not written to {files.label_of(scope)}")
    return await asyncio.to_thread(files.append, scope, text)


def remember_toolset(
    files: MemoryFiles, approver: Approver | None, on_change: Callable[[], None] | None = None
) -> FunctionToolset[Any]:
    """The model's `remember` tool over `files`, asking `approver` (the user) before every write;
    `on_change` is called after a note was written (the request's overhead grew)."""
    from pydantic_ai import RunContext, ToolDenied, ToolFailed
    from pydantic_ai.toolsets import FunctionToolset

    from co_tui.agent.tool_schemas import tool_of

    async def remember(ctx: Any, note: str, scope: Literal["workspace", "global"] = "workspace") -> Any:
        """Save one short note to the user's memory, sent with every future session's instructions.
        Use it only for a lasting fact or preference the user wants kept (e.g. "use uv, not pip").
        The user approves the exact line first.

        Args:
            note: One line: the fact or preference, in a few words.
            scope: "workspace" (this project's memory) or "global" (the user's, for every project).
        """
        try:
            entry = await remember_note(files, approver, note, scope, tool_call_id=ctx.tool_call_id)
        except MemoryRefused as exc:
            raise ToolFailed(str(exc)) from None
        except MemoryDeclined as exc:
            return ToolDenied(f"Not remembered: {exc}. Do not retry it; ask the user what they want instead.")
        if on_change is not None:
            on_change()
        return f"Remembered in {files.label_of(scope)} (line {entry.line}): {entry.text}"

    remember.__annotations__["ctx"] = RunContext[Any]
    return FunctionToolset([tool_of(remember)], id=None)

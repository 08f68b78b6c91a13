"""The agent's workspace tools: `read_file`, `list_dir`, `search_text`, `run_shell` when allowed,
and `write_file` / `edit_file` when allowed (`file_edits.py`).

Errors the model should react to (a path outside the workspace, a missing file, a directory given
to `read_file`) raise pydantic-ai's `ToolFailed`: the model receives a *failed* tool result through
the provider's native error channel (Anthropic `is_error`, …) with our one-line message, and unlike
`ModelRetry` it does not use up the tool's retry budget, so a model that keeps trying a refused
path cannot crash the run. A declined shell command or file edit returns `ToolDenied` (outcome
`denied`): a deliberate user decision, not an error.

pydantic-ai is imported inside `workspace_toolset`, so importing this module stays cheap.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from co_tui.agent.file_edits import FileEdits, PlannedEdit, apply_edit, plan_edit, plan_write, room_for
from co_tui.agent.search_process import SEARCH_TIMEOUT_S, search_in_child
from co_tui.agent.shell import SHELL_TIMEOUT_S, run_command
from co_tui.agent.tool_schemas import tool_of
from co_tui.agent.workspace import READ_LIMIT_LINES, Workspace, WorkspaceError

if TYPE_CHECKING:
    from pydantic_ai.toolsets import FunctionToolset


class Approver(Protocol):
    """What a tool awaits before it runs something that needs the user's yes: `text` is exactly what
    runs — the command for `run_shell`, the tool's name and JSON arguments for an MCP tool that needs
    approval (`mcp_servers.py`), the unified diff for a file edit (`path=` the file) —, `tool` its
    name, `tool_call_id` the model's id of the call (None for the user's own `!command`, which passes
    `by_user=True`). True runs it. One that cannot ask anyone (print mode without --yes) raises
    `CannotAsk`. The session's `Approvals.approve` is the one front ends give (session/approvals.py)."""

    def __call__(
        self,
        text: str,
        *,
        tool: str = "run_shell",
        path: str | None = None,
        tool_call_id: str | None = None,
        by_user: bool = False,
    ) -> Awaitable[bool]:
        """Whether the call may run (see the class)."""
        ...


class CannotAsk(Exception):
    """Raised by an approver with no one to ask (print mode without --yes): the call is refused,
    and the model is told why in the exception's words, not that a user declined it."""


TOOL_NAMES = ("read_file", "list_dir", "search_text")
EDIT_TOOL_NAMES = ("write_file", "edit_file")
SHELL_TOOL_NAME = "run_shell"


def failure_line(exc: Exception, path: str = "") -> str:
    """The failed tool result's one line for `exc`: a `WorkspaceError`'s own words, or an
    `OSError`'s reason (a name too long, no permission, an I/O error) with the path it met."""
    if isinstance(exc, OSError):
        from co_tui.agent.workspace import shown_name
        from co_tui.text import one_line

        where = f"{one_line(shown_name(path), 80)}: " if path else ""
        return f"failed: {where}{exc.strerror or exc}"
    return str(exc)


def workspace_toolset(
    workspace: Path,
    *,
    allow_shell: bool = False,
    approver: Approver | None = None,
    shell_timeout_s: float = SHELL_TIMEOUT_S,
    search_timeout_s: float = SEARCH_TIMEOUT_S,
    allow_edits: bool = False,
    edits: FileEdits | None = None,
) -> FunctionToolset[Any]:
    """The tools confined to `workspace`; `run_shell` is included only when `allow_shell` is true,
    `write_file` and `edit_file` only when `allow_edits` is (`file_edits.py`: `edits` holds what the
    model has seen and where checkpoints go, in memory when None).

    `search_text` runs in a child process killed after `search_timeout_s` or on cancel
    (`search_process.py`): a pattern with catastrophic backtracking becomes a failed tool result.

    Every `run_shell` call awaits `approver(command)`, every edit `approver(diff, tool=…, path=…)`;
    without an approver each of them is refused.
    """
    from pydantic_ai import RunContext, ToolDenied, ToolFailed
    from pydantic_ai.toolsets import FunctionToolset

    ws = Workspace(Path(workspace))
    edit_state = edits if edits is not None else FileEdits()

    def read_file(path: str, offset: int = 0, limit: int = READ_LIMIT_LINES) -> str:
        """Read a text file in the workspace.

        Args:
            path: File path relative to the workspace root.
            offset: Number of lines to skip from the start (0 reads from the first line).
            limit: Maximum number of lines to return (capped at 2000).
        """
        try:
            text = ws.read_file(path, offset, limit)
        except (WorkspaceError, OSError) as exc:
            raise ToolFailed(failure_line(exc, path)) from None
        edit_state.views.saw(ws.resolve(path))  # an edit may now replace what it saw
        return text

    def list_dir(path: str = ".") -> str:
        """List the entries of a directory in the workspace (not recursive).

        Args:
            path: Directory path relative to the workspace root; "." is the root.
        """
        try:
            return ws.list_dir(path)
        except (WorkspaceError, OSError) as exc:
            raise ToolFailed(failure_line(exc, path)) from None

    async def search_text(pattern: str, path: str = ".") -> str:
        """Search text files for lines matching a regular expression (all-lowercase means case-insensitive).

        Args:
            pattern: Python regular expression (searched literally if it is not a valid one).
            path: File or directory to search, relative to the workspace root.
        """
        try:
            if not pattern:
                raise WorkspaceError("search_text needs a non-empty pattern")
            return await search_in_child(ws.root, pattern, path, timeout_s=search_timeout_s)
        except WorkspaceError as exc:
            raise ToolFailed(str(exc)) from None

    async def run_shell(ctx: Any, command: str) -> Any:
        """Run a shell command in the workspace root. The user must approve every command.

        Args:
            command: The command line, run with /bin/sh.
        """
        command = command.strip()
        if not command:
            raise ToolFailed("run_shell needs a command")
        if approver is None:
            return ToolDenied(f"Not run: no one can approve shell commands here, so `{command}` was refused.")
        try:
            approved = await approver(command, tool=SHELL_TOOL_NAME, tool_call_id=ctx.tool_call_id)
        except CannotAsk as exc:
            return ToolDenied(f"Not run: {exc}, so `{command}` was refused. Do not retry it.")
        except Exception as exc:  # a broken approval dialog must not run the command
            return ToolDenied(f"Not run: asking for approval failed ({exc}), so `{command}` was not run.")
        if not approved:
            return ToolDenied(f"The user declined to run `{command}`. Do not retry it; ask what they want instead.")
        return await run_command(command, ws.root, timeout_s=shell_timeout_s)

    async def change_file(ctx: Any, plan: Callable[[], PlannedEdit]) -> Any:
        """Plan, ask, checkpoint, write: the steps `write_file` and `edit_file` share."""
        try:
            planned = plan()
            room_for(ws, edit_state, planned)
        except (WorkspaceError, OSError) as exc:
            raise ToolFailed(failure_line(exc)) from None
        if approver is None:
            return ToolDenied(f"Not written: no one can approve file edits here, so {planned.rel} was not changed.")
        try:
            approved = await approver(planned.diff, tool=planned.tool, path=planned.rel, tool_call_id=ctx.tool_call_id)
        except CannotAsk as exc:
            return ToolDenied(f"Not written: {exc}, so {planned.rel} was not changed. Do not retry it.")
        except Exception as exc:  # a broken approval dialog must not write
            return ToolDenied(f"Not written: asking for approval failed ({exc}), so {planned.rel} was not changed.")
        if not approved:
            return ToolDenied(
                f"The user declined the change to {planned.rel}. Do not retry it; ask what they want instead."
            )
        try:
            return apply_edit(ws, edit_state, planned, tool_call_id=ctx.tool_call_id or "")
        except (WorkspaceError, OSError) as exc:
            raise ToolFailed(failure_line(exc, planned.rel)) from None

    async def write_file(ctx: Any, path: str, content: str) -> Any:
        """Create a file in the workspace, or replace all of an existing one (read it first). The user approves a diff.

        Args:
            path: File path relative to the workspace root; missing directories are created.
            content: The file's whole new content.
        """
        return await change_file(ctx, lambda: plan_write(ws, edit_state.views, path, content))

    async def edit_file(ctx: Any, path: str, old_string: str, new_string: str) -> Any:
        """Replace one exact piece of text in a workspace file. The user approves a diff.

        Args:
            path: File path relative to the workspace root.
            old_string: The exact text to replace (whitespace included); it must occur exactly once in the file.
            new_string: The text to put in its place.
        """
        return await change_file(ctx, lambda: plan_edit(ws, edit_state.views, path, old_string, new_string))

    tools: list[Any] = [read_file, list_dir, search_text]
    for tool in (run_shell, write_file, edit_file):
        # RunContext (for the call's id, which the approval carries) is imported here, not at
        # module level: the string annotation could not be resolved, so the class itself goes in.
        tool.__annotations__["ctx"] = RunContext[Any]
    if allow_shell:
        tools.append(run_shell)
    if allow_edits:
        tools += [write_file, edit_file]
    return FunctionToolset([tool_of(tool) for tool in tools])

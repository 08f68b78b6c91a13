"""The agent's workspace tools: `read_file`, `list_dir`, `search_text`, and `run_shell` when allowed.

Errors the model should react to (a path outside the workspace, a missing file, a directory given
to `read_file`) raise pydantic-ai's `ToolFailed`: the model receives a *failed* tool result through
the provider's native error channel (Anthropic `is_error`, …) with our one-line message, and unlike
`ModelRetry` it does not use up the tool's retry budget, so a model that keeps trying a refused
path cannot crash the run. A declined shell command returns `ToolDenied` (outcome `denied`): a
deliberate user decision, not an error.

pydantic-ai is imported inside `workspace_toolset`, so importing this module stays cheap.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from co_tui.agent.search_process import SEARCH_TIMEOUT_S, search_in_child
from co_tui.agent.shell import SHELL_TIMEOUT_S, run_command
from co_tui.agent.workspace import READ_LIMIT_LINES, Workspace, WorkspaceError

if TYPE_CHECKING:
    from pydantic_ai.toolsets import FunctionToolset

Approver = Callable[..., Awaitable[bool]]
"""`approver(text, tool="run_shell") -> bool`: asked before every `run_shell` call with the exact
command, and before an MCP tool call that needs approval (`mcp_servers.py`) with the tool's name
and arguments as `text` and `tool=` its name; True runs it. An approver that cannot ask anyone
(print mode without --yes) raises `CannotAsk`."""


class CannotAsk(Exception):
    """Raised by an approver with no one to ask (print mode without --yes): the call is refused,
    and the model is told why in the exception's words, not that a user declined it."""


TOOL_NAMES = ("read_file", "list_dir", "search_text")
SHELL_TOOL_NAME = "run_shell"


def workspace_toolset(
    workspace: Path,
    *,
    allow_shell: bool = False,
    approver: Approver | None = None,
    shell_timeout_s: float = SHELL_TIMEOUT_S,
    search_timeout_s: float = SEARCH_TIMEOUT_S,
) -> FunctionToolset[Any]:
    """The tools confined to `workspace`; `run_shell` is included only when `allow_shell` is true.

    `search_text` runs in a child process killed after `search_timeout_s` or on cancel
    (`search_process.py`): a pattern with catastrophic backtracking becomes a failed tool result.

    Every `run_shell` call awaits `approver(command)`; without an approver each call is refused.
    """
    from pydantic_ai import ToolDenied, ToolFailed
    from pydantic_ai.toolsets import FunctionToolset

    ws = Workspace(Path(workspace))

    def read_file(path: str, offset: int = 0, limit: int = READ_LIMIT_LINES) -> str:
        """Read a text file in the workspace.

        Args:
            path: File path relative to the workspace root.
            offset: Number of lines to skip from the start (0 reads from the first line).
            limit: Maximum number of lines to return (capped at 2000).
        """
        try:
            return ws.read_file(path, offset, limit)
        except WorkspaceError as exc:
            raise ToolFailed(str(exc)) from None

    def list_dir(path: str = ".") -> str:
        """List the entries of a directory in the workspace (not recursive).

        Args:
            path: Directory path relative to the workspace root; "." is the root.
        """
        try:
            return ws.list_dir(path)
        except WorkspaceError as exc:
            raise ToolFailed(str(exc)) from None

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

    async def run_shell(command: str) -> Any:
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
            approved = await approver(command)
        except CannotAsk as exc:
            return ToolDenied(f"Not run: {exc}, so `{command}` was refused. Do not retry it.")
        except Exception as exc:  # a broken approval dialog must not run the command
            return ToolDenied(f"Not run: asking for approval failed ({exc}), so `{command}` was not run.")
        if not approved:
            return ToolDenied(f"The user declined to run `{command}`. Do not retry it; ask what they want instead.")
        return await run_command(command, ws.root, timeout_s=shell_timeout_s)

    tools: list[Any] = [read_file, list_dir, search_text]
    if allow_shell:
        tools.append(run_shell)
    return FunctionToolset(tools)

"""`Resources`: what one co-tui process shares between every agent it runs, apart from any agent's
own state (that is an `AgentBinding`'s: agent_binding.py).

Held here, built once per session (the TUI and print mode build one through `ChatSession`):
- the settings and the workspace (resolved);
- the MCP servers (`agent.mcp_servers`: their processes start once, from the front end, and every
  agent built on these resources reaches them through the same toolsets);
- the project instructions (AGENTS.md …), re-read when they change, for every agent at once;
- the memory files (`.co-tui/memory.md`, the user's `memory.md`: `agent/memory_file.py`), sent with
  the instructions, re-read and written the same way;
- the approver asked before a shell command, an edit or an MCP call (one user answers for all).

Not held here, and why:
- prices: `session/cost.py` prices each response from the static table in `agent/pricing_data.py`;
  there is no state to share;
- file-edit tracking (`FileEdits`): it records what one model has *seen* of each file (an edit of
  an unseen file is refused) and checkpoints tied to one conversation's transcript and branch, so
  it is per agent (a subagent that never read a file must not edit it on its parent's reading).

The overhead a request carries depends on both (the instructions, the MCP servers' tool schemas,
and the agent's own tools): each binding counts its own, and hears from `watch_overhead` when a
shared part changed.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from co_tui.agent.mcp_config import load_mcp_servers
from co_tui.agent.memory_file import MemoryFiles
from co_tui.agent.project_instructions import ProjectInstructions, describe_files
from co_tui.session.events import Notice

if TYPE_CHECKING:
    from co_tui.agent.mcp_servers import McpServers
    from co_tui.agent.project_instructions import InstructionFile
    from co_tui.agent.tools import Approver
    from co_tui.config import Settings

__all__ = ["Resources", "reload_notice"]


def reload_notice(files: Sequence[InstructionFile]) -> str:
    """The line saying the instructions were reloaded, and what is loaded now."""
    loaded = describe_files(files)
    now = loaded.removeprefix("instructions: ") if loaded else "no instructions file now"
    return f"Project instructions changed — the model is sent the new ones from this turn on: {now}"


class Resources:
    """What a process shares between its agents (see module docstring). Nothing here starts a
    process: the MCP servers are only described until the front end runs `mcp.run()`.

    A second agent on the same resources (a subagent) is one more binding, with no second MCP
    process and no second read of the instructions::

        child = AgentBinding(resources, model, history=History(), transcript_sink=runner_record)

    and its turns run on a `TurnRunner` with `NoStore()` persistence (turn_persistence.py);
    `child.close()` when it is done stops it hearing of overhead changes. The resources outlive it.
    """

    def __init__(self, settings: Settings, workspace: Path, approver: Approver | None = None) -> None:
        self.settings = settings
        self.workspace = Path(workspace).resolve()
        self.approver = approver
        self.mcp: McpServers = load_mcp_servers(settings, self.workspace)  # none configured: empty
        self.mcp.approver = approver
        # AGENTS.md / CLAUDE.md, sent with every request (docs/configuration.md, "Project instructions").
        self.project = ProjectInstructions(self.workspace, enabled=settings.project_instructions)
        # The user's memory, sent after the instructions (docs/configuration.md, "Memory").
        self.memory = MemoryFiles(
            self.workspace, global_dir=self.project.global_dir, enabled=settings.project_instructions
        )
        self._watchers: list[Callable[[], None]] = []
        if self.mcp:  # an MCP server's schemas count once it has listed its tools
            self.mcp.watch_tools(self._overhead_changed)

    def watch_overhead(self, watcher: Callable[[], None]) -> Callable[[], None]:
        """Call `watcher()` whenever a shared part of a request's overhead changed (an MCP server
        listed its tools or stopped, the instructions were re-read). Returns the call that stops it."""
        self._watchers.append(watcher)
        return lambda: self._watchers.remove(watcher) if watcher in self._watchers else None

    def _overhead_changed(self) -> None:
        for watcher in list(self._watchers):
            watcher()

    def memory_changed(self) -> None:
        """A note was written or removed: every agent counts the new overhead."""
        self._overhead_changed()

    @property
    def instructions_text(self) -> str | None:
        """What the instruction files and the memory add to co-tui's own instructions on every
        request (None: nothing). Instructions are not part of the history: no cut ever removes them."""
        parts = [text for text in (self.project.text, self.memory.text) if text]
        return "\n\n".join(parts) if parts else None

    @property
    def instruction_files(self) -> Sequence[InstructionFile]:
        """The project instruction files loaded now (AGENTS.md …), failed ones with their `error`."""
        return self.project.files

    def refresh_instructions(self) -> list[Notice]:
        """Before a turn: re-read the instruction files when one appeared, changed or went away.
        Returns the lines to show (none when nothing changed): the reload, and one per file that
        could not be read. Never raises: a failure to look leaves the loaded instructions as they
        were. Blocking (stat and read): run it in a thread."""
        project = self.project
        errors_before = set(project.errors)
        try:
            changed = project.refresh()
        except OSError as exc:
            return [Notice(message=f"project instructions not re-read: {exc.strerror or exc}")]
        notices = [Notice(message=error) for error in project.errors if error not in errors_before]
        if changed:
            self._overhead_changed()
            notices.insert(0, Notice(message=reload_notice(project.files)))
        return notices + self._refresh_memory()

    def _refresh_memory(self) -> list[Notice]:
        """The memory files re-read when one changed on disk: a line when what is sent changed."""
        memory = self.memory
        errors_before = {f.error for f in memory.files}
        try:
            changed = memory.refresh()
        except OSError as exc:
            return [Notice(message=f"memory not re-read: {exc.strerror or exc}")]
        notices = [Notice(message=f.error) for f in memory.files if f.error and f.error not in errors_before]
        if changed:
            self._overhead_changed()
            notices.insert(0, Notice(message="Memory changed — the model is sent the new notes from this turn on"))
        return notices

    def reload_instructions(self) -> None:
        """`/clear`: read the instruction files again, whether or not they changed. Never raises."""
        try:
            self.project.reload()
            self.memory.reload()
        except OSError:
            return
        self._overhead_changed()

"""Memory the user controls, for every front end: `#note` and `/remember [--global] note` add a note
after the user saw the exact line and file, `/memory` lists the notes with where each came from and
edits or deletes them, and the model's `remember` tool asks the same way (docs/configuration.md,
"Memory"). The files are `agent/memory_file.py`'s; this module words the results and keeps the
request's overhead counted (a note is part of every request's instructions, never of the history,
so no cut removes it: docs/context-governance.md).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from co_tui.agent.memory_file import MemoryEntry, MemoryFiles, MemoryRefused, MemoryScope
from co_tui.agent.remember_tool import MemoryDeclined, remember_note, remember_toolset
from co_tui.governance.refused import Refused
from co_tui.text import one_line

if TYPE_CHECKING:
    from co_tui.session.resources import Resources

__all__ = ["Memory", "MemoryEntry", "MemoryScope", "entry_where", "memory_toolset"]


def entry_where(entry: MemoryEntry, label: str) -> str:
    """Where `entry` is, for the user: `.co-tui/memory.md:5`."""
    return f"{label}:{entry.line}"


def memory_toolset(resources: Resources) -> Any:
    """The `remember` tool on `resources`' memory, asking its approver (None: memory is not sent,
    so the model gets no tool that writes it)."""
    if not resources.memory.enabled:
        return None
    return remember_toolset(resources.memory, resources.approver, resources.memory_changed)


@dataclass(frozen=True)
class Memory:
    """A session's memory operations (the port's `memory`). Each write re-reads the files and tells
    the agents to count the new overhead; each raises `Refused` with the one line to show."""

    resources: Resources

    @property
    def files(self) -> MemoryFiles:
        """The two memory files as last read."""
        return self.resources.memory

    @property
    def sent(self) -> bool:
        """Whether memory goes to the model (off with `project_instructions = false`)."""
        return self.files.enabled

    def label_of(self, scope: MemoryScope) -> str:
        """`scope`'s file as the user is shown it."""
        return self.files.label_of(scope)

    def entries(self) -> list[MemoryEntry]:
        """Every note, global first, as the files hold them now (re-read: blocking)."""
        self.files.reload()
        return self.files.entries

    def listing(self) -> list[str]:
        """`/memory` without a screen: one line per note with its file and line, and the files' errors."""
        entries = self.entries()
        lines = [f"- {entry_where(e, self.label_of(e.scope))}: {one_line(e.text, 200)}" for e in entries]
        lines += [f"- {f.error}" for f in self.files.files if f.error]
        if not entries:
            lines.insert(0, f"Nothing remembered yet: #note adds one to {self.label_of('workspace')}")
        if not self.sent:
            lines.append("(not sent to the model: project_instructions is off)")
        return lines

    async def remember(self, note: str, scope: MemoryScope = "workspace") -> str:
        """The user's `#note` / `/remember`: asks the approvals (which show the line and the file),
        writes, returns the line to show naming the file. Raises `Refused`."""
        approvals = self.resources.approver
        try:
            entry = await remember_note(self.files, approvals, note, scope, by_user=True)
        except (MemoryRefused, MemoryDeclined) as exc:
            raise Refused(
                f"not remembered: {exc}".replace("not remembered: not written: ", "not remembered: ")
            ) from None
        self.resources.memory_changed()
        sent = "" if self.sent else " (not sent to the model: project_instructions is off)"
        return f"Remembered in {entry_where(entry, self.label_of(scope))}: {one_line(entry.text, 120)}{sent}"

    async def edit(self, entry: MemoryEntry, text: str) -> MemoryEntry:
        """Put `text` in place of `entry`. Raises `Refused` (the file changed, the text is not a note)."""
        try:
            new = await asyncio.to_thread(self.files.replace, entry, text)
        except MemoryRefused as exc:
            raise Refused(str(exc)) from None
        self.resources.memory_changed()
        return new

    async def delete(self, entry: MemoryEntry) -> None:
        """Remove `entry`. Raises `Refused` when its file changed since it was listed."""
        try:
            await asyncio.to_thread(self.files.delete, entry)
        except MemoryRefused as exc:
            raise Refused(str(exc)) from None
        self.resources.memory_changed()

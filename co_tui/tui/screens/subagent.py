"""A subagent's transcript (Enter or a click on its block in the chat): what the child sees, live.

Its header is the block's own lines (agent, task, meter, what it runs now or what it returned, its
newest cuts); below, the child's conversation — the task it was sent, its answer, its tool rows and
its own trim banners — drawn from the events the block has kept, then from each event that follows
while the child runs (`SubagentBlock.listeners`). Esc or Q returns to the chat; the child goes on.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from textual.app import ComposeResult
from textual.binding import Binding
from textual.content import Content
from textual.screen import Screen
from textual.widgets import Static

from co_tui.tui.widgets.child_transcript import ChildTranscript
from co_tui.tui.widgets.key_footer import KeyFooter
from co_tui.tui.widgets.user_message import UserMessage

if TYPE_CHECKING:
    from co_tui.tui.widgets.subagent_block import SubagentBlock


class SubagentScreen(Screen[None]):
    """One child's transcript, streaming while it runs. `shown`: how many of the block's events it has drawn."""

    CSS_PATH = "subagent.tcss"
    BINDINGS = [Binding("escape,q", "close", "Back to the chat")]

    def __init__(self, block: SubagentBlock) -> None:
        super().__init__()
        self.block = block
        self.shown = 0
        self._drawing = asyncio.Lock()

    def compose(self) -> ComposeResult:
        """Title, the block's lines as a header, the child's transcript, keys."""
        view = self.block.view
        yield Static(
            Content.assemble(
                ("Subagent ", "bold"), (view.agent or view.agent_name, "bold"), " ", "· its own context, as it runs"
            ),
            id="subagent-title",
        )
        yield Static(id="subagent-header")
        yield ChildTranscript(id="subagent-log")
        yield KeyFooter()

    async def on_mount(self) -> None:
        """Draw what the child did so far, then follow it; the header ticks while it runs."""
        self._draw_header()
        await self.query_one(ChildTranscript).add(UserMessage(self.block.view.task))
        self.block.listeners.append(self._changed)
        self.set_interval(1.0, self._draw_header)
        await self._catch_up()

    def on_unmount(self) -> None:
        """Stop following the block."""
        if self._changed in self.block.listeners:
            self.block.listeners.remove(self._changed)

    def _changed(self) -> None:
        self.call_later(self._catch_up)

    async def _catch_up(self) -> None:
        """Draw the block's events not drawn yet, in order (one drawing at a time)."""
        async with self._drawing:
            log = self.query_one(ChildTranscript)
            events = self.block.events
            while self.shown < len(events):
                event = events[self.shown]
                self.shown += 1
                await log.show(event)
            if self.block.interrupted:
                await log.stop()
            self._draw_header()

    def _draw_header(self) -> None:
        from co_tui.tui.widgets.subagent_block import block_lines

        lines = block_lines(self.block.view, self.block.elapsed_s, interrupted=self.block.interrupted)
        self.query_one("#subagent-header", Static).update(Content("\n").join(lines))

    def action_close(self) -> None:
        """Back to the chat (the child goes on)."""
        self.dismiss(None)

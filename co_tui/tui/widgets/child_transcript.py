"""A child agent's transcript as it streams: its answer, its tool rows, its own trim banners.

The log of the subagent screen (screens/subagent.py). It renders one child's events the way the
chat renders the main agent's — the same widgets (answers, tool rows, banners, error lines) — and
nothing of the main conversation: the screen gives it only the events of its delegation.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, assert_never

from co_tui.session import (
    Done,
    ErrorEvent,
    HistoryTrimmed,
    Notice,
    OversizedTurn,
    SubagentFinished,
    SubagentStarted,
    TextDelta,
    ToolCall,
    ToolResult,
    UsageUpdate,
)
from co_tui.tui.widgets.chat_log import ChatLog
from co_tui.tui.widgets.error_block import ErrorBlock
from co_tui.tui.widgets.notice_line import NoticeLine
from co_tui.tui.widgets.tool_call_block import ToolCallBlock

if TYPE_CHECKING:
    from co_tui.session import Event
    from co_tui.tui.widgets.assistant_message import AssistantMessage


class ChildTranscript(ChatLog):
    """The child's conversation, oldest first; `show(event)` adds its next event."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._answer: AssistantMessage | None = None
        self._tools: dict[str, ToolCallBlock] = {}

    async def show(self, event: Event) -> None:
        """Render one event of the child (events of the parent, such as its result for the
        `delegate` call, are the block's business and are skipped here)."""
        match event:
            case TextDelta(text=text):
                if self._answer is None:
                    from co_tui.tui.widgets.assistant_message import AssistantMessage

                    self._answer = AssistantMessage()
                    await self.add(self._answer)
                self._answer.live.write(text)
            case ToolCall():
                await self.end_answer()
                block = ToolCallBlock(event.tool_name, event.tool_call_id, event.args)
                self._tools[event.tool_call_id] = block
                await self.add(block)
            case ToolResult():
                found = self._tools.get(event.tool_call_id) if event.agent is not None else None
                if found is not None:
                    found.set_result(event)
            case HistoryTrimmed():
                await self.end_answer()
                from co_tui.tui.widgets.trim_banner import TrimBanner

                await self.add(TrimBanner(event))
            case ErrorEvent():
                await self.end_answer(interrupted=event.kind == "interrupted")
                await self.add(ErrorBlock(event.message, event.kind))
            case OversizedTurn():
                await self.end_answer()
                await self.add(ErrorBlock(event.message, "overflow" if event.refused else "oversized"))
            case Notice(message=message):
                await self.end_answer()
                await self.add(NoticeLine(message))
            case SubagentFinished():
                await self.end_answer(interrupted=event.outcome == "cancelled")
                for tool in self._tools.values():
                    tool.mark_interrupted()  # a tool still running when the child ended never returned
            case UsageUpdate() | SubagentStarted() | Done():
                pass  # the meter is the screen's header; a child's turn has no `done` of its own
            case _:
                assert_never(event)

    async def end_answer(self, *, interrupted: bool = False) -> None:
        """Finish the answer being streamed, if any."""
        if self._answer is not None:
            answer, self._answer = self._answer, None
            await answer.live.finish(interrupted=interrupted)

    async def stop(self) -> None:
        """The turn stopped with no end from the child: its answer and running tools are marked stopped."""
        await self.end_answer(interrupted=True)
        for tool in self._tools.values():
            tool.mark_interrupted()

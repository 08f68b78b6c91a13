"""The `recall` tool: the model reads back, verbatim, what governance cut from its view.

Read-only, no approval, this session's transcript only (governance/recall.py does the lookups). The
agent always holds it, but a request offers it only once its context carries a cut note
(governance/recall_offer.py, applied by the governance capability after its cut). What it returns is an ordinary tool output
(counted by the meter, governed like any other); its metadata says what it recalled, so recalling
a recall answers the original again instead of nesting headers.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pydantic_ai.messages import ModelMessage
    from pydantic_ai.toolsets import FunctionToolset

RECALL_DESCRIPTION = """\
Read back, verbatim, something co-tui cut from your view of this conversation (this session only).

Every cut note shows the call to copy: recall("r12") returns a tool output whole; \
recall(turns="3-5") returns those turns as they happened; recall(search="text") finds text in what \
is out of view (each hit names its turn and handle); recall("explore-1") returns a subagent's \
transcript, recall("explore-1/r3") one of its tool outputs. Long results come in pages: pass the \
offset the result names to read on."""


RECALL_TOOLSET = "recall"  # the toolset's id: how `/context` and the overhead tell it from the workspace tools


@dataclass
class RecallSource:
    """What the tool reads, supplied by the session (agent/ never imports session/).

    `transcript()`: the session's transcript; `page_chars()`: the most one page may hold;
    `redact(text)`: the store's redaction of secrets; `child(id)`: a subagent's transcript by its
    id (`explore-1`), None when there is no such child."""

    transcript: Callable[[], Sequence[ModelMessage]]
    page_chars: Callable[[], int]
    redact: Callable[[str], str]
    child: Callable[[str], Sequence[ModelMessage] | None] = lambda _agent: None


def recall_toolset(source: RecallSource) -> FunctionToolset[Any]:
    """A toolset holding `recall` over `source` (its id `recall`: `/context` prices it on its own row,
    only while it is offered)."""
    from pydantic_ai import RunContext, ToolFailed, ToolReturn
    from pydantic_ai.toolsets import FunctionToolset

    from co_tui.agent.tool_schemas import tool_of
    from co_tui.governance.handles import RECALLED_KEY

    async def recall(
        ctx: RunContext[Any], handle: str = "", turns: str = "", search: str = "", offset: int = 0, limit: int = 0
    ) -> Any:
        """Read back what was cut from your view.

        Args:
            handle: A tool output's handle from a cut note, e.g. "r12".
            turns: A turn or range of turns from a cut note, e.g. "3-5".
            search: Text to find (case-insensitive) in what is out of view.
            offset: Character offset of the page to read (the previous page names it).
            limit: Most characters to return (capped by co-tui).
        """
        # The lookups load with the first recall: the tool is built with every session, called in few.
        from co_tui.governance.recall import RecallError, recall_child, recall_output, recall_spec

        spec = {"handle": handle} if handle else {"turns": turns} if turns else {"search": search} if search else {}
        transcript = source.transcript()
        context = list(ctx.messages)
        agent, _, inner = handle.strip().partition("/")
        child = source.child(agent) if "-" in agent else None  # output handles (r12) have no "-"

        def look() -> Any:
            page = {"offset": max(0, offset), "limit": max(0, limit), "page_chars": source.page_chars()}
            if child is not None and inner:  # one of a subagent's tool outputs
                return recall_output(child, inner, redact=source.redact, **page)
            if child is not None:
                return recall_child(child, agent, redact=source.redact, **page)
            return recall_spec(
                transcript,
                context,
                spec,
                offset=max(0, offset),
                limit=max(0, limit),
                page_chars=source.page_chars(),
                redact=source.redact,
            )

        try:
            found = await asyncio.to_thread(look)  # a long transcript decodes as it is read
        except RecallError as exc:
            raise ToolFailed(str(exc)) from None
        return ToolReturn(return_value=found.text, metadata={RECALLED_KEY: found.spec})

    # This module keeps pydantic-ai out of its imports (start-up is measured), so the annotation
    # pydantic-ai reads to pass the run context is given as the object, not as a string.
    recall.__annotations__["ctx"] = RunContext[Any]
    toolset: FunctionToolset[Any] = FunctionToolset(id=RECALL_TOOLSET)
    toolset.add_tool(tool_of(recall, takes_ctx=True, description=RECALL_DESCRIPTION))
    return toolset

"""`!command`: a shell command the user types in the prompt, run in the workspace, its output put into
the conversation as context the model sees on the next request.

It is run by the agent's own runner (`agent/shell.py`: `/bin/sh` in its own process group, the
timeout, the output cap) after the same approval as the agent's `run_shell` (the session's approver,
asked with `tool="run_shell"`, so an "always allow" prefix of `/permissions` covers both), whether
or not `allow_shell` gives the model that tool. An interrupt (`stop`) kills the process group and
keeps the output so far.

How it enters the history (`shell_exchange`): as the user's prompt `!command`, a synthetic call of
the tool `user_shell` and its result — three messages, one whole turn:

    ModelRequest([UserPromptPart("!ls")])
    ModelResponse([ToolCallPart("user_shell", {"command": "ls"})])
    ModelRequest([ToolReturnPart("user_shell", "$ ls\\n…\\n[exit code 0]")])

Why a call/return pair and not the output inside a user prompt: every piece of governance works on
tool outputs — handles (`recall("r12")`), truncation of old outputs, stub clearing, big-output
previews, eviction of one output, the inspector's rows — so the output is governed like any other
with no second path. The pair is whole inside one turn (a turn starts at the prompt `!ls`), so a
cut never separates call and result. The next prompt's request is fused by pydantic-ai with the
result's (as after an interrupted tool call): the output then belongs to the turn that asks about
it, and trimming keeps or drops the two together. The prompt part says exactly what the user typed,
so a resumed chat shows `!ls` and the model reads who ran it; `user_shell` is not one of the
agent's tools, so the model cannot mistake the call for one of its own.
"""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import AsyncIterator, Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from co_tui.agent.output_limit import OUTPUT_MAX_CHARS
from co_tui.agent.permissions import SHELL_TOOL
from co_tui.agent.shell import SHELL_TIMEOUT_S, run_command
from co_tui.agent.tools import Approver, CannotAsk
from co_tui.session.events import Done, Event, Notice, ToolCall
from co_tui.session.tool_facts import tool_result
from co_tui.session.user_shell_prompt import USER_SHELL_PREFIX, USER_SHELL_TOOL
from co_tui.text import escape_controls, one_line

if TYPE_CHECKING:
    from pydantic_ai.messages import ModelMessage

__all__ = ["UserShell", "shell_exchange"]


def shell_exchange(command: str, output: str, call_id: str) -> list[ModelMessage]:
    """The three messages a `!command` adds to the history (see the module docstring for why this
    shape): the user's prompt, the synthetic `user_shell` call and its result `output`. Pure."""
    from pydantic_ai.messages import ModelRequest, ModelResponse, ToolCallPart, ToolReturnPart, UserPromptPart

    return [
        ModelRequest(parts=[UserPromptPart(f"{USER_SHELL_PREFIX}{command}")]),
        ModelResponse(parts=[ToolCallPart(USER_SHELL_TOOL, {"command": command}, call_id)]),
        ModelRequest(parts=[ToolReturnPart(USER_SHELL_TOOL, output, call_id)]),
    ]


SHOWN_CHARS = 80  # of a command in a line saying it was not run

Record = Callable[[Sequence["ModelMessage"]], None]
"""Adds a `!command`'s messages to the session's history (and saves them)."""


class UserShell:
    """Runs one session's `!command`s: asks, runs, records. `stop()` interrupts the running one."""

    def __init__(
        self,
        workspace: Path,
        approver: Approver | None,
        *,
        timeout_s: float = SHELL_TIMEOUT_S,
        max_chars: int = OUTPUT_MAX_CHARS,
    ) -> None:
        self.workspace = workspace
        self.approver = approver
        self.timeout_s = timeout_s
        self.max_chars = max_chars
        self._stop: asyncio.Event | None = None

    def stop(self) -> None:
        """Interrupt the running command (its process group is killed, its output so far kept); a
        no-op when none runs. An interrupt while the approval is asked refuses the command."""
        if self._stop is not None:
            self._stop.set()

    async def run(self, command: str, record: Record) -> AsyncIterator[Event]:
        """Ask about `command`, run it, `record` its exchange; yield a `ToolCall`, a `ToolResult` and
        `Done` (`interrupted` when stopped). Not approved (or no one to ask): a `Notice` saying so and
        `Done(failed=True)`, nothing recorded. Never raises but for the caller's cancellation (then
        the process group is killed and nothing is recorded)."""
        self._stop = stop = asyncio.Event()
        try:
            refusal = await self._ask(command)
            if refusal is None and stop.is_set():  # Esc while the dialog was up
                refusal = f"`{one_line(escape_controls(command), SHOWN_CHARS)}` was not run: interrupted"
            if refusal is not None:
                yield Notice(message=refusal)
                yield Done(output="", failed=True)
                return
            call_id = f"user-shell-{uuid.uuid4().hex[:12]}"
            yield ToolCall(tool_name=USER_SHELL_TOOL, tool_call_id=call_id, args=json.dumps({"command": command}))
            output = await run_command(
                command, self.workspace, timeout_s=self.timeout_s, max_chars=self.max_chars, stop=stop
            )
            record(shell_exchange(command, output, call_id))
            # Not an error, whatever the exit status (the output's last line says it), as for
            # `run_shell`: the row reads the same live and resumed (its saved outcome is `success`).
            yield tool_result(tool_name=USER_SHELL_TOOL, tool_call_id=call_id, content=output, chars=len(output))
            yield Done(output=output, interrupted=stop.is_set())
        finally:
            self._stop = None

    async def _ask(self, command: str) -> str | None:
        """None when `command` may run; else the line saying why not (the command on one line,
        escaped and shortened: it may hold newlines and control characters)."""
        shown = f"`{one_line(escape_controls(command), SHOWN_CHARS)}` was not run"
        if self.approver is None:
            return f"{shown}: no one can approve shell commands here"
        try:
            approved = await self.approver(command, tool=SHELL_TOOL, by_user=True)
        except CannotAsk as exc:
            return f"{shown}: {exc}"
        except Exception as exc:  # a broken approval dialog must not run the command
            return f"{shown}: asking for approval failed ({exc})"
        return None if approved else f"{shown}: you declined it"

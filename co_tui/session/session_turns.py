"""`SessionTurns`: a session's turns as a front end starts them — the busy rule (one turn, `!command`
or operation at a time), the `@path` attachments, the refusal of a prompt that cannot fit, the
ask-mode plan of a send — around the `TurnRunner` that runs them and the `UserShell` that runs a
`!command`.

Every coroutine yields events, ends with `Done` and never raises; the session is busy until its
`Done` (also when the front end stops listening).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import TYPE_CHECKING

from co_tui.agent.mentions import AT, Attachments, attach, priced
from co_tui.session.ask_cut import plan_send
from co_tui.session.events import Done, ErrorEvent, Event, Notice
from co_tui.session.user_shell_prompt import USER_SHELL_PREFIX
from co_tui.session.wording import busy_line
from co_tui.text import mend_surrogates

if TYPE_CHECKING:
    from co_tui.governance.compact_mode import SendChoice
    from co_tui.session.ask_cut import PlannedCut
    from co_tui.session.busy import Busy
    from co_tui.session.metering import Metering
    from co_tui.session.persistence import TurnSaves
    from co_tui.session.turn_runner import TurnRunner
    from co_tui.session.user_shell import UserShell

__all__ = ["SessionTurns"]

BUSY_TURN = busy_line("sending a prompt")


class SessionTurns:
    """The turns of one session (module docstring): `runner` runs them, `shell` runs `!command`s
    (saved with `saves`), `busy` is the session's flag, `workspace` where `@path` is read."""

    def __init__(
        self,
        runner: TurnRunner,
        shell: UserShell,
        saves: TurnSaves,
        metering: Metering,
        busy: Busy,
        workspace: Path,
    ) -> None:
        self.runner, self.shell, self.saves, self.metering = runner, shell, saves, metering
        self.busy, self.workspace = busy, workspace

    def plan_send(self, prompt: str) -> PlannedCut | None:
        """In `compact_mode` ask: the cut sending `prompt` now would make (`ask_cut.plan_send`; no
        model call). None in the other modes, or when it goes out uncut."""
        binding = self.runner.binding
        if binding.compact_mode != "ask":
            return None
        window, guess = binding.context_window, binding.policy.window_is_guess
        gauge = self.metering.gauge()
        return plan_send(self.runner.history, gauge, prompt, window_tokens=window, window_is_guess=guess)

    def attachments(self, prompt: str) -> Attachments:
        """What the `@path` mentions of `prompt` attach (`agent.mentions.attach`), priced in the
        meter's tokens. Reads the files: blocking."""
        return priced(attach(self.workspace, prompt), self.runner.binding.meter.ratio)

    def run_turn(self, prompt: str, choice: SendChoice | None = None) -> AsyncIterator[Event]:
        """Run one user turn (`TurnRunner.run`) after its attachments and the size check; its events,
        ending with `Done`; never raises. `choice`: the user's answer for this send in `compact_mode`
        ask; `over_budget` chosen, a line says so once the turn is sure to be sent, with the figures
        of the plan it overrode (planned now, before the turn starts)."""
        plan = self.plan_send(prompt) if choice == "over_budget" else None
        return self._run_turn(prompt, choice, trace=plan.over_budget_line if plan is not None else None)

    async def _run_turn(self, prompt: str, choice: SendChoice | None, *, trace: str | None) -> AsyncIterator[Event]:
        if self.busy.running:
            yield ErrorEvent(message=BUSY_TURN, kind="internal")
            yield Done(output="", failed=True)
            return
        prompt = mend_surrogates(prompt)  # a lone surrogate (undecodable argv bytes) cannot be saved
        attachments = await asyncio.to_thread(self.attachments, prompt) if AT in prompt else None
        for line in attachments.lines() if attachments else ():
            yield Notice(message=line)
        sent = attachments.prompt(prompt) if attachments else prompt
        refused = self.runner.refusal(sent)
        if refused is not None:  # nothing sent, nothing added to the history
            yield refused
            yield Done(output="", failed=True)
            return
        if trace is not None:
            yield Notice(message=trace)
        self.busy.running = True
        try:
            async for event in self.runner.run(sent, choice, typed=prompt):
                if isinstance(event, Done):
                    self.busy.running = False
                yield event
        finally:
            self.busy.running = False

    async def run_user_shell(self, command: str) -> AsyncIterator[Event]:
        """`!command`: ask as `run_shell` asks, run `command`, add the exchange to the history
        (`user_shell.shell_exchange`: governed like any tool output) and save it; end with the meter
        and `Done`."""
        if self.busy.running:
            yield ErrorEvent(message=BUSY_TURN, kind="internal")
            yield Done(output="", failed=True)
            return
        self.busy.running = True
        try:
            async for event in self.shell.run(command, self.runner.append_to_context):
                if isinstance(event, Done) and not event.failed:
                    save_error = await asyncio.to_thread(self.saves.save_turn, f"{USER_SHELL_PREFIX}{command}")
                    if save_error is not None:
                        yield save_error
                    yield self.metering.reading()
                    self.busy.running = False
                yield event
        finally:
            self.busy.running = False

    def cancel(self) -> None:
        """Interrupt the running turn or `!command`. Safe from any task; a no-op when idle."""
        self.runner.cancel()
        self.shell.stop()

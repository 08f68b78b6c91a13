"""Running a slash command in the TUI, by the session's one command table (`co_tui.session.commands`).

A typed `/name argument`, a palette pick (tui/palette.py) and a key bound to a command (the chat
screen's `app.command('…')` bindings) all come here: the table finds the command, and its `action`
names the `CommandActions` method that runs it (tui/command_actions.py). No command is dispatched
any other way.
"""

from __future__ import annotations

import inspect
from typing import TYPE_CHECKING

from co_tui.session import COMMANDS, closest_command, find_command, parse_slash

if TYPE_CHECKING:
    from co_tui.session import Command
    from co_tui.tui.chat_view import ChatView
    from co_tui.tui.command_actions import CommandActions

__all__ = ["run_action", "run_slash"]


async def run_slash(actions: CommandActions, chat: ChatView, line: str) -> bool:
    """Run slash command `line`. Returns False when `line` is not a slash command at all; an
    unknown command gets a hint under the prompt naming the closest."""
    parsed = parse_slash(line)
    if parsed is None:
        return False
    name, arg = parsed
    command = find_command(name)
    chat.clear_hint()
    if command is None:
        near = closest_command(name)
        tip = f" — did you mean /{near}?" if near else " — /help lists the commands"
        chat.show_hint(f"unknown command /{name}{tip}")
        return True
    await _run(actions, command, arg)
    return True


async def run_action(actions: CommandActions, action: str) -> None:
    """Run the command whose table `action` is `action`, with no argument (a key bound to it)."""
    command = next(command for command in COMMANDS if command.action == action)
    await _run(actions, command, "")


async def _run(actions: CommandActions, command: Command, arg: str) -> None:
    # The table's action, given the text after the name when the command takes arguments.
    method = getattr(actions, command.action)
    done = method(arg) if command.arguments else method()
    if inspect.isawaitable(done):
        await done

"""The one table of slash commands (docs/keys-and-commands.md), for every front end.

Each `Command` has its name, the arguments it takes (`usage`), the line of help, its key in the TUI
and the TUI's method that runs it (`action`), and — for the commands that mean something without a screen — `run`, a
handler on the session port (`command_handlers.py`) that yields the command's events. The TUI's
slash popup, command palette, help screen and the generated keys doc read it; an ACP client is sent
the commands with a handler as `available_commands_update`, and they run when sent as prompt text
(`run_command`).

Importing this module loads nothing heavy (the TUI reads the table before its first paint).
"""

from __future__ import annotations

import difflib
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from co_tui.session import command_handlers as run

if TYPE_CHECKING:
    from co_tui.session.events import Event
    from co_tui.session.port import SessionPort

Handler = Callable[["SessionPort", str], AsyncIterator["Event"]]
"""`handler(session, argument)`: run the command on the session port, yielding its events (ending
with `Done`); never raises (a refusal is a `Notice`)."""


async def _help(session: SessionPort, _: str) -> AsyncIterator[Event]:
    """`/help`: the commands that run here, one line each."""
    lines = [f"- {command.usage or command.slash}: {command.summary}" for command in headless_commands()]
    async for event in run.said("Commands:\n" + "\n".join(lines)):
        yield event


@dataclass(frozen=True)
class Command:
    """One slash command. `usage`: the form with its arguments (`/compact [focus]`); `action`: what
    runs it in the TUI (`"compact"` → `CommandActions.compact`, tui/command_actions.py); `run`: its
    handler on the port, for front ends with no screens (None: it needs one, e.g. the history
    inspector)."""

    name: str
    summary: str
    usage: str = ""
    key: str | None = None
    action: str = ""
    run: Handler | None = None

    @property
    def slash(self) -> str:
        """The form the user types, e.g. `/compact`."""
        return "/" + self.name

    @property
    def arguments(self) -> str:
        """What follows the name in `usage` (`[focus]`), "" when it takes none."""
        return self.usage.partition(" ")[2]


COMMANDS: tuple[Command, ...] = (
    Command(
        "compact",
        "Summarise the conversation into a short recap to free context",
        "/compact [focus]",
        "ctrl+k",
        "compact",
        run.compact,
    ),
    Command("clear", "Start a fresh conversation (the old one stays saved)", "/clear", "ctrl+l", "clear", run.clear),
    Command("history", "Inspect what the model sees versus the whole transcript", "/history", "f2", "show_history"),
    Command(
        "context",
        "What the next request holds, by category, against the window",
        "/context",
        None,
        "show_context",
        run.context,
    ),
    Command("sessions", "Browse saved sessions and resume one", "/sessions", None, "show_sessions"),
    Command("export", "Export this session as Markdown or JSON", "/export [md|json] [path]", None, "export"),
    Command("model", "Show the model, or switch to another one", "/model [name]", None, "model", run.model),
    Command("help", "Keys and commands", "/help", "f1", "show_help", _help),
    Command(
        "mcp",
        "List MCP servers: status, tools and their schemas' token cost; restart NAME starts one again",
        "/mcp [restart NAME]",
        None,
        "show_mcp",
        run.mcp,
    ),
    Command("quit", "Quit co-tui", "/quit", "ctrl+q", "quit"),
    Command("undo", "Undo the newest cut: the model sees what it removed again", "/undo", None, "undo", run.undo),
    Command("pin", "Pin the newest turn: no cut drops, summarises or shortens it", "/pin", None, "pin", run.pin),
    Command(
        "rewind",
        "Return to before an earlier prompt, as the model saw it then; its file edits too, if you wish",
        "/rewind",
        "escape escape",
        "rewind",
        run.rewind,
    ),
    Command(
        "fork",
        "Go on in a new saved session copied from this one as it is now (this one stays)",
        "/fork [title]",
        None,
        "fork",
        run.fork,
    ),
    Command(
        "branches",
        "The conversation tree: every rewind keeps a branch; Enter switches to one",
        "/branches",
        None,
        "show_branches",
    ),
    Command(
        "permissions",
        "What approvals allowed always for this session; revoke any of them",
        "/permissions",
        None,
        "show_permissions",
    ),
    Command(
        "compact-mode",
        "Who cuts the context this session: auto, ask (you, first) or off",
        "/compact-mode [mode]",
        None,
        "compact_mode",
        run.compact_mode,
    ),
    Command(
        "remember",
        "Remember a note in this workspace's memory (--global: yours), sent with every request; #note too",
        "/remember [--global] note",
        None,
        "remember",
        run.remember,
    ),
    Command(
        "memory",
        "What is remembered and where each note came from; edit or delete notes",
        "/memory",
        None,
        "show_memory",
        run.memory,
    ),
    Command(
        "agents",
        "List the agents the model can delegate to, where each came from, and files refused",
        "/agents",
        None,
        "show_agents",
        run.agents,
    ),
)

_BY_NAME = {command.name: command for command in COMMANDS}


def find_command(name: str) -> Command | None:
    """The command called `name` (with or without the leading `/`, any case), or None."""
    return _BY_NAME.get(name.strip().lstrip("/").lower())


def closest_command(name: str) -> str | None:
    """The name of the registered command nearest to `name` (for "did you mean"), or None."""
    # 0.6: at 0.5 two shared letters were enough (`/edit` → "did you mean /quit?").
    matches = difflib.get_close_matches(name.strip().lstrip("/").lower(), list(_BY_NAME), n=1, cutoff=0.6)
    return matches[0] if matches else None


def complete(prefix: str) -> list[Command]:
    """Commands whose name starts with `prefix` (leading `/` optional), in registry order."""
    stem = prefix.strip().lstrip("/").lower()
    return [command for command in COMMANDS if command.name.startswith(stem)]


def headless_commands() -> list[Command]:
    """The commands a front end with no screens can run (those with a handler), in table order."""
    return [command for command in COMMANDS if command.run is not None]


def parse_slash(line: str) -> tuple[str, str] | None:
    """`/name argument…` → (name, argument); None when `line` is not a slash command (`//text` is a
    prompt that starts with `/`)."""
    line = line.strip()
    if not line.startswith("/") or line.startswith("//"):
        return None
    name, _, argument = line[1:].partition(" ")
    return name, argument.strip()


async def run_command(session: SessionPort, line: str) -> AsyncIterator[Event]:
    """Run slash command `line` on `session` with its handler; an unknown command, or one that needs
    a screen, is a `Notice` naming the closest or saying so. Ends with `Done`; never raises."""
    from co_tui.session.events import Done, Notice

    parsed = parse_slash(line)
    name, argument = parsed if parsed is not None else ("", "")
    command = find_command(name)
    if command is None or command.run is None:
        if command is not None:
            said = f"/{command.name} needs co-tui's own screen: run it in the TUI"
        else:
            near = closest_command(name)
            said = f"unknown command /{name}" + (f" — did you mean /{near}?" if near else " — /help lists the commands")
        yield Notice(message=said)
        yield Done(output="", failed=True)
        return
    async for event in command.run(session, argument):
        yield event


__all__ = [
    "COMMANDS",
    "Command",
    "Handler",
    "closest_command",
    "complete",
    "find_command",
    "headless_commands",
    "parse_slash",
    "run_command",
]

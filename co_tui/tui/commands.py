"""The one registry of slash commands and key bindings (docs/keys-and-commands.md).

Three views read it: the slash-completion popup, the command palette and the help screen; the app
builds its `BINDINGS` from `KEYS`. Adding a command here is the only step that makes it appear in
all of them (the app still needs the matching `action_*`).
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass


@dataclass(frozen=True)
class CommandSpec:
    """One slash command. `action` names the app action (`"compact"` → `App.action_compact`)."""

    name: str
    summary: str
    usage: str = ""
    key: str | None = None
    action: str = ""

    @property
    def slash(self) -> str:
        """The form the user types, e.g. `/compact`."""
        return "/" + self.name


@dataclass(frozen=True)
class KeySpec:
    """One key binding of the app. `show`: listed in the footer; `priority`: wins over the
    focused widget's own binding for the same key."""

    key: str
    action: str
    description: str
    show: bool = True
    priority: bool = False


COMMANDS: tuple[CommandSpec, ...] = (
    CommandSpec(
        "compact",
        "Summarise the conversation into a short recap to free context",
        "/compact [focus]",
        "ctrl+k",
        "compact",
    ),
    CommandSpec("clear", "Start a fresh conversation (the old one stays saved)", "/clear", "ctrl+l", "clear"),
    CommandSpec("history", "Inspect what the model sees versus the whole transcript", "/history", "f2", "show_history"),
    CommandSpec(
        "context", "What the next request holds, by category, against the window", "/context", None, "show_context"
    ),
    CommandSpec("sessions", "Browse saved sessions and resume one", "/sessions", None, "show_sessions"),
    CommandSpec("export", "Export this session as Markdown or JSON", "/export [md|json] [path]", None, "export"),
    CommandSpec("model", "Show the model, or switch to another one", "/model [name]", None, "model"),
    CommandSpec("help", "Keys and commands", "/help", "f1", "show_help"),
    CommandSpec(
        "mcp",
        "List MCP servers: status, tools and their schemas' token cost; restart NAME starts one again",
        "/mcp [restart NAME]",
        None,
        "show_mcp",
    ),
    CommandSpec("quit", "Quit co-tui", "/quit", "ctrl+q", "quit"),
    CommandSpec("undo", "Undo the newest cut: the model sees what it removed again", "/undo", None, "undo"),
    CommandSpec("pin", "Pin the newest turn: no cut drops, summarises or shortens it", "/pin", None, "pin"),
    CommandSpec(
        "permissions",
        "What approvals allowed always for this session; revoke any of them",
        "/permissions",
        None,
        "show_permissions",
    ),
    CommandSpec(
        "compact-mode",
        "Who cuts the context this session: auto, ask (you, first) or off",
        "/compact-mode [mode]",
        None,
        "compact_mode",
    ),
)

KEYS: tuple[KeySpec, ...] = (
    # priority: the prompt (a TextArea) binds ctrl+k itself (delete to end of line).
    KeySpec("ctrl+k", "compact", "Compact", priority=True),
    KeySpec("ctrl+l", "clear", "Clear"),
    KeySpec("f2", "show_history", "History"),
    KeySpec("escape", "interrupt", "Interrupt"),
    KeySpec("ctrl+p", "command_palette", "Commands"),
    KeySpec("f1", "show_help", "Help"),
    KeySpec("ctrl+q", "quit", "Quit", priority=True),
    # Not priority: the prompt runs it itself, after the keys typed before it (PromptInput.BINDINGS).
    KeySpec("ctrl+c", "ctrl_c", "Clear the prompt, else interrupt; twice quits", show=False),
    KeySpec("ctrl+end", "scroll_chat_end", "Jump to the end of the chat", show=False),
)

_BY_NAME = {spec.name: spec for spec in COMMANDS}


def find_command(name: str) -> CommandSpec | None:
    """The command called `name` (with or without the leading `/`, any case), or None."""
    return _BY_NAME.get(name.strip().lstrip("/").lower())


def closest_command(name: str) -> str | None:
    """The name of the registered command nearest to `name` (for "did you mean"), or None."""
    # 0.6: at 0.5 two shared letters were enough (`/edit` → "did you mean /quit?").
    matches = difflib.get_close_matches(name.strip().lstrip("/").lower(), list(_BY_NAME), n=1, cutoff=0.6)
    return matches[0] if matches else None


def complete(prefix: str) -> list[CommandSpec]:
    """Commands whose name starts with `prefix` (leading `/` optional), in registry order."""
    stem = prefix.strip().lstrip("/").lower()
    return [spec for spec in COMMANDS if spec.name.startswith(stem)]


__all__ = ["COMMANDS", "KEYS", "CommandSpec", "KeySpec", "closest_command", "complete", "find_command"]

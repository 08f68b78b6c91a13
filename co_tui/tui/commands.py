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
        "rewind",
        "Return to before an earlier prompt, as the model saw it then; its file edits too, if you wish",
        "/rewind",
        "escape escape",
        "rewind",
    ),
    CommandSpec(
        "fork",
        "Go on in a new saved session copied from this one as it is now (this one stays)",
        "/fork [title]",
        None,
        "fork",
    ),
    CommandSpec(
        "branches",
        "The conversation tree: every rewind keeps a branch; Enter switches to one",
        "/branches",
        None,
        "show_branches",
    ),
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
    KeySpec("ctrl+c", "ctrl_c", "Clear the prompt, else interrupt; twice within 2 s quits", show=False),
    KeySpec("ctrl+end", "scroll_chat_end", "Jump to the end of the chat", show=False),
    # priority: the prompt (a TextArea) pages its own cursor with them; a one-line prompt has no pages.
    KeySpec("pageup,shift+pageup", "scroll_chat('page_up')", "Scroll the chat up a page", show=False, priority=True),
    KeySpec(
        "pagedown,shift+pagedown", "scroll_chat('page_down')", "Scroll the chat down a page", show=False, priority=True
    ),
    KeySpec("ctrl+home", "scroll_chat('home')", "Jump to the start of the chat", show=False, priority=True),
)


@dataclass(frozen=True)
class PromptFormSpec:
    """Something typed at the start of the prompt (or in it) that is not sent as it is."""

    form: str
    description: str


PROMPT_FORMS: tuple[PromptFormSpec, ...] = (
    PromptFormSpec("/command", "Run a slash command (a popup completes it)"),
    PromptFormSpec("//text", "Send `/text` as a prompt, not as a command"),
    PromptFormSpec(
        "!command",
        "Run a shell command in the workspace, asked as the model's `run_shell` is (`a` in the dialog "
        "allows its prefix for the session, as for the model's commands; see `/permissions`), even when "
        "`allow_shell` is off. Its row shows the output's first 10 lines, `+N lines` when there are more "
        "(Enter on the row opens them all) and how it ended (`exit 0`, `exit 2`…; the title adds "
        "`· exit 2`, `· timed out` or `· stopped` when the command did not succeed). The output goes into "
        "the conversation: the model sees it with your next prompt, the meter counts it, and old outputs "
        "are shortened and recallable like any tool output. Esc or Ctrl+C stops it (the output so far is "
        "kept). `!` alone is a prompt",
    ),
    PromptFormSpec(
        "@path",
        "Attach a workspace file (what `read_file` would show: its first 400 lines; a binary file is "
        "described; 64,000 characters in all at most) or a folder's listing when the prompt is sent. A popup completes paths "
        "as you type (Tab goes into a folder, Enter picks; on a path typed in full, Enter sends); the meter shows what they add before you send. "
        "Only paths inside the workspace: `..`, absolute paths and symlinks out are refused",
    ),
)
"""What the prompt does with the text typed in it, besides sending it (the help and the keys doc)."""

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


__all__ = [
    "COMMANDS",
    "KEYS",
    "PROMPT_FORMS",
    "CommandSpec",
    "KeySpec",
    "PromptFormSpec",
    "closest_command",
    "complete",
    "find_command",
]

"""The TUI's registry of key bindings and prompt forms, beside the session's one command table
(`co_tui.session.commands`, re-exported here; docs/keys-and-commands.md).

The slash-completion popup, the command palette and the help screen read the commands; the chat
screen builds its `BINDINGS` from `KEYS` (`binding_action`: a command's key runs the command), and
tui/command_dispatch.py runs a command's `action` (a `CommandActions` method). Adding a command to
the session's table is the only step that makes it appear in all of them, and in ACP clients when
it has a handler (the TUI still needs the matching `CommandActions` method).
"""

from __future__ import annotations

from typing import NamedTuple

from co_tui.session import COMMANDS, closest_command, complete, find_command
from co_tui.session import Command as CommandSpec

# Named tuples, not frozen dataclasses: imported before the first frame, where a frozen dataclass
# costs ~0.4 ms (Python 3.11 compiles each generated method at import).


class KeySpec(NamedTuple):
    """One key binding of the app. `show`: listed in the footer; `priority`: wins over the
    focused widget's own binding for the same key."""

    key: str
    action: str
    description: str
    show: bool = True
    priority: bool = False


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


_COMMAND_ACTIONS = frozenset(command.action for command in COMMANDS)


def binding_action(action: str) -> str:
    """The app action a key of `KEYS` is bound to: a command's key runs the command through the
    table, as `/name` does (`CoTuiApp.action_command`, tui/command_dispatch.py); any other key its
    own app action."""
    return f"app.command({action!r})" if action in _COMMAND_ACTIONS else f"app.{action}"


class PromptFormSpec(NamedTuple):
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
        "#note",
        "Remember `note` in the workspace's memory (`.co-tui/memory.md`), as `/remember note` does: a "
        "dialog shows the exact line and the file first (y writes, n or Esc does not), then one line in "
        "the chat names the file and line. The note is sent with every request and never cut; `/memory` "
        "lists, edits (`e`) and deletes (`d`) notes; `/remember --global note` writes yours. A heading (`#` twice) and "
        "`#` alone are prompts",
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

__all__ = [
    "COMMANDS",
    "KEYS",
    "PROMPT_FORMS",
    "CommandSpec",
    "KeySpec",
    "PromptFormSpec",
    "binding_action",
    "closest_command",
    "complete",
    "find_command",
]

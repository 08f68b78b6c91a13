"""What the user allowed for the rest of a session ("Always allow" in an approval), and the
answers an approval can give.

Pure Python: the TUI asks (`tui/screens/approval.py`), this remembers and decides whether a later
call needs asking again. `/permissions` lists the grants and revokes them.

What "always" grants, by tool:
- `write_file` / `edit_file`: file edits, both tools (each edit still checkpointed and confined).
- an MCP tool: every call of that one tool.
- `run_shell`: a command prefix, only for a *plain* command — words of letters, digits and
  `_ . / : @ + , = -`, separated by spaces: no quotes, `$`, backquotes, `;`, `|`, `&`, redirections,
  wildcards, `~`, `#`, tabs or newlines, so the words are exactly what runs and nothing can be
  chained after them. The prefix is the first word, plus the second for a program whose second word
  names what it does (`git status`, `npm test`, `make lint`: `SUBCOMMAND_PROGRAMS`), so allowing
  `git status` does not allow `git push`. A later command matches when it is plain too and starts
  with the same words. For anything else — a command with any of those characters,
  or a first word that runs other programs (`sh`, `python`, `env`, `sudo`, `xargs`, `find`…) —
  "always" allows that exact command only.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal

Decision = Literal["deny", "once", "always"]
"""An approval's answer: refuse the call, run it this once, or run it and allow the like of it for
the rest of the session (`Grant`)."""

SHOWN_COMMAND_CHARS = 60
PLAIN_MAX_CHARS = 200
GrantKind = Literal["edits", "tool", "prefix", "command"]
EDIT_TOOLS = ("write_file", "edit_file")
SHELL_TOOL = "run_shell"

_PLAIN_WORD = re.compile(r"[A-Za-z0-9_./:@+,=-]+")
_COMMAND_NAME = re.compile(r"[A-Za-z0-9_./+-]+")  # no `=` (`VAR=x cmd`) or `:` in the program's name
_SUBCOMMAND = re.compile(r"[a-z][a-z0-9:-]*")
SUBCOMMAND_PROGRAMS = frozenset(
    {
        *("git", "hg", "svn", "gh", "npm", "pnpm", "yarn", "bun", "cargo", "go", "uv", "pip", "pip3", "poetry"),
        *("docker", "podman", "kubectl", "helm", "terraform", "make", "just", "mvn", "gradle", "dotnet", "mix"),
        *("bundle", "rails", "rake", "composer", "brew", "apt", "systemctl", "pytest", "tox", "nox", "ruff", "mypy"),
    }
)
"""Programs whose second word names what they do (`git status`, `npm test`): their prefix keeps it."""
RUNS_ANYTHING = frozenset(
    {
        *("sh", "bash", "zsh", "dash", "ksh", "fish", "csh", "tcsh", "busybox"),
        *("python", "python3", "python2", "pypy", "node", "deno", "bun", "perl", "ruby", "php", "lua", "Rscript"),
        *("env", "sudo", "doas", "su", "exec", "eval", "command", "builtin", "nohup", "setsid", "xargs", "parallel"),
        *("timeout", "time", "nice", "ionice", "watch", "strace", "chroot", "ssh", "script", "expect"),
        *("find", "awk", "gawk", "sed", "vim", "vi", "nvim", "emacs", "less", "more", "man", "tmux", "screen"),
    }
)
"""Programs whose arguments can run any other program: a prefix of them would allow everything."""


def plain_words(command: str) -> list[str] | None:
    """The words of `command` when it is plain (see the module's docstring), else None."""
    if len(command) > PLAIN_MAX_CHARS:
        return None  # nobody reviews a 5,000-character "word": that exact command, if anything
    words = command.split(" ")
    if not command or any(not _PLAIN_WORD.fullmatch(word) for word in words):
        return None  # empty words too: two spaces in a row are not plain either
    if not _COMMAND_NAME.fullmatch(words[0]):
        return None
    return words


@dataclass(frozen=True)
class Grant:
    """One "always allow": `kind` edits (both edit tools), tool (one tool by name), prefix
    (`run_shell` commands starting with the words in `value`) or command (exactly `value`)."""

    kind: GrantKind
    tool: str
    value: str = ""

    def allows(self, tool: str, text: str) -> bool:
        """Whether a call of `tool` with `text` (a command, or an MCP call's text) is covered."""
        if self.kind == "edits":
            return tool in EDIT_TOOLS
        if tool != self.tool:
            return False
        if self.kind == "tool":
            return True
        command = text.strip()
        if self.kind == "command":
            return command == self.value
        words = plain_words(command)
        prefix = self.value.split(" ")
        return words is not None and words[: len(prefix)] == prefix

    def describe(self) -> str:
        """One line for the dialog and `/permissions`."""
        if self.kind == "edits":
            return "file edits (write_file, edit_file)"
        if self.kind == "tool":
            return f"every call of {self.tool}"
        if self.kind == "prefix":
            return f"run_shell: `{self.value} …` (plain commands: no quotes, $, ;, |, &, >, wildcards)"
        from co_tui.agent.approval_text import escaped  # an approval's text: loaded when one is shown

        # Escaped and cut: a command may hold control characters, newlines, or be 6,000 characters long.
        shown = escaped(self.value)
        if len(shown) > SHOWN_COMMAND_CHARS:
            return f"run_shell: exactly `{shown[:SHOWN_COMMAND_CHARS]}…` ({len(self.value):,} characters)"
        return f"run_shell: exactly `{shown}`"


def offer(tool: str, text: str) -> Grant:
    """What "always allow" would grant for this call (see the module's docstring)."""
    if tool in EDIT_TOOLS:
        return Grant("edits", "edits")
    if tool != SHELL_TOOL:
        return Grant("tool", tool)
    command = text.strip()
    words = plain_words(command)
    if words is None or words[0] in RUNS_ANYTHING or words[0].rsplit("/", 1)[-1] in RUNS_ANYTHING:
        return Grant("command", tool, command)
    sub = len(words) > 1 and words[0] in SUBCOMMAND_PROGRAMS and _SUBCOMMAND.fullmatch(words[1])
    prefix = words[:2] if sub else words[:1]
    return Grant("prefix", tool, " ".join(prefix))


@dataclass
class Permissions:
    """A session's grants, in the order given."""

    grants: list[Grant] = field(default_factory=list)

    def allowing(self, tool: str, text: str) -> Grant | None:
        """The grant that covers this call, or None (then the user is asked)."""
        return next((g for g in self.grants if g.allows(tool, text)), None)

    def grant(self, grant: Grant) -> None:
        """Add `grant` (once)."""
        if grant not in self.grants:
            self.grants.append(grant)

    def revoke(self, grant: Grant) -> bool:
        """Remove `grant`; False when it was not there."""
        if grant in self.grants:
            self.grants.remove(grant)
            return True
        return False

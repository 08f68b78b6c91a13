"""`!command` in the prompt: telling one from a prompt, and the name its output is recorded under.

Imports nothing: the TUI asks this before the session (and pydantic-ai) is loaded. Running one is
`user_shell.py`'s.
"""

from __future__ import annotations

__all__ = ["USER_SHELL_PREFIX", "USER_SHELL_TOOL", "user_shell_command"]

USER_SHELL_PREFIX = "!"
USER_SHELL_TOOL = "user_shell"
"""The tool name of a `!command`'s synthetic call and result in the history (not an agent tool)."""


def user_shell_command(text: str) -> str | None:
    """The command of a prompt typed as `!command` (stripped), or None: not one (a prompt), or `!`
    with nothing after it (sent as a prompt, as typed)."""
    if not text.startswith(USER_SHELL_PREFIX):
        return None
    command = text[len(USER_SHELL_PREFIX) :].strip()
    return command or None

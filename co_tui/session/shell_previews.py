"""What a `!command`'s row shows without being opened: the head of its output and how it ended.

A user who typed a command wants its output, so the row shows its first lines inline (the model's
`run_shell` rows stay one line: the model asked for that output, not the user). Pure text; reads the
shape `agent/shell.run_command` writes: `$ command`, the output (or `(no output)`), a status line.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["SHELL_PREVIEW_LINES", "ShellPreview", "shell_preview"]

SHELL_PREVIEW_LINES = 10


@dataclass(frozen=True)
class ShellPreview:
    """`lines`: the output's first lines; `more`: how many lines follow them (0: all shown);
    `status`: how the command ended (`exit 0`, `exit 2`, `timed out after 120 s: …`), "" if unknown."""

    lines: tuple[str, ...]
    more: int
    status: str


def shell_preview(output: str, limit: int = SHELL_PREVIEW_LINES) -> ShellPreview:
    """The first `limit` lines of a `run_command` output's body (without its `$ command` line and
    its status line), how many more there are and the status. An output not in that shape (one
    cut before its end) is taken as all body past a leading `$ ` line, with no status."""
    lines = output.rstrip("\n").split("\n")
    if lines and lines[0].startswith("$ "):
        lines = lines[1:]
    status = ""
    if lines and lines[-1].startswith("[") and lines[-1].endswith("]"):
        last = lines.pop()[1:-1]
        status = "exit " + last.removeprefix("exit code ") if last.startswith("exit code ") else last
    return ShellPreview(tuple(lines[:limit]), max(0, len(lines) - limit), status)

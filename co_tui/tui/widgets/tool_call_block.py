"""A tool call in the chat log: a collapsed one-liner that expands to arguments and result."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Literal

from textual.app import ComposeResult
from textual.content import Content
from textual.widgets import Collapsible, Static

from co_tui.session import USER_SHELL_TOOL
from co_tui.text import escape_controls, one_line, screen_text

if TYPE_CHECKING:
    from co_tui.session import ToolResult

Status = Literal["running", "done", "error", "interrupted"]

PREVIEW_CHARS = 4000  # the expanded view shows the head of big results; the full text stays in the transcript
ARGS_INLINE = 60


def args_inline(args: str) -> str:
    """Arguments as one short line: `path="README.md", limit=20` (raw text when not a JSON object)."""
    try:
        data = json.loads(args) if args.strip() else {}
    except ValueError:
        data = None
    if not isinstance(data, dict):
        return one_line(escape_controls(args), ARGS_INLINE)
    line = ", ".join(f"{k}={json.dumps(v, ensure_ascii=False)}" for k, v in data.items())
    return one_line(escape_controls(line), ARGS_INLINE)


def shell_inline(args: str) -> str:
    """A `!command` row's command on one short line (its `command` argument)."""
    try:
        data = json.loads(args)
    except ValueError:
        data = None
    command = data.get("command") if isinstance(data, dict) else None
    return one_line(escape_controls(command if isinstance(command, str) else args), ARGS_INLINE)


def shell_inline_output(content: str, chars: int) -> Content:
    """A `!command`'s output as its closed row shows it: the first lines, `+N lines` when there are
    more (Enter on the row opens them) and how it ended."""
    from co_tui.session import shell_preview

    preview = shell_preview(content)
    rows: list[str | tuple[str, str]] = [screen_text(line) for line in preview.lines]
    if preview.more:
        rows.append((f"+{preview.more} lines · enter opens the rest", "italic $text-muted"))
    elif chars > len(content):
        rows.append(("… enter opens the rest", "italic $text-muted"))
    if preview.status:
        rows.append((preview.status, "$text-muted" if preview.status == "exit 0" else "$text-warning"))
    parts: list[str | tuple[str, str]] = []
    for row in rows:
        parts += ["\n", row] if parts else [row]
    return Content.assemble(*parts)


def args_pretty(args: str) -> str:
    """Arguments pretty-printed for the expanded view (control characters escaped: `screen_text`)."""
    try:
        return screen_text(json.dumps(json.loads(args), indent=2, ensure_ascii=False)) if args.strip() else "{}"
    except ValueError:
        return screen_text(args)


class ToolCallBlock(Collapsible):
    """`⚙ read_file(path="README.md") · 2.3k chars · truncated`; `⚙ $ make test · 4.1k chars · exit 2`.

    `set_result` fills in the size and preview; `mark_truncated` adds the badge shown when
    governance shortened this output in the model's view (the transcript keeps it whole). An
    output too big to send whole arrives as its preview (`ToolResult.previewed`): the row says
    `preview` from the start, and its size is the whole output's.
    """

    DEFAULT_CSS = """
    ToolCallBlock {
        margin: 1 0 0 0;
        padding: 0 0 0 1;
        border-top: none;
        border-left: outer $secondary 50%;
        background: transparent;
    }
    /* The full row: an auto width is not laid out again when the title grows (running… → size). */
    ToolCallBlock > CollapsibleTitle { padding: 0; width: 1fr; }
    ToolCallBlock > Contents { padding: 0 0 0 2; height: auto; }
    ToolCallBlock .tool-section { color: $text-muted; text-style: bold; margin-top: 1; }
    ToolCallBlock .tool-body { color: $foreground 80%; }
    ToolCallBlock.-error { border-left: outer $error; }
    /* A `!command`'s output head, shown while the row is closed (opened, the result shows it all). */
    ToolCallBlock > .shell-output { color: $foreground 80%; padding: 0 0 0 2; height: auto; }
    ToolCallBlock > .shell-output.-empty { display: none; }
    ToolCallBlock > .shell-output.-opened { display: none; }
    """

    def __init__(self, tool_name: str, tool_call_id: str, args: str) -> None:
        self.tool_name = tool_name
        self.tool_call_id = tool_call_id
        self.args = args
        self.status: Status = "running"
        self.result_chars: int | None = None
        self.truncated = False
        self.previewed = False
        self.recalled: str | None = None  # a `recall`'s row: what came back, from which turn
        self.outcome: str | None = None  # a shell command's row: `exit 2`, `timed out`, `stopped`
        self._result = Static(Content(""), classes="tool-body")
        self._inline = Static(Content(""), classes="shell-output -empty")
        super().__init__(
            Static("arguments", classes="tool-section"),
            Static(Content(args_pretty(args)), classes="tool-body"),
            Static("result", classes="tool-section"),
            self._result,
            title="",
            collapsed=True,
            collapsed_symbol="▸",
            expanded_symbol="▾",
        )
        self._refresh_title()

    def compose(self) -> ComposeResult:
        """The collapsible's title and contents, then a `!command`'s output head (shown closed)."""
        yield from super().compose()
        if self.tool_name == USER_SHELL_TOOL:
            yield self._inline

    def watch_collapsed(self, collapsed: bool) -> None:
        """Opened, the result shows the whole output: the head under the title goes."""
        self._inline.set_class(not collapsed, "-opened")

    def set_result(self, result: ToolResult) -> None:
        """Show the tool's result: its size, outcome and badges in the title (facts the session read
        off the output: `ToolResult`), the head of the text in the expanded view."""
        content, chars = result.content, result.chars
        self.status = "error" if result.is_error else "done"
        self.result_chars = chars
        # A failed command is no tool error (its last line says how it ended): the title says it.
        self.outcome = result.outcome
        self.previewed = result.previewed
        self.recalled = result.recalled
        shown = content if len(content) <= PREVIEW_CHARS else content[:PREVIEW_CHARS] + f"\n… ({chars:,} chars in all)"
        self._result.update(Content(screen_text(shown)))  # a file's or a command's bytes never drive the terminal
        if self.tool_name == USER_SHELL_TOOL:
            self._inline.update(shell_inline_output(content, chars))
            self._inline.set_class(False, "-empty")
        self.set_class(result.is_error, "-error")
        self._refresh_title()

    def mark_truncated(self) -> None:
        """Show the `truncated` badge (idempotent)."""
        if not self.truncated:
            self.truncated = True
            self._refresh_title()

    def mark_interrupted(self) -> None:
        """The turn stopped before this tool returned."""
        if self.status == "running":
            self.status = "interrupted"
            self._result.update(Content("(interrupted before the tool returned)"))
            self._refresh_title()

    def _refresh_title(self) -> None:
        from co_tui.tui.format import format_chars

        icon = {"running": "⚙", "done": "⚙", "error": "✗", "interrupted": "⏹"}[self.status]
        parts: list[str | tuple[str, str]] = [(f"{icon} ", "$error" if self.status == "error" else "$secondary")]
        if self.tool_name == USER_SHELL_TOOL:  # the user's own `!command`: shown as typed at a shell prompt
            parts += [("$ ", "bold $text-muted"), (shell_inline(self.args), "bold")]
        else:
            parts += [(escape_controls(self.tool_name), "bold"), (f"({args_inline(self.args)})", "$text-muted")]
        if self.status == "running":
            parts.append(("  running…", "italic $text-muted"))
        elif self.status == "interrupted":
            parts.append(("  interrupted", "italic $text-warning"))
        elif self.result_chars is not None:
            parts.append((f" · {format_chars(self.result_chars)}", "$text-muted"))
            if self.recalled:
                parts.append((f" · recalled {self.recalled}", "$text-accent"))
            if self.outcome:
                parts.append((f" · {self.outcome}", "$text-warning"))
            if self.status == "error":
                parts.append((" · failed", "$text-error"))
        if self.previewed:  # the model got the head and tail; `truncated` would say less
            parts += ["  ", (" preview ", "$background on $warning 80%")]
        elif self.truncated:
            parts += ["  ", (" truncated ", "$background on $warning 80%")]
        self.title = Content.assemble(*parts)  # type: ignore[assignment]

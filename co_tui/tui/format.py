"""Small text formatters shared by TUI widgets (no Textual, no domain imports at module level)."""

from __future__ import annotations

from co_tui.text import format_tokens, plural

# Text longer than this (characters) is never laid out whole: a paste is held aside behind a one-line
# stand-in (widgets/prompt_input.py), a prompt is shown shortened in the log (widgets/user_message.py).
# Textual lays out and wraps every line a widget holds: a 5 MB paste froze the app for about a minute
# (docs/keys-and-commands.md).
TEXT_LAYOUT_MAX = 20_000


def format_bytes(n: int) -> str:
    """A text's size for the paste stand-in and the log: '812 bytes', '50 KB', '5.5 MB'."""
    if n < 1000:
        return plural(n, "byte")
    return f"{n / 1000:.0f} KB" if n < 1_000_000 else f"{n / 1_000_000:.1f} MB"


def normal_newlines(text: str) -> str:
    """`text` with CR LF and lone CR as LF: terminals paste line breaks as CR (tmux, xterm), which
    the prompt's text area takes as line breaks but a held paste kept as they came."""
    return text.replace("\r\n", "\n").replace("\r", "\n")


def format_chars(n: int) -> str:
    """A result size for tool blocks: '812 chars', '2.3k chars'."""
    return plural(n, "char", format_tokens(n))


def budget_percent(tokens: int, budget: int) -> int:
    """`tokens` as a whole percentage of `budget`, rounded to nearest (0 for no budget): the one
    rounding the meter and the history inspector share (they said 90% and 89% for one figure)."""
    return round(100 * tokens / budget) if budget > 0 else 0

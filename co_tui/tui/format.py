"""Small text formatters shared by TUI widgets (no Textual, no domain imports at module level)."""

from __future__ import annotations


def format_tokens(n: int) -> str:
    """12 → '12', 12_900 → '12.9k', 1_250_000 → '1.25M' (same wording as banners and exports)."""
    # Imported lazily: co_tui.session pulls in the governance package, which is not start-up weight.
    from co_tui.session.banner import format_tokens as _format

    return _format(n)


def plural(n: int, word: str, shown: str | None = None) -> str:
    """`n` and `word`, with an `s` unless `n` is 1: '1 turn', '3 turns'. `shown`: how `n` is written
    (default `f"{n:,}"`)."""
    return f"{f'{n:,}' if shown is None else shown} {word}{'' if n == 1 else 's'}"


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

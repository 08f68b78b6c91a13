"""The /compact dialog's text: its token figures are the whole request's (instructions and pinned
turns included), so they must not read as the size of what is summarised (a walk-through saw
"8 messages (2 turns, ~11.1k tokens) will be summarised" where those messages held 6.1k)."""

from __future__ import annotations

from co_tui.tui.screens.confirm_compact import compact_summary


def test_the_summarised_line_has_no_request_figure_and_the_size_line_names_the_request() -> None:
    first, size, *_ = compact_summary(8, 2, 11_100, 6_300, "providers").splitlines()
    assert first == "8 messages (2 turns) will be summarised into one recap by the model."
    assert "next request" in size and "~11.1k tokens now" in size and "at most ~6.3k" in size

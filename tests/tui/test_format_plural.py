"""`plural` (co_tui/text.py): the one way every layer counts things."""

from __future__ import annotations

import pytest

from co_tui.text import plural
from co_tui.tui.format import format_chars


@pytest.mark.parametrize(
    ("n", "word", "shown", "expected"),
    [
        (0, "turn", None, "0 turns"),
        (1, "turn", None, "1 turn"),
        (2, "message", None, "2 messages"),
        (12_345, "earlier item", None, "12,345 earlier items"),
        (1, "char", "1", "1 char"),
        (2300, "char", "2.3k", "2.3k chars"),
    ],
)
def test_plural(n: int, word: str, shown: str | None, expected: str) -> None:
    assert plural(n, word, shown) == expected


def test_plural_with_an_irregular_plural() -> None:
    assert plural(1, "directory", many="directories") == "1 directory"
    assert plural(3, "match", many="matches") == "3 matches"


def test_format_chars_counts_with_the_token_style() -> None:
    assert format_chars(1) == "1 char"
    assert format_chars(2300) == "2.3k chars"

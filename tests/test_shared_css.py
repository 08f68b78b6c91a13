"""The CSS parse the test apps share (support/shared_css.py, installed by tests/conftest.py): one
parse per CSS text and theme, the theme's variables kept apart, errors never cached."""

from __future__ import annotations

import inspect

import pytest
from support.shared_css import share_parsed_css
from textual.color import Color
from textual.css.stylesheet import Stylesheet, StylesheetParseError

CSS = "Static { background: $accent; }"


def rules(variables: dict[str, str], css: str = CSS) -> list:
    sheet = Stylesheet(variables=variables)
    sheet.add_source(css, read_from=("test_shared_css", "CSS"))
    return sheet.rules


def test_textuals_parse_still_has_the_arguments_the_shared_one_passes() -> None:
    share_parsed_css()  # idempotent: conftest installed it
    textuals = Stylesheet._parse_rules.textuals  # type: ignore[attr-defined]
    assert list(inspect.signature(textuals).parameters) == [
        "self",
        "css",
        "read_from",
        "is_default_rules",
        "tie_breaker",
        "scope",
    ]


def test_two_stylesheets_with_one_theme_share_the_parsed_rules() -> None:
    first, second = rules({"accent": "red"}), rules({"accent": "red"})
    assert first and all(a is b for a, b in zip(first, second, strict=True))


def test_a_theme_with_other_variables_gets_rules_of_its_own() -> None:
    red, blue = rules({"accent": "red"}), rules({"accent": "blue"})
    assert red[0] is not blue[0]
    assert red[0].styles.background == Color.parse("red")
    assert blue[0].styles.background == Color.parse("blue")


@pytest.mark.parametrize("attempt", [1, 2])
def test_css_that_does_not_parse_fails_every_time(attempt: int) -> None:
    with pytest.raises(StylesheetParseError):
        rules({}, "Static { background: notacolour; }")

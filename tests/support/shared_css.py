"""One parse of each piece of Textual CSS per test process, shared by every app the tests start.

Textual parses an app's stylesheet and every widget class's `DEFAULT_CSS` again for each `App`
instance (its parse cache belongs to the app's `Stylesheet`), ~25 ms of CPU a test app on this
host, a fifth of what starting one costs. The parsed rules are never changed after parsing
(Textual already reuses them across parses within an app), so they can be shared between apps
whose CSS variables (the theme) are the same: the variables are part of the key.
"""

from __future__ import annotations

from typing import Any

from textual.css.model import RuleSet
from textual.css.stylesheet import Stylesheet

_parsed: dict[tuple[Any, ...], list[RuleSet]] = {}


def share_parsed_css() -> None:
    """Make every `Stylesheet` in this process look up parsed CSS in one cache keyed by the CSS,
    where it was read from, its flags and the stylesheet's variables (idempotent)."""
    parse = Stylesheet._parse_rules
    if getattr(parse, "shared", False):
        return

    def shared_parse_rules(
        self: Stylesheet,
        css: str,
        read_from: Any,
        is_default_rules: bool = False,
        tie_breaker: int = 0,
        scope: str = "",
    ) -> list[RuleSet]:
        key = (css, read_from, is_default_rules, tie_breaker, scope, tuple(self._variables.items()))
        rules = _parsed.get(key)
        if rules is None:  # a parse error raises, and nothing is kept
            rules = _parsed[key] = parse(self, css, read_from, is_default_rules, tie_breaker, scope)
        return rules

    shared_parse_rules.shared = True  # type: ignore[attr-defined]
    shared_parse_rules.textuals = parse  # type: ignore[attr-defined]
    Stylesheet._parse_rules = shared_parse_rules  # type: ignore[method-assign]

"""The Markdown parser for answers and summaries: file names stay literal.

CommonMark reads `__init__.py` as a bold "init" and `test_a_b.py` can lose its underscores to
emphasis; answers are full of names and paths that come from tools. Here `_` is never an emphasis
marker (it is shown as typed); `*` and `**` still give emphasis, and code spans are untouched.
Textual builds a parser for every render (`Markdown(parser_factory=…)`), streamed or whole, so the
same rule holds for both.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from markdown_it import MarkdownIt
    from markdown_it.rules_inline import StateInline


def _star_emphasis(state: StateInline, silent: bool) -> bool:
    """markdown-it's emphasis rule for `*` only: a `_` falls through to plain text."""
    from markdown_it.rules_inline import emphasis

    if state.src[state.pos] == "_":
        return False
    return emphasis.tokenize(state, silent)


def literal_underscores_parser() -> MarkdownIt:
    """Textual's default parser ("gfm-like") with `_` emphasis turned off."""
    from markdown_it import MarkdownIt

    parser = MarkdownIt("gfm-like")
    parser.inline.ruler.at("emphasis", _star_emphasis)
    return parser

"""`compact_mode`: who decides when the context is cut (docs/context-governance.md, "Compact mode").

- `auto` (the default): the policy cuts before a request whenever a trigger fires.
- `off`: never an automatic cut. The meter shows the context over its budget and a one-line notice
  says so; a provider's context-length error still runs overflow recovery (announced as always),
  so no mode sends a context past the model's window without that path.

Pure: the capability asks `cuts_automatically`, front ends use `parse_mode` and the lines here.
"""

from __future__ import annotations

from typing import Literal

from co_tui.text import format_tokens

__all__ = ["CompactMode", "COMPACT_MODES", "parse_mode", "cuts_automatically", "over_budget_notice", "MODE_TEXT"]

CompactMode = Literal["auto", "off"]
COMPACT_MODES: tuple[CompactMode, ...] = ("auto", "off")

MODE_TEXT: dict[CompactMode, str] = {
    "auto": "cuts automatically when the context reaches its budget",
    "off": "never cuts automatically (/compact, /clear and overflow recovery still do)",
}


def parse_mode(text: str) -> CompactMode | None:
    """The mode `text` names (case and surrounding space ignored), or None."""
    value = text.strip().lower()
    return next((mode for mode in COMPACT_MODES if mode == value), None)


def cuts_automatically(mode: CompactMode) -> bool:
    """Whether the policy may cut before a request in `mode` (overflow recovery runs in every mode)."""
    return mode == "auto"


def over_budget_notice(tokens: int, budget_tokens: int) -> str:
    """The one line said when `compact_mode` is off and the context is past the token budget or the
    message limit (`tokens` of `budget_tokens` shown)."""
    return (
        f"context past its limits ({format_tokens(tokens)} of {format_tokens(budget_tokens)} tokens) and "
        "compact_mode is off: nothing is cut automatically — /compact, /clear or /compact-mode auto"
    )

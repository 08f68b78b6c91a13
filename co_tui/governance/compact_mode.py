"""`compact_mode`: who decides when the context is cut (docs/context-governance.md, "Compact mode").

- `auto` (the default): the policy cuts before a request whenever a trigger fires.
- `ask`: the front end asks before a send that would trigger a cut (the TUI's dialog; print mode
  runs it as `auto` with one line on stderr). The user's choice holds for the turn's first request;
  the turn's later requests (between tool calls) are not cut unless one would pass the model's
  known window (then it is cut, said in one line): the next send asks again.
- `off`: never an automatic cut. The meter shows the context over its budget and a one-line notice
  says so; a provider's context-length error still runs overflow recovery (announced as always),
  so no mode sends a context past the model's window without that path.

Pure: the capability asks `cut_permission`, the session `parse_mode`; the lines the user reads
about the mode are the session's (`session/wording.py`: `MODE_TEXT`, `over_budget_notice`, …).
"""

from __future__ import annotations

from typing import Literal

__all__ = [
    "COMPACT_MODES",
    "CompactMode",
    "CutPermission",
    "SendChoice",
    "cut_permission",
    "cuts_automatically",
    "parse_mode",
]

CompactMode = Literal["auto", "ask", "off"]
COMPACT_MODES: tuple[CompactMode, ...] = ("auto", "ask", "off")

# What the user chose for a send in `ask` (the TUI's dialog): cut as planned, or send over the budget once.
SendChoice = Literal["cut", "over_budget"]

# What the policy may do before one request: `cut` at its triggers; `to_window`: cut only a request
# that would pass the model's known window; `never` (overflow recovery still answers a provider's error).
CutPermission = Literal["cut", "to_window", "never"]


def parse_mode(text: str) -> CompactMode | None:
    """The mode `text` names (case and surrounding space ignored), or None."""
    value = text.strip().lower()
    return next((mode for mode in COMPACT_MODES if mode == value), None)


def cuts_automatically(mode: CompactMode) -> bool:
    """Whether the policy cuts before a request at its triggers without asking (only `auto`; `ask`
    cuts what the user allowed; overflow recovery runs in every mode)."""
    return mode == "auto"


def cut_permission(mode: CompactMode, *, first_request: bool, choice: SendChoice | None) -> CutPermission:
    """What the policy may do before a request of a turn: `first_request` is the turn's first (the
    send), `choice` what the user chose for it in `ask` (None: nothing was asked, no cut was planned)."""
    if mode == "auto":
        return "cut"
    if mode == "off":
        return "never"
    return "cut" if first_request and choice == "cut" else "to_window"

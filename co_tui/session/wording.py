"""The sentences the user sees about the context, worded here from governance's facts.

Governance (`co_tui/governance/`) returns facts — numbers, enums, events such as
`PinsOverBudgetEvent`, `CutPastWindowEvent`, `HookVetoEvent` — and the session words them for every
front end. What the MODEL reads stays governance's product: the markers, cut notes and stubs inside
the history, and a `history_trimmed` event's `note` (its data: banner, jsonl and ledger alike)
(docs/context-governance.md, "Who words what").

Imports nothing heavy: a front end may ask for a line before pydantic-ai loads.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from co_tui.text import format_tokens

if TYPE_CHECKING:
    from co_tui.governance.compact_mode import CompactMode

__all__ = [
    "MODE_TEXT",
    "busy_line",
    "kept_line",
    "over_budget_notice",
    "past_window_line",
    "pins_over_budget_line",
    "print_mode_ask_line",
    "veto_line",
]


def busy_line(doing: str) -> str:
    """The refusal of an operation asked while a turn runs (`doing`: "undoing a cut", "pinning")."""
    return f"wait for the running turn to finish (or press Esc) before {doing}"


# --- compact_mode (governance/compact_mode.py decides; these say it) ----------------------------

MODE_TEXT: dict[CompactMode, str] = {
    "auto": "cuts automatically when the context reaches its budget",
    "ask": "asks before a send that would cut (cut, /compact, pin or evict, or send over the budget once)",
    "off": "never cuts automatically (/compact, /clear and overflow recovery still do)",
}


def over_budget_notice(tokens: int, budget_tokens: int) -> str:
    """The one line said when `compact_mode` is off and the context is past the token budget or the
    message limit (`tokens` of `budget_tokens` shown)."""
    return (
        f"context past its limits ({format_tokens(tokens)} of {format_tokens(budget_tokens)} tokens) and "
        "compact_mode is off: nothing is cut automatically — /compact, /clear or /compact-mode auto"
    )


def past_window_line(tokens: int, window_tokens: int) -> str:
    """The one line when `ask` cuts without asking: a request inside a turn would pass the window
    (`CutPastWindowEvent`)."""
    return (
        f"compact_mode ask: this request (~{format_tokens(tokens)} tokens) would pass the model's "
        f"{format_tokens(window_tokens)} window — cutting without asking"
    )


def print_mode_ask_line() -> str:
    """Print mode's stderr line: it cannot ask, so `ask` runs as `auto`."""
    return "compact_mode ask: print mode cannot ask — cutting automatically (auto) for this run"


def veto_line(honoured: bool) -> str:
    """The one line for a `pre_compact` veto (`HookVetoEvent`): honoured, or not because the request
    would pass the model's window."""
    if not honoured:
        return "pre_compact hook's veto not honoured: the request would exceed the model's window; cutting"
    return "pre_compact hook vetoed the automatic cut: this request goes over the budget"


# --- pins and summaries ----------------------------------------------------------------------------


def pins_over_budget_line(pinned_tokens: int, budget_tokens: int) -> str:
    """The one line that says the pinned turns make the budget unreachable (`PinsOverBudgetEvent`),
    and what to do."""
    return (
        f"Pinned turns hold ~{format_tokens(pinned_tokens)} tokens: with the instructions and the newest turn that "
        f"is over the {format_tokens(budget_tokens)}-token budget, and no cut could get under it, so none is made. "
        "Unpin a turn (p in /history) or raise context_budget_tokens."
    )


def kept_line(kept: Sequence[str], lost: Sequence[str], *, shown: int = 8, prompts: tuple[int, int] = (0, 0)) -> str:
    """`kept 14 of 16 paths, 3 of 3 names, 5 of 7 prompts verbatim; lost: src/a.py, docs/b.md` (the
    banner's detail of a summary's check, `summary_check.check_summary`). `prompts`: (kept verbatim,
    total) user prompts; left out when there were none."""
    from co_tui.governance.summary_check import item_kind

    counts: list[str] = []
    for kind, noun in (("path", "paths"), ("name", "names"), ("number", "numbers")):
        total = sum(1 for item in [*kept, *lost] if item_kind(item) == kind)
        if total:
            counts.append(f"{sum(1 for item in kept if item_kind(item) == kind)} of {total} {noun}")
    if prompts[1]:
        counts.append(f"{prompts[0]} of {prompts[1]} prompts verbatim")
    line = "kept " + ", ".join(counts) if counts else "nothing to check"
    if lost:
        more = f", … {len(lost) - shown} more" if len(lost) > shown else ""
        line += "; lost: " + ", ".join(lost[:shown]) + more
    return line

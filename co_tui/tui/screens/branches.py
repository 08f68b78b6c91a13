"""The conversation tree (`/branches`): every branch of this session, as a tree — where each was
forked (the turn it was rewound to), its turns, its last prompt and its age; the branch in use is
marked ● (docs/keys-and-commands.md; docs/context-governance.md, "Rewind and branches").

Enter switches to the highlighted branch, which comes back exactly as it was left; Esc closes. The
session does the work (`SessionPort.switch_branch`); this screen only picks.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from co_tui.text import escape_controls, one_line, plural
from co_tui.tui.screens.sessions import format_age

if TYPE_CHECKING:
    from co_tui.session import BranchRow


def tree_order(rows: Sequence[BranchRow]) -> list[tuple[int, BranchRow]]:
    """(depth, row) in tree order: each branch after its parent, siblings oldest first."""
    children: dict[int | None, list[BranchRow]] = {}
    for row in rows:
        children.setdefault(row.info.parent, []).append(row)
    known = {row.info.id for row in rows}
    out: list[tuple[int, BranchRow]] = []

    def walk(parent: int | None, depth: int) -> None:
        for row in sorted(children.get(parent, []), key=lambda r: r.info.id):
            out.append((depth, row))
            walk(row.info.id, depth + 1)

    walk(None, 0)
    # A branch whose parent is missing (a damaged tree) is still listed, at the top level.
    for row in rows:
        if row.info.parent is not None and row.info.parent not in known:
            out.append((0, row))
            walk(row.info.id, 1)
    return out


def branch_line(depth: int, row: BranchRow, now: float) -> str:
    """One row: `● └ branch 2 · rewound to turn 3 of branch 0 · 4 turns · 2 min ago · "fix the parser"`
    (● the branch in use, ○ another)."""
    # A visible mark first: a list row's leading spaces are dropped when it is drawn.
    mark = "●" if row.active else "○"
    indent = "  " * max(0, depth - 1) + ("└ " if depth else "")
    info = row.info
    where = "the first" if info.parent is None else f"rewound to turn {info.fork_turn} of branch {info.parent}"
    turns = plural(row.turns, "turn") if row.turns >= 0 else "turns unknown"
    age = format_age(datetime.fromtimestamp(row.updated, UTC), datetime.fromtimestamp(now, UTC)) if row.updated else ""
    last = f'"{one_line(escape_controls(row.last_prompt), 48)}"' if row.last_prompt else "no prompt yet"
    parts = [f"{mark} {indent}branch {info.id}", where, turns, *([age] if age else []), last]
    return " · ".join(parts)


class BranchesScreen(ModalScreen[int | None]):
    """Dismisses with the id of the branch to switch to, or None (Esc, or the branch in use)."""

    CSS_PATH = ["dialog.tcss", "branches.tcss"]
    BINDINGS = [Binding("escape", "dismiss(None)", "Close", show=False)]

    def __init__(self, rows: Sequence[BranchRow], *, now: float | None = None) -> None:
        super().__init__(classes="dialog")
        self.ordered = tree_order(rows)
        self.now = time.time() if now is None else now

    def compose(self) -> ComposeResult:
        """What switching does, then the tree (plain text, no markup)."""
        with Vertical(id="dialog"):
            yield Static("Branches of this conversation", id="dialog-title")
            yield Static(
                Content(
                    "Every rewind keeps the turns after it as a branch. Enter switches to the highlighted "
                    "branch, its context exactly as it was left (files are not changed) · Esc closes. "
                    "● is the branch in use."
                ),
                id="dialog-body",
            )
            yield OptionList(
                *(
                    Option(Content(branch_line(depth, row, self.now)), id=str(row.info.id))
                    for depth, row in self.ordered
                ),
                id="branches-tree",
            )

    def on_mount(self) -> None:
        """The branch in use is highlighted and the list takes the keys."""
        options = self.query_one(OptionList)
        options.highlighted = next((i for i, (_d, row) in enumerate(self.ordered) if row.active), 0)
        options.focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        """Dismiss with the chosen branch (None for the one in use: nothing to switch)."""
        row = self.ordered[event.option_index][1]
        self.dismiss(None if row.active else row.info.id)

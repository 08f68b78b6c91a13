"""`co_tui.session`'s lazy exports: the one list a front end may import from (docs/architecture.md,
"Front ends see the public face only")."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import co_tui.session as session


def test_every_public_name_resolves_and_type_checkers_see_it_too() -> None:
    """Each export loads from the module it names; the `TYPE_CHECKING` block names the same set,
    so a type checker sees what runs."""
    for name in session.__all__:
        assert getattr(session, name) is not None, name
    tree = ast.parse(Path(session.__file__).read_text())
    typed = {
        alias.asname or alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.If) and getattr(node.test, "id", "") == "TYPE_CHECKING"
        for sub in node.body
        if isinstance(sub, ast.ImportFrom)
        for alias in sub.names
    }
    assert typed == set(session.__all__)


def test_a_re_exported_value_is_the_one_the_session_itself_uses() -> None:
    """Re-exports of the agent's and the policy's are their objects, not copies: a `Decision` a
    front end returns is the `Approvals`' own; the chart's `TurnBar` is what `HistoryRows` holds."""
    approvals = importlib.import_module("co_tui.session.approvals")
    history_rows = importlib.import_module("co_tui.session.history_rows")
    turn_states = importlib.import_module("co_tui.governance.turn_states")
    assert session.Decision is approvals.Decision and session.Grant is approvals.Grant
    assert session.TurnBar is turn_states.TurnBar is history_rows.TurnBar
    assert session.status_label("truncated") == "output truncated"

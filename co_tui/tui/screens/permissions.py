"""The `/permissions` screen: what "always allow" allowed in this session, one row a grant; `d`
revokes the highlighted one (the next such call asks again). The grants are the app's
(`Permissions`, `agent/permissions.py`); this only shows and removes them."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from co_tui.session import Permissions, escaped
from co_tui.tui.key_label import key_label

EMPTY = (
    "Nothing is always allowed: every shell command, file edit and MCP call that needs approval asks "
    "first. Answer a (Always) in an approval to allow the like of it for the rest of this session."
)


class PermissionsScreen(ModalScreen[None]):
    """Lists the session's grants; d or Delete revokes the highlighted one; Esc or q closes."""

    CSS_PATH = "permissions.tcss"
    BINDINGS = [
        Binding("d,delete", "revoke", "Revoke the highlighted grant: the next such call asks again"),
        Binding("escape,q", "close", "Close"),
    ]

    def __init__(self, permissions: Permissions) -> None:
        super().__init__()
        self.permissions = permissions

    def compose(self) -> ComposeResult:
        """Title, the grants (or why there are none), the keys."""
        with Vertical(id="permissions-dialog"):
            yield Static("co-tui · always allowed in this session", id="permissions-title")
            yield OptionList(id="permissions-list")
            yield Static(Content(EMPTY), id="permissions-empty")
            yield Static(
                f"{key_label('d')} revoke · {key_label('escape')} close · grants end with the session",
                id="permissions-hint",
            )

    def on_mount(self) -> None:
        """Fill the list and give it the keys."""
        self._fill()
        self.query_one(OptionList).focus()

    def _fill(self) -> None:
        options = self.query_one(OptionList)
        highlighted = options.highlighted
        options.clear_options()
        options.add_options(Option(Content(escaped(g.describe()))) for g in self.permissions.grants)
        empty = not self.permissions.grants
        options.display = not empty
        self.query_one("#permissions-empty").display = empty
        if not empty:
            options.highlighted = min(highlighted or 0, len(self.permissions.grants) - 1)

    def action_revoke(self) -> None:
        """Remove the highlighted grant."""
        index = self.query_one(OptionList).highlighted
        if index is None or not 0 <= index < len(self.permissions.grants):
            return
        self.permissions.revoke(self.permissions.grants[index])
        self._fill()

    def action_close(self) -> None:
        """Close the screen."""
        self.dismiss(None)

"""`QuietApp`: the app under test, with a prompt cursor that does not blink (stable snapshots).

One module every TUI test imports it from (`from quiet_app import QuietApp`): importing it from a
conftest module made `pytest tests/session tests/tui` fail, since both directories have a module
named `conftest` and only one of them can be `sys.modules["conftest"]`.
"""

from __future__ import annotations

from co_tui.tui.app import CoTuiApp


class QuietApp(CoTuiApp):
    """CoTuiApp for tests: the prompt's cursor does not blink (stable snapshots)."""

    def on_ready(self) -> None:
        self.chat.prompt.cursor_blink = False

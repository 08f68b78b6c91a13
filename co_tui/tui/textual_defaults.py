"""Where Textual's own defaults would speak for co-tui, said in co-tui's way (issue 43 item 11).

- Ctrl+C on a screen that does not bind it (the history inspector, /context, /mcp…): Textual says
  "Do you want to quit? Press ctrl+q". Everywhere else in co-tui Ctrl+C gives up what is pending,
  so here it closes the screen, as its Esc does (`close_on_ctrl_c`).
- The palette's "Screenshot" delivered the file through the terminal, which most cannot take
  ("Failed to save screenshot"): it saves to `<data dir>/screenshots/` and says where
  (`save_screenshot`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from textual.app import App, SystemCommand
from textual.screen import Screen

__all__ = ["SCREENSHOT_DIR", "close_on_ctrl_c", "save_screenshot", "system_commands"]

SCREENSHOT_DIR = "screenshots"


async def close_on_ctrl_c(app: App[Any]) -> bool:
    """Run the top screen's Esc action, if it binds Esc; True when it did."""
    screen = app.screen
    try:
        bindings = screen._bindings.get_bindings_for_key("escape")
    except Exception:  # textual.errors.NoBinding (not public): nothing to close with
        return False
    await app.run_action(bindings[0].action, screen)
    return True


def save_screenshot(app: App[Any], data_dir: Callable[[], Path]) -> None:
    """Save an SVG of the screen under the data dir's `screenshots/` and say where (or why not)."""
    try:
        folder = data_dir() / SCREENSHOT_DIR
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        saved = app.save_screenshot(path=str(folder))
    except Exception as exc:  # an unwritable data dir, a bad setting: one line
        app.notify(f"screenshot not saved: {exc}", severity="error")
        return
    app.notify(f"screenshot saved to {saved}", timeout=8)


def system_commands(
    commands: Iterable[SystemCommand], app: App[Any], screen: Screen[Any], data_dir: Callable[[], Path]
) -> Iterable[SystemCommand]:
    """Textual's palette commands (`commands`), its Screenshot replaced by one that saves to the
    data dir and says where."""
    for command in commands:
        if command.title == "Screenshot":
            yield SystemCommand(
                "Screenshot",
                f"Save an SVG of the screen in the data dir's {SCREENSHOT_DIR}/ folder",
                lambda: save_screenshot(app, data_dir),
            )
        else:
            yield command

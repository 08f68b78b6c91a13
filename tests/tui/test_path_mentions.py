"""`@path` in the real app: the popup completes workspace paths as they are typed (keys in the order a
fast typist sends them), the meter prices the attachment before sending, and the real session and
offline model attach the file when the prompt is sent."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from pilot_helpers import wait_idle, wait_ready, wait_until
from quiet_app import QuietApp

from co_tui.config import load_settings
from co_tui.tui.widgets.notice_line import NoticeLine
from co_tui.tui.widgets.path_popup import PathPopup


@pytest.fixture
def workspace_files() -> dict[str, str | bytes]:
    return {
        "README.md": "# Demo\n\nThis demo parses tokens with a fast lexer.\n",
        "src/parser.py": "def parse(text):\n    return text.split()\n",
        "src/lexer.py": "def lex(text):\n    return list(text)\n",
    }


def popup(app: Any) -> PathPopup:
    return app.chat.query_one(PathPopup)


async def test_complete_then_attach_on_send(workspace: Path) -> None:
    app = QuietApp(load_settings(), workspace)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_ready(pilot)
        await pilot.press(*"explain @")
        await wait_until(pilot, lambda: popup(app).is_open, what="the path popup")
        assert popup(app).matches == ["src/", "README.md"]
        await pilot.press(*"sr", "tab")  # into the folder: its entries follow
        assert app.chat.prompt.text == "explain @src/"
        await wait_until(pilot, lambda: popup(app).matches == ["src/lexer.py", "src/parser.py"], what="src's entries")
        await pilot.press("down", "enter")
        assert app.chat.prompt.text == "explain @src/parser.py "
        assert not popup(app).is_open
        await wait_until(pilot, lambda: app.chat.meter.attaching > 0, what="the meter prices the attachment")
        assert "tokens attached on send" in str(app.chat.meter.render())

        await pilot.press("enter")
        await wait_idle(pilot)
        assert app.chat.meter.attaching == 0, "sent: nothing pending"
        notices = [str(w.render()) for w in app.chat.query(NoticeLine)]
        assert any(n.startswith("attached src/parser.py (file) · ~") for n in notices), notices
        prompt = app.session.transcript[0].parts[-1].content
        assert prompt.startswith('explain @src/parser.py\n\n<attached path="src/parser.py">\nsrc/parser.py: lines 1-2')
        answer = app.session.transcript[-1].parts[0].content
        assert answer.startswith("From what you attached:"), answer
        assert app.session.title == "explain @src/parser.py"


async def test_a_bare_name_is_found_below_and_escape_closes(workspace: Path) -> None:
    app = QuietApp(load_settings(), workspace)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_ready(pilot)
        await pilot.press(*"@lex")
        await wait_until(pilot, lambda: popup(app).is_open, what="the path popup")
        assert popup(app).matches == ["src/lexer.py"]
        await pilot.press("escape")
        assert not popup(app).is_open and app.chat.prompt.text == "@lex"
        await pilot.press(*"er")  # the text changed: it opens again
        await wait_until(pilot, lambda: popup(app).is_open, what="the popup again")
        await pilot.press("tab")
        assert app.chat.prompt.text == "@src/lexer.py "


async def test_nothing_outside_is_offered_or_attached(workspace: Path, tmp_path: Path) -> None:
    (tmp_path / "secret.txt").write_text("TOP SECRET\n")
    (workspace / "link.txt").symlink_to(tmp_path / "secret.txt")
    app = QuietApp(load_settings(), workspace)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_ready(pilot)
        await pilot.press(*"@../")
        await pilot.pause()
        assert not popup(app).is_open
        await pilot.press(*"secret.txt @link.txt", "enter")
        await wait_idle(pilot)
        notices = [str(w.render()) for w in app.chat.query(NoticeLine)]
        assert any(n.startswith("@../secret.txt not attached: refused:") for n in notices), notices
        assert any(n.startswith("@link.txt not attached: refused:") for n in notices), notices
        assert "TOP SECRET" not in app.session.transcript[0].parts[-1].content


async def test_enter_after_a_path_typed_in_full_sends(workspace: Path) -> None:
    """`explain @README.md` + Enter: the popup offers what was typed already; Enter sends the prompt."""
    app = QuietApp(load_settings(), workspace)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_ready(pilot)
        await pilot.press(*"explain @README.md", "enter")
        await wait_idle(pilot)
        assert app.chat.prompt.text == "" and app.session.title == "explain @README.md"
        assert app.session.transcript[0].parts[-1].content.count('<attached path="README.md">') == 1

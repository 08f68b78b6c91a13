"""Large project instructions against a small budget (issue 32, item 1), on the real session
(offline model, SQLite store): the meter and /context agree before the first message and after,
the user is warned once that requests will go over the budget, a figure over 100% with no cut
coming says why, and `trims on next send` is never said of a send that makes no cut."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from pilot_helpers import send_prompt, wait_idle, wait_ready, wait_until
from quiet_app import QuietApp

from co_tui.config import load_settings
from co_tui.governance.events import HistoryTrimmed
from co_tui.tui.widgets.context_meter import ahead_text
from co_tui.tui.widgets.context_rows import row_lines

SIZE = (100, 30)


@pytest.fixture
def workspace() -> Iterator[Path]:
    """A workspace whose path has the same length under xdist or not: its path is in co-tui's
    instructions, so the meter's figure in these snapshots would move with `popen-gw0/`."""
    root = Path(tempfile.mkdtemp(prefix="tight-", dir=tempfile.gettempdir()))
    (root / "workspace").mkdir()
    yield root / "workspace"
    shutil.rmtree(root, ignore_errors=True)


def _instructions(workspace: Path) -> None:
    words = "the project uses python textual and sqlite with strict rules about tests docs commits".split()
    line_words = [words[(i * 7) % len(words)] for i in range(12)]
    text = "".join(" ".join(line_words[i % 12 :] + line_words[: i % 12]) + ".\n" for i in range(400))
    (workspace / "AGENTS.md").write_text(text[:30_000])
    (workspace / "notes.md").write_text("".join(f"note {n}: a line of the workspace notes\n" for n in range(300)))


def _warnings(app) -> list[str]:
    return [str(block.render()) for block in app.chat.log_view.query("ErrorBlock.-oversized")]


async def test_a_large_agents_md_is_counted_warned_and_never_promises_a_missing_cut(workspace, monkeypatch) -> None:
    _instructions(workspace)
    monkeypatch.setenv("CO_TUI_CONTEXT_BUDGET_TOKENS", "10000")
    app = QuietApp(load_settings(), workspace)
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(pilot)
        await wait_idle(pilot)
        session = app.session
        reading = session.meter_reading()
        assert reading.overhead_excess > 0, "the instructions take more than half of the budget"
        # Before the first message: the meter shows what /context counts.
        assert reading.context_tokens == session.context_breakdown().total_tokens > 5000
        await wait_until(pilot, lambda: app.chat.meter.reading is not None, what="the meter")
        assert app.chat.meter.reading.context_tokens == reading.context_tokens
        # Warned once, with the figures and what to do.
        warnings = _warnings(app)
        assert len(warnings) == 1 and "AGENTS.md" in warnings[0] and "context_budget_tokens" in warnings[0]
        promised_and_kept = over_explained = 0
        for prompt in ("read notes.md", "hello", "read README.md", "read notes.md", "thanks", "read notes.md"):
            before = session.meter_reading()
            banners = len(app.chat.log_view.query("TrimBanner"))
            await send_prompt(pilot, prompt)
            if before.trim_pending:
                assert len(app.chat.log_view.query("TrimBanner")) > banners, f"promised a cut before {prompt!r}"
                promised_and_kept += 1
            after = session.meter_reading()
            breakdown = session.context_breakdown()
            assert after.context_tokens == breakdown.total_tokens, "the meter and /context agree"
            over_note = "".join(str(line) for line in row_lines(breakdown, 100) if "Over the trigger" in str(line))
            assert ("trims on next send" in over_note) == after.trim_pending
            if after.context_tokens > after.budget_tokens and not after.trim_pending:
                assert ahead_text(after).startswith("over: instructions"), ahead_text(after)
                over_explained += 1
        print(f"promised_and_kept={promised_and_kept} over_explained={over_explained} ledger={len(session.ledger)}")
        assert over_explained, "the walk went over the budget with no cut coming"
        assert any(isinstance(event, HistoryTrimmed) for event in session.ledger), "and cut when it had to"
        assert _warnings(app) == warnings, "said once"


def test_tight_budget_snapshot(snap_compare, workspace, monkeypatch) -> None:
    """The warning under the instructions line, and the meter over 100% saying why no cut comes."""
    _instructions(workspace)
    monkeypatch.setenv("CO_TUI_CONTEXT_BUDGET_TOKENS", "10000")

    async def run(pilot) -> None:
        await wait_ready(pilot)
        session = pilot.app.session
        for prompt in ("read notes.md", "hello", "read README.md", "read notes.md", "thanks", "read notes.md"):
            await send_prompt(pilot, prompt)
            reading = session.meter_reading()
            if reading.context_tokens > reading.budget_tokens:
                break
        assert reading.context_tokens > reading.budget_tokens and not reading.trim_pending

    assert snap_compare(QuietApp(load_settings(), workspace), terminal_size=(110, 30), run_before=run)


def test_tight_budget_warning_snapshot(snap_compare, workspace, monkeypatch) -> None:
    """Before the first message: the meter counts the instructions, and the warning says what comes."""
    _instructions(workspace)
    monkeypatch.setenv("CO_TUI_CONTEXT_BUDGET_TOKENS", "10000")

    async def run(pilot) -> None:
        await wait_ready(pilot)
        await wait_idle(pilot)
        await wait_until(pilot, lambda: pilot.app.chat.log_view.query("ErrorBlock.-oversized"), what="the warning")

    assert snap_compare(QuietApp(load_settings(), workspace), terminal_size=(100, 30), run_before=run)

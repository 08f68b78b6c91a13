"""Esc while `/compact` waits on a `pre_compact` hook that never ends: the compaction stops, the
session stays usable (the next prompt runs, nothing says "a turn is already running") and the
hook's whole process group is killed (issue 40, item 2)."""

from __future__ import annotations

import os
from pathlib import Path

from pilot_helpers import dialog_armed, send_prompt, wait_idle, wait_ready, wait_until
from quiet_app import QuietApp
from support.processes import alive

from co_tui.config import load_settings
from co_tui.tui.widgets.error_block import ErrorBlock
from co_tui.tui.widgets.notice_line import NoticeLine


async def test_esc_during_a_pre_compact_hook_leaves_the_session_usable(workspace: Path, tmp_path: Path) -> None:
    pids = tmp_path / "pids"
    # The shell and its `sleep` child: both must go (the kill is for the process group).
    hook = ["sh", "-c", f'sleep 300 & echo "$$ $!" > {pids}; wait']
    app = QuietApp(load_settings(hooks={"pre_compact": hook, "timeout_s": 60}), workspace)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_ready(pilot)
        await send_prompt(pilot, "hello")
        await pilot.press("ctrl+k")
        await dialog_armed(pilot, "ConfirmCompact")
        await pilot.press("enter")
        await wait_until(pilot, lambda: pids.exists() and len(pids.read_text().split()) == 2, what="the hook running")
        running = [int(p) for p in pids.read_text().split()]
        assert all(alive(pid) for pid in running)
        await pilot.press("escape")
        await wait_idle(pilot)
        await wait_until(pilot, lambda: not any(alive(pid) for pid in running), what="the hook's processes gone")
        notices = [n.text for n in app.chat.query(NoticeLine)]
        assert "compaction cancelled — the conversation is unchanged" in notices
        assert not app.session.ledger and not app.session.busy
        await send_prompt(pilot, "hello again")
        errors = [e.message for e in app.chat.query(ErrorBlock)]
        assert not errors, errors
        assert len(app.session.transcript) == 4  # both turns ran

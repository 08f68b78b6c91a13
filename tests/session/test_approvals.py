"""Approvals the session owns (session/approvals.py): a typed request with the call's id and who
asks, the front end's decision, and the grants "always" gives — through a real session's tools."""

from __future__ import annotations

from pathlib import Path

from support.approvals import Asker
from support.turns import run_turn

from co_tui.config import load_settings
from co_tui.session.approvals import ApprovalRequest, Approvals, Decision
from co_tui.session.chat import ChatSession


async def test_always_grants_the_prefix_so_the_next_command_runs_without_asking(tmp_path: Path) -> None:
    ask = Asker("always")
    session = ChatSession(load_settings(allow_shell=True), workspace=tmp_path, ask=ask)
    granted: list = []
    assert session.approvals is not None
    session.approvals.on_granted = granted.append
    await run_turn(session, "run ls -a")
    [request] = ask.asked
    call_ids = [p.tool_call_id for m in session.transcript for p in m.parts if p.part_kind == "tool-call"]
    assert request.tool_call_id == call_ids[0] and request.agent == "main" and request.tool == "run_shell"
    assert request.text == "ls -a" and request.grant.describe().startswith("run_shell: `ls …`")
    await run_turn(session, "run ls -l")
    assert len(ask.asked) == 1 and [g.value for g in granted] == ["ls"], "the grant covered it"
    assert session.approvals.permissions.grants == [request.grant]


async def test_deny_and_once_keep_no_grant_and_an_edit_request_carries_its_diff(tmp_path: Path) -> None:
    ask = Asker("deny", "once")
    approvals = Approvals(ask)
    assert not await approvals.approve("rm -rf build", tool="run_shell", tool_call_id="c1")
    assert await approvals.approve("--- a/x\n+++ b/x\n", tool="edit_file", path="x", tool_call_id="c2")
    assert [r.tool_call_id for r in ask.asked] == ["c1", "c2"] and not approvals.permissions.grants
    assert ask.asked[1].is_edit and ask.asked[1].grant.describe() == "file edits (write_file, edit_file)"

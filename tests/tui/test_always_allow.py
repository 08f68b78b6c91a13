"""Always allow, file edits and `/permissions` in the real app: the real session and store, the
offline model asking for the calls in plain words, the approval dialog answered with keys."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pilot_helpers import dialog_armed, paste, wait_idle, wait_ready, wait_until
from quiet_app import QuietApp
from textual.widgets import OptionList

from co_tui.config import load_settings
from co_tui.tui.screens.approval import ApprovalDialog
from co_tui.tui.screens.permissions import PermissionsScreen
from co_tui.tui.widgets.call_box import CallBox


def tool_results(app: Any) -> list[str]:
    return [
        str(p.content) for m in app.session.transcript for p in m.parts if getattr(p, "part_kind", "") == "tool-return"
    ]


async def ask(pilot: Any, prompt: str) -> ApprovalDialog:
    """Send `prompt`; wait for the approval dialog it leads to."""
    await paste(pilot, prompt)
    await pilot.press("enter")
    await dialog_armed(pilot, "ApprovalDialog")
    await pilot.pause()
    return pilot.app.screen


async def send_unasked(pilot: Any, prompt: str) -> None:
    """Send `prompt`; its turn finishes with no dialog opened on the way."""
    before = len(tool_results(pilot.app))
    await paste(pilot, prompt)
    await pilot.press("enter")
    await wait_until(
        pilot,
        lambda: len(tool_results(pilot.app)) > before or isinstance(pilot.app.screen, ApprovalDialog),
        what="the turn's tool result",
    )
    await wait_idle(pilot)
    assert not isinstance(pilot.app.screen, ApprovalDialog)


async def test_always_allow_a_command_prefix_then_revoke_it_in_permissions(workspace: Path) -> None:
    app = QuietApp(load_settings(allow_shell=True), workspace)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_ready(pilot)
        dialog = await ask(pilot, "run echo hi")
        scope = str(dialog.query_one("#approval-scope").render())
        assert scope.startswith("a: allow run_shell: `echo …` (plain commands")
        await pilot.press("a")
        await wait_idle(pilot)
        assert any(r.startswith("$ echo hi") for r in tool_results(app))

        await send_unasked(pilot, "run echo there")  # the same prefix: not asked again
        assert any(r.startswith("$ echo there") for r in tool_results(app))
        assert str(app.chat.query_one("#hint").render()).startswith("ran without asking: run_shell: `echo …`")

        dialog = await ask(pilot, "run echo hi > out.txt")  # not plain: asked, and "always" is that exact command
        assert str(dialog.query_one("#approval-scope").render()) == "a: allow this exact command again for this session"
        await pilot.press("n")
        await wait_idle(pilot)
        assert not (workspace / "out.txt").exists()

        await pilot.press(*"/permissions", "enter")
        await wait_until(pilot, lambda: isinstance(app.screen, PermissionsScreen), what="/permissions")
        options = app.screen.query_one(OptionList)
        assert [str(options.get_option_at_index(i).prompt) for i in range(options.option_count)] == [
            "run_shell: `echo …` (plain commands: no quotes, $, ;, |, &, >, wildcards)"
        ]
        await pilot.press("d")
        await wait_until(pilot, lambda: not app.approvals.permissions.grants, what="revoked")
        assert app.screen.query_one("#permissions-empty").display
        await pilot.press("escape")
        await wait_until(pilot, lambda: not isinstance(app.screen, PermissionsScreen), what="closed")

        await ask(pilot, "run echo again")  # revoked: asked again
        await pilot.press("n")
        await wait_idle(pilot)


async def test_file_edits_show_a_diff_and_allow_edits_covers_the_rest_of_the_session(workspace: Path) -> None:
    app = QuietApp(load_settings(), workspace)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_ready(pilot)
        dialog = await ask(pilot, "write hello to notes.txt")
        assert str(dialog.query_one("#dialog-title").render()) == "Write this file?"
        assert (
            str(dialog.query_one("#approval-summary").render()) == "write_file · notes.txt · a new file · +1 −0 lines"
        )
        assert dialog.query_one(CallBox).text.splitlines() == [
            "--- /dev/null",
            "+++ b/notes.txt",
            "@@ -0,0 +1 @@",
            "+hello",
        ]
        assert str(dialog.query_one("#always").label) == "Allow edits (a)"
        await pilot.press("a")
        await wait_idle(pilot)
        assert (workspace / "notes.txt").read_text() == "hello\n"

        await send_unasked(pilot, "replace hello with bye in notes.txt")
        assert (workspace / "notes.txt").read_text() == "bye\n"
        assert app.session.binding.file_edits.sink.store.file_checkpoints(app.session.id)[1][1].before == b"hello\n"


async def test_a_declined_edit_leaves_the_file(workspace: Path) -> None:
    app = QuietApp(load_settings(), workspace)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_ready(pilot)
        await ask(pilot, "write hello to notes.txt")
        await pilot.press("enter")  # Deny has the focus
        await wait_idle(pilot)
        assert not (workspace / "notes.txt").exists()
        assert any("declined the change to notes.txt" in r for r in tool_results(app))


async def test_opening_another_session_starts_with_no_grants(workspace: Path) -> None:
    """ "Always allow" holds for one session: switching (what /sessions does) drops every grant."""
    from tui_fakes import FakeSession

    from co_tui.agent.permissions import offer
    from co_tui.config import Settings

    def factory(settings: Settings, workspace: Path, **kwargs: Any) -> FakeSession:
        return FakeSession(settings, id=kwargs.get("resume_id") or "a" * 32, ask=kwargs.get("ask"))

    app = QuietApp(Settings(), workspace, session_factory=factory)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_ready(pilot)
        first = app.session
        app.approvals.permissions.grant(offer("edit_file", ""))
        assert app.approvals.permissions.allowing("write_file", "") is not None
        app.opening.switch("b" * 32)
        await wait_until(pilot, lambda: app.session is not first, what="switched")
        assert app.approvals.permissions.grants == []

"""Snapshots of a subagent's block in the chat (running, done, failed) and of its transcript opened
while it runs. The block's clock is fixed (elapsed `0s` while running; a finished child's own figure
after), the child scripted by the FakeSession's `Delegate` step."""

from __future__ import annotations

import pytest
from pilot_helpers import send_prompt, wait_idle, wait_ready, wait_until
from tui_fakes import Delegate, Fail, Text, Tool, Trim, Until

from co_tui.governance.events import HistoryTrimmed
from co_tui.tui.widgets import subagent_block

SIZE = (100, 30)
TASK = "Find which file in docs mentions governance, and quote the line"
CHILD_TRIM = HistoryTrimmed(
    reason="token_budget",
    strategy="tool_output_trim",
    dropped_messages=0,
    kept_turns=1,
    tokens_before=38_000,
    tokens_after=21_000,
    budget_tokens=40_000,
)


@pytest.fixture(autouse=True)
def fixed_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(subagent_block, "CLOCK", lambda: 1000.0)


def child(gate: list[bool]):
    # The scenario: with the gate shut, a read that is still running when the snapshot is taken;
    # open from the start (a finished child), a read that returns at once (it waited out its 30 s).
    return [
        Tool("list_dir", '{"path": "docs"}', "architecture.md\ncontext-governance.md\n"),
        Trim(CHILD_TRIM),
        Tool(
            "read_file",
            '{"path": "docs/context-governance.md"}',
            "Honest context governance.\n" * 30,
            hold=0 if gate[0] else 30,
        ),
        Until(lambda: gate[0]),
        Text("`docs/context-governance.md` mentions it on line 1: *Honest context governance.*"),
    ]


def script(gate: list[bool]):
    return lambda prompt: [
        Text("I'll ask a subagent to look."),
        Delegate(TASK, child(gate)),
        Text("The subagent found it in **docs/context-governance.md**."),
    ]


async def running(pilot) -> None:
    await wait_ready(pilot)
    await pilot.press(*"explore docs", "enter")
    await wait_until(pilot, lambda: pilot.app.chat.query("SubagentBlock"), what="the block")
    block = pilot.app.chat.query_one("SubagentBlock")
    await wait_until(pilot, lambda: block.view.tool and block.view.tool[0] == "read_file", what="read_file running")
    # The activity line follows the same event a callback later (its label is set, then drawn);
    # the parent's first words reach the Markdown at the stream's own pace (widgets/assistant_message.py).
    await wait_until(pilot, lambda: pilot.app.chat.activity.label == "explore-1: running read_file…", what="the label")
    await wait_until(
        pilot,
        lambda: any("subagent to look" in str(p.render()) for p in pilot.app.chat.query("MarkdownParagraph")),
        what="the parent's words drawn",
    )
    await pilot.pause()


def test_subagent_running(snap_compare, make_app):
    assert snap_compare(make_app(script=script([False])), terminal_size=SIZE, run_before=running)


def test_subagent_done(snap_compare, make_app):
    assert snap_compare(
        make_app(script=script([True]), delay=0.0), terminal_size=SIZE, run_before=lambda p: _send(p, "explore docs")
    )


def test_subagent_failed(snap_compare, make_app):
    def failing(prompt: str):
        return [
            Delegate(TASK, [Tool("list_dir", '{"path": "docs"}', "a.md"), Fail("HTTP 500 from the provider")]),
            Text("The subagent failed; I'll read the docs myself."),
        ]

    assert snap_compare(make_app(script=failing), terminal_size=SIZE, run_before=lambda p: _send(p, "explore docs"))


def test_subagent_opened_while_running(snap_compare, make_app):
    async def run(pilot) -> None:
        await running(pilot)
        pilot.app.chat.query_one("SubagentBlock").focus()
        await pilot.press("enter")
        await wait_until(pilot, lambda: type(pilot.app.screen).__name__ == "SubagentScreen", what="its screen")
        block = pilot.app.screen.block
        await wait_until(pilot, lambda: pilot.app.screen.shown == len(block.events), what="its events drawn")
        await pilot.pause()

    assert snap_compare(make_app(script=script([False])), terminal_size=SIZE, run_before=run)


async def _send(pilot, prompt: str) -> None:
    await wait_ready(pilot)
    await send_prompt(pilot, prompt)
    await wait_idle(pilot)

"""The activity line says what the turn is doing: thinking, writing the answer, running a tool."""

from __future__ import annotations

from pilot_helpers import wait_until
from tui_fakes import Hold, Text, Tool

from co_tui.tui.widgets.activity_indicator import ActivityIndicator


async def test_the_label_follows_the_turn(make_app) -> None:
    """ "thinking…" while waiting, "running <tool>…" while a tool runs, "writing…" once the answer's
    text streams (it said "thinking…" with the answer on screen), "interrupting…" after esc."""

    def script(prompt: str):
        return [Tool("read_file", '{"path": "README.md"}', "# Demo"), Text("The answer is here.", chunks=2), Hold()]

    app = make_app(script=script)
    labels: list[str | None] = []
    shown = app.busy_changed

    def record(label: str | None) -> None:
        labels.append(label)
        shown(label)

    app.busy_changed = record  # type: ignore[method-assign]
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_until(pilot, lambda: getattr(app, "session", None) is not None, what="session ready")
        labels.clear()
        await pilot.press(*"go", "enter")
        await wait_until(
            pilot,
            lambda: "The answer is here." in "".join(m.text for m in app.chat.query("AssistantMessage")),
            what="the answer streamed",
        )
        indicator = app.chat.query_one(ActivityIndicator)
        assert indicator.label == "writing…"
        assert "writing…" in str(indicator.render())
        await pilot.press("escape")
        await wait_until(pilot, lambda: not app.busy, what="the turn to end")
    assert labels == ["thinking…", "running read_file…", "thinking…", "writing…", "interrupting…", None]


def test_a_bang_command_label_is_one_escaped_line() -> None:
    from co_tui.tui.activity_label import shell_activity

    assert shell_activity("ls\n-la") == "running !ls -la…"
    assert shell_activity("printf '\x1b]0;pwned\x07'") == "running !printf '\\x1b]0;pwned\\x07'…"
    assert shell_activity("x" * 100) == f"running !{'x' * 40}…"


def test_a_working_child_is_named_with_what_it_does() -> None:
    """While a subagent works the line says which and what it does, not the parent's `delegate`."""
    from co_tui.session import SubagentFinished, SubagentStarted, ToolCall, ToolResult
    from co_tui.tui.activity_label import INTERRUPTING, next_activity_label

    started = SubagentStarted(
        delegation="d1",
        agent="explore-1",
        agent_name="explore",
        task="t",
        budget_tokens=1,
        max_requests=1,
        timeout_s=1,
        tools=(),
    )
    call = ToolCall(tool_name="read_file", tool_call_id="c1", args="{}", agent="explore-1", delegation="d1")
    result = ToolResult(
        tool_name="read_file", tool_call_id="c1", content="x", chars=1, agent="explore-1", delegation="d1"
    )
    finished = SubagentFinished(delegation="d1", agent="explore-1", agent_name="explore", outcome="done")
    label = "running delegate…"
    seen = []
    for event in (started, call, result, finished):
        label = next_activity_label(label, event)
        seen.append(label)
    assert seen == [
        "explore-1: thinking…",
        "explore-1: running read_file…",
        "explore-1: thinking…",
        "running delegate…",
    ]
    assert next_activity_label(INTERRUPTING, call) == INTERRUPTING

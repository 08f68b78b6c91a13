"""The facts the front ends display, filled by the session: a tool row's (`session/tool_facts.py`),
read off real outputs — the shell's status line, a recall's header, a preview's mark — on the live
`ToolResult`, on a resumed conversation's items and in print mode's jsonl; and the inspector's turn
bars (`HistoryRows.turn_bars`)."""

from __future__ import annotations

from pathlib import Path

from pydantic_ai.messages import FunctionToolResultEvent, ModelRequest, ModelResponse, ToolCallPart, ToolReturnPart

from co_tui.agent.permissions import SHELL_TOOL
from co_tui.agent.shell import run_command
from co_tui.governance.handles import RECALL_TOOL, stamp_handles
from co_tui.governance.preview import shown_preview
from co_tui.governance.recall import recall_output, recall_turns
from co_tui.session import USER_SHELL_TOOL, transcript_items
from co_tui.session.events import ToolResult
from co_tui.session.stream_map import map_stream_event
from co_tui.session.tool_facts import _RECALL_TOOL, ToolFacts, tool_facts, tool_result


def _transcript() -> list:
    return stamp_handles(
        [ModelRequest(parts=[ToolReturnPart("read_file", "README.md: lines 1-2 of 2\nzephyr\n", tool_call_id="a")])], 0
    )


def test_the_recall_tool_is_named_as_governance_names_it() -> None:
    assert _RECALL_TOOL == RECALL_TOOL


async def test_a_shell_command_s_outcome_is_read_off_its_status_line(workspace: Path) -> None:
    failed = await run_command("echo some; exit 3", workspace)
    killed = await run_command("kill -9 $$", workspace)
    timed_out = await run_command("sleep 30", workspace, timeout_s=0.2)
    ok = await run_command("echo fine", workspace)
    for tool in (SHELL_TOOL, USER_SHELL_TOOL):
        assert tool_facts(tool, failed, len(failed)).outcome == "exit 3"
        assert tool_facts(tool, killed, len(killed)).outcome == "killed (signal 9)"
        assert tool_facts(tool, timed_out, len(timed_out)).outcome == "timed out"
        assert tool_facts(tool, ok, len(ok)) == ToolFacts()
    # Another tool's output that ends with the same line, or a failed call's message: no outcome.
    assert tool_facts("read_file", failed, len(failed)).outcome is None
    assert tool_facts(SHELL_TOOL, failed, len(failed), is_error=True).outcome is None


async def test_a_big_output_is_previewed_and_keeps_its_outcome(workspace: Path) -> None:
    whole = await run_command("seq 1 100000; exit 2", workspace)
    shown = shown_preview(whole, 50_000)
    facts = tool_facts(SHELL_TOOL, shown, len(whole))
    assert facts == ToolFacts(outcome="exit 2", previewed=True)
    # Whole (the transcript's copy), or cut without the mark: no preview.
    assert not tool_facts(SHELL_TOOL, whole, len(whole)).previewed
    assert not tool_facts(SHELL_TOOL, whole[:100], len(whole)).previewed


def test_a_recall_says_what_came_back() -> None:
    transcript = _transcript()
    output = recall_output(transcript, "r0").text
    turns = recall_turns(transcript, "1").text
    assert tool_facts("recall", output, len(output)).recalled == "the output of read_file() from turn 1"
    assert (tool_facts("recall", turns, len(turns)).recalled or "").startswith("turn")
    assert tool_facts("recall", "no tool output 'r9' in this session", 36, is_error=True).recalled is None
    assert tool_facts("read_file", output, len(output)).recalled is None


def test_the_live_stream_s_result_carries_the_facts() -> None:
    transcript = _transcript()
    output = recall_output(transcript, "r0").text
    part = ToolReturnPart("recall", output, tool_call_id="c1")
    (event,) = map_stream_event(FunctionToolResultEvent(part))
    assert isinstance(event, ToolResult) and event.recalled == "the output of read_file() from turn 1"

    big = "y\n" * 40_000
    (event,) = map_stream_event(FunctionToolResultEvent(ToolReturnPart(SHELL_TOOL, big, "c2")), preview_chars=50_000)
    assert event.previewed and event.chars == len(big) > len(event.content)


def test_a_resumed_item_s_result_carries_the_facts_as_the_live_one_did() -> None:
    status = "$ make\nboom\n[exit code 2]"
    messages = [
        ModelResponse(
            parts=[ToolCallPart(SHELL_TOOL, '{"command": "make"}', "c1"), ToolCallPart("read_file", "{}", "c2")]
        ),
        ModelRequest(parts=[ToolReturnPart(SHELL_TOOL, status, "c1")]),
    ]
    shell, unanswered = transcript_items(messages)
    assert shell.tool_result() == tool_result(
        tool_name=SHELL_TOOL, tool_call_id="c1", content=status, chars=len(status)
    )
    assert shell.tool_result().outcome == "exit 2"  # type: ignore[union-attr]
    assert unanswered.tool_result() is None  # a call that never returned has no result


def test_jsonl_carries_a_fact_only_when_there_is_one() -> None:
    plain = tool_result(tool_name="read_file", tool_call_id="c1", content="x", chars=1).to_dict()
    assert plain == {
        "type": "tool_result",
        "tool_name": "read_file",
        "tool_call_id": "c1",
        "content": "x",
        "chars": 1,
        "is_error": False,
    }
    failed = tool_result(tool_name=SHELL_TOOL, tool_call_id="c2", content="$ false\n[exit code 1]", chars=22)
    assert failed.to_dict()["outcome"] == "exit 1" and "recalled" not in failed.to_dict()


def test_the_inspector_s_turn_bars_are_read_with_its_rows() -> None:
    """`HistoryRows.turn_bars`, read off the UI loop with the rows: a cut by the real rule leaves
    the oldest turns dropped and the newest in the context, one bar a user turn."""
    from dataclasses import dataclass, field

    from support.builders import module_turn

    from co_tui.governance import trim_to_recent_turns
    from co_tui.session import read_history_rows

    transcript = [m for i in range(6) for m in module_turn(i)]
    cut = trim_to_recent_turns(transcript, 900)
    assert cut.trimmed

    @dataclass
    class View:
        transcript: list
        context: list
        ledger: list
        ledger_positions: list[int]
        pins: list[int] = field(default_factory=list)

        def undoable_cuts(self) -> list[int]:
            return []

        def cut_pass(self, index: int) -> tuple[int, int]:
            return (index, index)

    rows = read_history_rows(View(transcript, cut.messages, [cut.to_event("token_budget", 900)], [len(transcript)]))
    bars = rows.turn_bars
    assert [bar.turn for bar in bars] == [1, 2, 3, 4, 5, 6] and all(bar.tokens > 0 for bar in bars)
    assert bars[0].state == "dropped" and bars[-1].state == "in_context"

"""Front ends of `recall`: the tool row says what came back and from which turn; a previewed
(too big) output is badged like a shortened one."""

from __future__ import annotations

from pydantic_ai.messages import ModelRequest, ToolReturnPart
from textual.app import App, ComposeResult

from co_tui.governance.handles import stamp_handles
from co_tui.governance.preview import preview_big_outputs
from co_tui.governance.recall import recall_output, recalled_what
from co_tui.session.events import ToolResult
from co_tui.session.tool_facts import tool_result
from co_tui.tui.transcript_view import truncated_tool_call_ids
from co_tui.tui.widgets.tool_call_block import ToolCallBlock


def _result(block: ToolCallBlock, content: str, chars: int, *, is_error: bool = False) -> ToolResult:
    """The block's result as the session yields it (its facts read off `content`)."""
    return tool_result(
        tool_name=block.tool_name, tool_call_id=block.tool_call_id, content=content, chars=chars, is_error=is_error
    )


def _transcript() -> list:
    return stamp_handles(
        [ModelRequest(parts=[ToolReturnPart("read_file", "README.md: lines 1-2 of 2\nzephyr\n", tool_call_id="a")])], 0
    )


class Host(App[None]):
    def compose(self) -> ComposeResult:
        yield ToolCallBlock("recall", "c1", '{"handle": "r0"}')


async def test_a_recall_row_says_what_came_back_and_from_which_turn() -> None:
    content = recall_output(_transcript(), "r0").text
    assert recalled_what(content) == "the output of read_file() from turn 1"
    async with Host().run_test() as pilot:
        block = pilot.app.query_one(ToolCallBlock)
        block.set_result(_result(block, content, len(content)))
        await pilot.pause()
        assert "recalled the output of read_file() from turn 1" in block.title.plain
        block.set_result(_result(block, "no tool output 'r9' in this session", 30, is_error=True))
        assert block.recalled is None and "recalled" not in block.title.plain


def test_recalled_what_reads_every_kind_of_recall_header() -> None:
    assert recalled_what('[recall(turns="2-4"): turns 2-4 as they happened, chars 0-10 of 10; the end]\n') == (
        "turns 2-4 as they happened"
    )
    assert recalled_what('[recall(search="x"): 3 hits in what is out of view, chars 0-9 of 9; the end]') == (
        "3 hits in what is out of view"
    )
    assert recalled_what("an ordinary output") is None


def test_a_previewed_output_gets_the_badge() -> None:
    big = stamp_handles([ModelRequest(parts=[ToolReturnPart("run_shell", "y\n" * 40_000, tool_call_id="big")])], 0)
    context = preview_big_outputs(big, 50_000)
    assert truncated_tool_call_ids(context) == {"big"}
    assert truncated_tool_call_ids(big) == frozenset()  # the transcript's whole output is not badged


def test_the_inspector_shows_which_message_was_recalled() -> None:
    from pydantic_ai.messages import UserPromptPart

    from co_tui.governance.inspect import annotate_history

    transcript = _transcript()
    page = recall_output(transcript, "r0")
    transcript += stamp_handles(
        [
            ModelRequest(parts=[UserPromptPart("what was it?")]),
            ModelRequest(parts=[ToolReturnPart("recall", page.text, tool_call_id="c1")]),
        ],
        len(transcript),
    )
    rows = annotate_history(transcript, transcript)
    assert rows[-1].preview == "recall ↺ recalled the output of read_file() from turn 1"


def test_context_counts_recalled_text_as_messages() -> None:
    from co_tui.session.context_breakdown import classify_messages

    page = recall_output(_transcript(), "r0")
    context = [ModelRequest(parts=[ToolReturnPart("recall", page.text, tool_call_id="c1")])]
    assert [key for key, _ in classify_messages(context)] == ["messages"]


class BigHost(App[None]):
    def compose(self) -> ComposeResult:
        yield ToolCallBlock("run_shell", "c2", '{"command": "seq 1 100000"}')


async def test_a_big_output_s_row_says_preview_with_the_whole_size_as_it_arrives() -> None:
    from co_tui.governance.preview import shown_preview

    whole = "".join(f"{i}\n" for i in range(1, 100_001))
    shown = shown_preview(whole, 50_000)
    async with BigHost().run_test() as pilot:
        block = pilot.app.query_one(ToolCallBlock)
        block.set_result(_result(block, shown, len(whole)))
        await pilot.pause()
        assert block.previewed and "588.9k chars" in block.title.plain and " preview " in block.title.plain
        block.mark_truncated()  # the context's preview also counts as shortened: one badge, the one that says more
        assert "truncated" not in block.title.plain
        block.set_result(_result(block, whole[:100], 100))
        assert not block.previewed and " preview " not in block.title.plain


async def test_a_failed_command_s_previewed_row_says_how_it_ended(workspace) -> None:
    """The model's `run_shell` row: a command that failed says so beside its preview badge (the
    preview keeps the output's last line, where `run_command` writes the status)."""
    from co_tui.agent.shell import run_command
    from co_tui.governance.preview import shown_preview

    whole = await run_command("seq 1 100000; exit 2", workspace)
    async with BigHost().run_test() as pilot:
        block = pilot.app.query_one(ToolCallBlock)
        block.set_result(_result(block, shown_preview(whole, 50_000), len(whole)))
        await pilot.pause()
        assert block.previewed and block.title.plain.endswith("chars · exit 2   preview ")
        block.set_result(_result(block, "(the tool failed)", 17, is_error=True))
        assert "exit" not in block.title.plain, "an error row says failed, not how a command ended"


async def test_the_row_shows_the_session_s_facts_and_reads_nothing_off_the_output() -> None:
    """The title's outcome and badges are the `ToolResult`'s fields (front ends only display them):
    an output whose text says nothing shows what the session said of it, and the reverse."""
    async with BigHost().run_test() as pilot:
        block = pilot.app.query_one(ToolCallBlock)
        said = ToolResult(tool_name="run_shell", tool_call_id="c2", content="", chars=0, outcome="timed out")
        block.set_result(said)
        await pilot.pause()
        assert block.title.plain.endswith("0 chars · timed out")
        silent = "$ make\n[exit code 2]"  # a fact the session did not fill: not shown
        block.set_result(ToolResult(tool_name="run_shell", tool_call_id="c2", content=silent, chars=len(silent)))
        assert "exit" not in block.title.plain

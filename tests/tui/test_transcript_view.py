"""transcript_view: one implementation for stored JSON rows and pydantic-ai messages; a window
onto the newest rows gives exactly the newest items of the whole transcript."""

from __future__ import annotations

import json
import warnings
from datetime import UTC, datetime, timezone
from pathlib import Path

import pytest
from cli_process import run_python
from pydantic_ai.messages import (
    ModelMessagesTypeAdapter,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)

from co_tui.governance.trim import TRUNCATION_MARK
from co_tui.session.conversation_counts import ConversationCounts
from co_tui.session.saved_session import SessionMeta
from co_tui.store.tail import SessionTail
from co_tui.tui.transcript_view import (
    Item,
    first_screen,
    newest_entries,
    rows_at_least,
    tail_shows,
    transcript_items,
    truncated_tool_call_ids,
    window_items,
)

with warnings.catch_warnings():  # deprecated in pydantic-ai 2.x, still found in saved sessions
    warnings.simplefilter("ignore")
    from pydantic_ai.messages import RetryPromptPart


def _retry(**kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return RetryPromptPart(**kwargs)


def awkward_transcript() -> list:
    """Every shape whose items depend on earlier messages: answer runs over several responses,
    results far from their calls, parallel calls, retries, blank text, an orphan result."""
    return [
        ModelRequest(parts=[UserPromptPart("first question")]),
        ModelResponse(parts=[TextPart("An answer "), TextPart("   ")]),
        ModelResponse(parts=[TextPart("in three "), TextPart("responses.")]),
        ModelResponse(parts=[TextPart("Still the same run.")]),
        ModelRequest(parts=[UserPromptPart(["look at this", "and this"])]),
        ModelResponse(
            parts=[
                TextPart("Reading both."),
                ToolCallPart("read_file", {"path": "a.py"}, tool_call_id="a"),
                ToolCallPart("read_file", '{"path": "b.py"}', tool_call_id="b"),
            ]
        ),
        ModelRequest(
            parts=[
                ToolReturnPart("read_file", "A" * 50, tool_call_id="a"),
                _retry(content="no such file: b.py", tool_name="read_file", tool_call_id="b"),
            ]
        ),
        ModelResponse(parts=[TextPart("b.py is missing; "), ToolCallPart("list_dir", {"path": "."}, tool_call_id="c")]),
        ModelRequest(parts=[ToolReturnPart("list_dir", {"entries": ["a.py", "c.py"]}, tool_call_id="c")]),
        ModelResponse(parts=[TextPart("it is c.py.")]),
        ModelRequest(parts=[ToolReturnPart("read_file", "orphan", tool_call_id="nowhere")]),
        ModelResponse(parts=[TextPart("continues after an orphan result")]),
        ModelRequest(parts=[UserPromptPart("bad args")]),
        ModelResponse(parts=[ToolCallPart("search", {"q": 1}, tool_call_id="d")]),
        ModelRequest(
            parts=[
                _retry(
                    content=[
                        {"type": "string_type", "loc": ("q",), "msg": "Input should be a valid string", "input": 1}
                    ],
                    tool_name="search",
                    tool_call_id="d",
                )
            ]
        ),
        ModelResponse(parts=[ToolCallPart("search", {"q": "x"}, tool_call_id="d")]),
        ModelResponse(parts=[TextPart("a call with no result yet")]),
    ]


def as_rows(messages: list) -> list[dict]:
    """The store's rows parsed back: the adapter's JSON of each message."""
    return json.loads(ModelMessagesTypeAdapter.dump_json(messages))


def test_rows_and_messages_give_the_same_items() -> None:
    messages = awkward_transcript()
    assert transcript_items(as_rows(messages)) == transcript_items(messages)


def test_items_of_the_awkward_transcript() -> None:
    items = transcript_items(awkward_transcript())
    kinds = [item.kind for item in items]
    assert kinds == [
        "user",
        "assistant",
        "user",
        "assistant",
        "tool",
        "tool",
        "assistant",
        "tool",
        "assistant",
        "user",
        "tool",
        "tool",
        "assistant",
    ]
    assert items[1].text == "An answer in three responses.Still the same run." and items[1].at == 1
    assert items[2].text == "look at this\nand this"
    assert items[4].result == "A" * 50 and not items[4].is_error
    assert items[5].is_error and items[5].result.startswith("no such file: b.py")
    assert items[7].result == '{"entries": ["a.py", "c.py"]}'
    assert items[8].text == "it is c.py.continues after an orphan result"  # an orphan result adds no item
    assert items[10].result.startswith("1 validation error:") and items[11].result is None


def test_an_answer_cut_by_an_interrupt_is_marked_in_both_forms() -> None:
    messages = [
        ModelRequest(parts=[UserPromptPart("explain it")]),
        ModelResponse(parts=[TextPart("Done in full.")]),
        ModelRequest(parts=[UserPromptPart("and slowly")]),
        ModelResponse(parts=[TextPart("First I read "), ToolCallPart("read_file", {}, tool_call_id="r")]),
        ModelRequest(parts=[ToolReturnPart("read_file", "text", tool_call_id="r")]),
        ModelResponse(parts=[TextPart("then I wro")], state="interrupted"),
    ]
    for form in (messages, as_rows(messages)):
        answers = [item for item in transcript_items(form) if item.kind == "assistant"]
        assert [(a.text, a.interrupted) for a in answers] == [
            ("Done in full.", False),
            ("First I read ", False),
            ("then I wro", True),
        ]


@pytest.mark.parametrize(
    "part",
    [
        _retry(content="no such file", tool_name="read_file", tool_call_id="x"),
        _retry(content="be shorter", tool_name=None, tool_call_id="x"),
        _retry(
            content=[
                {"type": "missing", "loc": ("path",), "msg": "Field required", "input": {"é": 1}, "ctx": {"a": 1}}
            ],
            tool_name="read_file",
            tool_call_id="x",
        ),
        _retry(
            content=[
                {"type": "missing", "loc": ("path",), "msg": "Field required", "input": {}},
                {"type": "int_parsing", "loc": ("a", "b"), "msg": "bad", "input": "x"},
            ],
            tool_name=None,
            tool_call_id="x",
        ),
    ],
)
def test_a_retry_reads_as_pydantic_ai_words_it(part) -> None:
    messages = [ModelResponse(parts=[ToolCallPart("read_file", {}, tool_call_id="x")]), ModelRequest(parts=[part])]
    for form in (messages, as_rows(messages)):
        assert transcript_items(form)[0].result == part.model_response()


def test_every_window_gives_the_newest_items_of_the_whole() -> None:
    messages = awkward_transcript()
    rows = as_rows(messages)
    whole = transcript_items(rows)
    for start in range(len(rows) + 1):
        window = window_items(rows[start:], start)
        assert window == whole[len(whole) - len(window) :], f"window from message {start}"
    assert window_items(rows, 0) == whole


def test_truncated_badges_from_rows_and_messages() -> None:
    messages = [
        ModelRequest(
            parts=[
                ToolReturnPart("read_file", "x" * 10 + f"\n{TRUNCATION_MARK}, 9000 chars total]", tool_call_id="cut")
            ]
        ),
        ModelRequest(parts=[ToolReturnPart("read_file", "whole", tool_call_id="whole")]),
    ]
    assert truncated_tool_call_ids(messages) == truncated_tool_call_ids(as_rows(messages)) == {"cut"}


@pytest.mark.slow
def test_it_imports_no_pydantic_ai() -> None:
    code = (
        "import sys; from co_tui.tui.transcript_view import transcript_items, window_items; "
        "transcript_items([{'kind': 'request', 'parts': [{'part_kind': 'user-prompt', 'content': 'hi'}]}]); "
        "sys.exit(1 if 'pydantic_ai' in sys.modules else 0)"
    )
    done = run_python(code)
    assert done.returncode == 0, done.stderr


def _tail(rows: list[dict], start: int, positions: list[int]) -> SessionTail:
    meta = SessionMeta(
        id="f00d", title="", created=datetime.now(UTC), updated=datetime.now(UTC), model="offline", workspace=Path(".")
    )
    return SessionTail(meta, start, rows[start:], len(rows), ConversationCounts(), positions)


@pytest.mark.parametrize("limit", [1, 5, 12, 40])
@pytest.mark.parametrize("cuts", [(), (0,), (3, 3, 17), tuple(range(0, 85, 4)), (84,), (20, 60, 61, 85)])
def test_when_the_tail_is_enough_it_shows_the_newest_entries_of_the_whole(limit: int, cuts: tuple) -> None:
    """Whatever row `load_tail` stops at, the newest `limit` entries (banners placed among them)
    from the window are those of the whole transcript."""
    rows = as_rows(awkward_transcript() * 5)  # 85 messages
    positions = list(cuts)
    banners = list(zip(positions, [f"cut@{at}" for at in positions], strict=False))
    whole = newest_entries(transcript_items(rows), banners, limit)[0]
    enough = tail_shows(limit)
    stops = [start for start in range(len(rows), 0, -1) if enough(_tail(rows, start, positions))]
    assert stops, "some window short of the first message is enough"
    for start in stops:
        window = newest_entries(window_items(rows[start:], start), banners, limit)[0]
        assert window == whole, f"window from message {start}"


# --- the first screen of a resumed conversation ---------------------------------------------------


def test_the_first_screen_is_the_newest_entries_that_fill_it() -> None:
    short = [Item("user", text=f"prompt {i}", at=i) for i in range(20)]  # two rows each: margin + text
    assert first_screen(short, 100, 10) == 5
    assert first_screen(short, 100, 11) == 6  # a row short of full takes one entry more
    long = [*short, Item("assistant", text="word " * 200, at=20)]  # ~1,000 chars: 11 rows at 94 columns + margin
    assert first_screen(long, 100, 10) == 1
    assert first_screen(long, 100, 14) == 2
    assert first_screen(long, 100, 15) == 3
    assert first_screen(short, 100, 1000) == len(short)  # fewer than a screen: all of them
    assert first_screen(short, 0, 0) == len(short)  # a log not laid out yet: all of them


def test_the_row_estimate_never_exceeds_what_markdown_can_render() -> None:
    # Soft line breaks may join (one paragraph, however many source lines); blocks keep a gap.
    assert rows_at_least(Item("assistant", text="a\nb\nc"), 100) == 2
    assert rows_at_least(Item("assistant", text="one\n\ntwo\n\n\nthree"), 100) == 1 + 3 + 2
    assert rows_at_least(Item("tool", tool_name="read_file"), 100) == 2
    assert rows_at_least(Item("assistant", text="x", interrupted=True), 100) == 3  # the interrupted line


def test_a_prompt_with_attachments_shows_as_typed_and_names_them(tmp_path) -> None:
    from pydantic_ai.messages import ModelRequest, UserPromptPart

    from co_tui.agent.mentions import attach
    from co_tui.tui.transcript_view import transcript_items

    (tmp_path / "notes.md").write_text("a long file\n" * 50)
    typed = "explain @notes.md"
    [item] = transcript_items([ModelRequest(parts=[UserPromptPart(attach(tmp_path, typed).prompt(typed))])])
    assert item.text == "explain @notes.md\n(attached: notes.md)"

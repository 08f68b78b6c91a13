"""Streaming an answer: bounded flush rate, bounded segments that render like one piece, a chat
log bounded in widgets, and full garbage collections held back while a turn runs."""

from __future__ import annotations

import gc
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from time import monotonic
from typing import Any

import pytest
from pilot_helpers import wait_until
from textual.app import App, ComposeResult
from textual.widgets import Markdown

from co_tui.tui import frame_budget, gc_pause
from co_tui.tui.widgets import assistant_message
from co_tui.tui.widgets.assistant_message import AssistantMessage, block_boundary, boundary_scan
from co_tui.tui.widgets.chat_log import ChatLog, laid_out
from co_tui.tui.widgets.rendered_lines import RenderedLines
from co_tui.tui.widgets.user_message import UserMessage

# Every kind of block a model writes, several times over: paragraphs, headers, loose and tight
# lists, code fences holding blank lines and markdown-looking text, quotes, a table, numbered text.
PIECE = """Some words about the change, with `code` and **bold** text.

## Step {n}

The plan has parts:

- first item

- second item, in a loose list

1. one
2. two

```python
def f():

    # not a header inside a fence

    return {n}
```

> a quote
> that goes on

| a | b |
|---|---|
| {n} | x |

2024 was a year; "quoted" openings and (brackets) too.

"""
ANSWER = "".join(PIECE.format(n=n) for n in range(8))


# --- where a segment may start -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("one\n\ntwo\n\n", 5),  # a paragraph after a blank line
        ("one\n\n\n\ntwo\nmore", 7),  # blank lines run together; a second line of text
        ("one\n\ntwo", -1),  # the line after may still turn `two` into a header or a table head
        ("one\n\ntwo\n", -1),
        ("one\n\ntwo\n-", -1),
        ("one\n\ntwo\n=== \n", -1),  # a setext header
        ("one\n\ntwo\n---\nx", -1),
        ("one\n\na | b\n--|:-:\n", -1),  # a table without a leading pipe
        ("one\n\na | b\n| --- | --- |\n", -1),
        ("one\n\ntwo\n- item\n", 5),  # not an underline: a list after the paragraph line
        ("one\n\n" + "long " * 20, 5),  # a first line this long is no setext header
        ("one\n\na | b\n\n", -1),  # a line with a pipe may head a table
        ("one\n\n## head", -1),  # a header keeps its top margin: never first in a segment
        ("one\n\n- item", -1),  # may be the next item of a loose list
        ("one\n\n1. item", -1),
        ("one\n\n    code", -1),  # indented: code or a continuation
        ("one\n\n> quote", -1),
        ("one\n\n| a |", -1),
        ("one\n\n", -1),  # the next block has not started: cannot tell what it is
        ("```\nx\n\ny\n```\n\nafter\n\n", 14),  # the blank line inside the fence is no boundary
        ("```\nx\n\ny", -1),  # still inside a fence
        ("one\n\n2024 was\n\n", 5),  # a number that is not a list marker
        ("one\n\n_emph_", -1),  # could be a thematic break (___)
        ('one\n\n"quoted"\nx', 5),
    ],
)
def test_block_boundary(text: str, expected: int) -> None:
    assert block_boundary(text, 0) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("one\n\ntwo", (-1, 5)),  # the next line decides: hold the text from `two` back
        ("one\n\ntwo\n--", (-1, 5)),
        ("one\n\ntwo\n--\n", (-1, -1)),  # decided: a setext header, no cut
        ("one\n\ntwo\n\n", (5, -1)),
        ("one\n\n", (-1, -1)),
    ],
)
def test_boundary_scan_says_when_it_cannot_tell_yet(text: str, expected: tuple[int, int]) -> None:
    assert boundary_scan(text, 0) == expected


def test_block_boundary_searches_from_start() -> None:
    text = "a\n\nb\n\nc\nd"
    assert block_boundary(text, 0) == 3
    assert block_boundary(text, 2) == 6
    assert block_boundary(text, 5) == -1


# --- a host app with the real chat log -------------------------------------------------------------


class LogHost(App[None]):
    def compose(self) -> ComposeResult:
        yield ChatLog(id="chat-log", widget_budget=10_000)  # nothing pruned unless a test says so

    @property
    def log_view(self) -> ChatLog:
        return self.query_one(ChatLog)


def answer_lines(app: App, segments: list[AssistantMessage]) -> list[str]:
    """The screen's text over the rows the answer's segments cover (the whole answer must fit)."""
    update = app.screen._compositor.render_full_update()
    top, bottom = segments[0].region.y, segments[-1].region.bottom
    assert bottom <= app.size.height, "the terminal must be tall enough to show the whole answer"
    return ["".join(strip.text for strip in row).rstrip() for row in update.strips[top:bottom]]


async def new_answer(log: ChatLog) -> AssistantMessage:
    """An empty answer mounted at the end of the log, ready to stream into."""
    answer = AssistantMessage()
    await log.add(answer)
    return answer


async def stream(pilot, log: ChatLog, text: str, chunk: int = 7, *, finish: bool = True) -> AssistantMessage:
    """Write `text` in small deltas, waiting for a flush about every 60 characters; `finish` ends it."""
    first = await new_answer(log)
    for i in range(0, len(text), chunk):
        first.live.write(text[i : i + chunk])
        if i % (chunk * 9) == 0:
            written_at = monotonic()
            # The flush timer appended what was written (after a hand-over: the new segment's first append).
            await wait_until(
                pilot, lambda t=written_at: monotonic() - t > first.budget.since_append(), what="an append"
            )
    if finish:
        await first.live.finish()
    await pilot.pause()
    return first


def segments_of(first: AssistantMessage) -> list[AssistantMessage]:
    out, segment = [], first
    while segment is not None:
        out.append(segment)
        segment = segment.next
    return out


async def test_segments_render_like_one_markdown(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(assistant_message, "SEGMENT_CHARS", 300)
    monkeypatch.setattr(frame_budget, "MAX_CONTENT_HZ", 50)
    monkeypatch.setattr(assistant_message, "FLUSH_TICK_S", 0.02)
    app = LogHost()
    async with app.run_test(size=(100, 400)) as pilot:
        log = app.log_view
        first = await stream(pilot, log, ANSWER)
        segments = segments_of(first)
        assert len(segments) >= 5, "a small segment size must split a long answer"
        assert "".join(s.text for s in segments) == ANSWER, "no text lost or doubled at the cuts"
        assert all(s.finished for s in segments)
        assert [s.has_class("-continued") for s in segments] == [False] + [True] * (len(segments) - 1)
        for segment in segments[1:]:  # each continuation starts with a plain paragraph
            assert block_boundary(segment.previous.text + segment.text, len(segment.previous.text) - 2) == len(
                segment.previous.text
            )
        streamed = answer_lines(app, segments)

        await log.clear_log()
        whole = AssistantMessage(ANSWER)
        await log.add(whole)
        await pilot.pause()
        await wait_until(pilot, lambda: len(whole.markdown.children) > 10, what="one-shot render")
        await pilot.pause()
        assert streamed == answer_lines(app, [whole])


async def test_an_answer_opening_with_a_heading_starts_on_its_first_line() -> None:
    """No blank lines above the heading (Textual gives headers a 2-line top margin); one below it;
    a heading further down keeps its margin. Streamed and rendered whole alike."""
    text = "## Title\n\nbody\n\n## Later\n\nmore"
    app = LogHost()
    async with app.run_test(size=(60, 30)) as pilot:
        streamed = await stream(pilot, app.log_view, text, chunk=3)
        whole = AssistantMessage(text)
        await app.log_view.add(whole)
        await wait_until(pilot, lambda: len(whole.markdown.children) == 4, what="render")
        await pilot.pause()
        for answer in (streamed, whole):
            lines = [line.lstrip("▌ ").strip() for line in answer_lines(app, [answer])]
            assert lines == ["Title", "", "body", "", "", "Later", "", "more"], lines


async def test_writes_wait_for_the_flush() -> None:
    app = LogHost()
    async with app.run_test(size=(80, 24)) as pilot:
        answer = await new_answer(app.log_view)
        answer.write("hello ")
        answer.write("world")
        assert answer.text == "hello world"
        assert answer.markdown.source == "", "a write only buffers; the Markdown changes on a flush"
        await wait_until(pilot, lambda: answer.markdown.source == "hello world", what="flush")
        await answer.finish()
        answer.write(" more")  # after finish: ignored
        assert answer.text == "hello world"


async def test_interrupt_marks_every_segment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(assistant_message, "SEGMENT_CHARS", 100)
    app = LogHost()
    async with app.run_test(size=(80, 24)) as pilot:
        first = await new_answer(app.log_view)
        for n in range(12):
            first.live.write(f"Paragraph {n} has a few words in it.\n\n")
            await wait_until(
                pilot,
                lambda n=n: (
                    f"Paragraph {n} "
                    in "".join(  # one flush per paragraph
                        seg.markdown.source for seg in segments_of(first)
                    )
                ),
                what=f"paragraph {n} shown",
            )
        segments = segments_of(first)
        assert len(segments) > 2
        await first.live.finish(interrupted=True)
        assert all(s.has_class("-interrupted") for s in segments)


# --- the chat log's bounds --------------------------------------------------------------------------


async def test_log_prunes_by_widget_count() -> None:
    class SmallLog(LogHost):
        def compose(self) -> ComposeResult:
            # 3 prompts (1 each) + the answer (itself, its Markdown, 30 blocks) + 1 prompt = 36
            yield ChatLog(id="chat-log", max_items=100, widget_budget=33)

    app = SmallLog()
    async with app.run_test(size=(80, 24)) as pilot:
        log = app.log_view
        for n in range(3):
            await log.add(UserMessage(f"prompt {n}"))
        big = AssistantMessage("\n\n".join(f"paragraph {n}" for n in range(30)))
        await log.add(big)
        await wait_until(pilot, lambda: len(big.markdown.children) == 30, what="answer rendered")
        await log.add(UserMessage("next"))  # the check runs when something is added
        items = log.items
        assert big in items, "the newest big item stays"
        assert [w.text for w in items if isinstance(w, UserMessage)] == ["next"]
        assert log.hidden_count == 3
        assert sum(1 + sum(1 for _ in item.walk_children()) for item in items) == 33

        huge = AssistantMessage("\n\n".join(f"line {n}" for n in range(60)))
        await log.add(huge)
        await wait_until(pilot, lambda: len(huge.markdown.children) == 60, what="huge rendered")
        await log.prune()
        assert log.items == [huge], "alone over budget, the newest item still stays"


async def test_log_prunes_by_item_count() -> None:
    class FewItems(LogHost):
        def compose(self) -> ComposeResult:
            yield ChatLog(id="chat-log", max_items=5)

    app = FewItems()
    async with app.run_test(size=(80, 24)):
        log = app.log_view
        for n in range(8):
            await log.add(UserMessage(f"prompt {n}"))
        assert [w.text for w in log.items] == [f"prompt {n}" for n in range(3, 8)]
        assert log.hidden_count == 3


# --- garbage collection ------------------------------------------------------------------------------


def test_full_collections_pause_and_resume() -> None:
    before = gc.get_threshold()
    gc_pause.pause_full_collections()
    gc_pause.pause_full_collections()  # idempotent: the saved threshold is not overwritten
    try:
        t0, t1, t2 = gc.get_threshold()
        assert (t0, t1) == before[:2], "young collections keep their thresholds"
        assert t2 > 10**6
    finally:
        gc_pause.resume_full_collections(collect=False)
    assert gc.get_threshold() == before
    gc_pause.resume_full_collections()  # not paused: nothing to do
    assert gc.get_threshold() == before


async def test_app_holds_full_collections_during_a_turn(make_app, monkeypatch: pytest.MonkeyPatch) -> None:
    from pilot_helpers import wait_idle, wait_ready
    from tui_fakes import Text, Tool

    # The user's typing is a switch here, not a clock: "typing" until the test says it stopped.
    typing = [True]
    monkeypatch.setattr(gc_pause, "MAX_DEFER_S", float("inf"))
    normal = gc.get_threshold()[2]
    # The tool holds the turn open until esc: the check below runs while the turn surely streams.
    app = make_app(script=lambda prompt: [Text("reading the file"), Tool("read_file", "{}", "x", hold=60.0)])
    monkeypatch.setattr(app.key_clock, "since_input", lambda: 0.0 if typing[0] else float("inf"))
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_ready(pilot)
        await pilot.press("g", "o", "enter")
        await wait_until(pilot, lambda: bool(app.chat.query("ToolCallBlock")), what="the tool running")
        assert app.busy
        assert gc.get_threshold()[2] > 10**6, "no automatic full collection while the answer streams"
        await pilot.press("escape")
        await wait_idle(pilot)
        await pilot.press("x")  # typing right after the answer: the collection waits
        await wait_until(pilot, lambda: app.chat.prompt.text == "x", what="the key echoed")
        assert gc.get_threshold()[2] > 10**6, "held while the user types"
        typing[0] = False
        await wait_until(pilot, lambda: gc.get_threshold()[2] == normal, what="collection once idle")


async def test_quitting_before_the_held_collection_gives_the_collector_back(
    make_app, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pilot_helpers import wait_idle, wait_ready
    from tui_fakes import Text

    # The user is typing for as long as the test runs (a switch, not the clock: on a loaded machine
    # wait_idle took longer than the 0.5 s pause after a key that lets the collection run).
    monkeypatch.setattr(gc_pause, "MAX_DEFER_S", float("inf"))
    normal = gc.get_threshold()
    app = make_app(script=lambda prompt: [Text("an answer")])
    monkeypatch.setattr(app.key_clock, "since_input", lambda: 0.0)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_ready(pilot)
        await pilot.press("g", "o", "enter")
        await wait_idle(pilot)
        assert gc.get_threshold()[2] > 10**6, "still held: a key was just pressed"
    assert gc.get_threshold() == normal


def test_the_held_collection_is_due_when_the_user_pauses(monkeypatch: pytest.MonkeyPatch) -> None:
    now = [100.0]
    typed = [0.0]
    monkeypatch.setattr(gc_pause, "monotonic", lambda: now[0])

    def due(turn_ended_at: float) -> bool:  # asked with the app's KeyClock.since_input()
        return gc_pause.collection_due(turn_ended_at, now[0] - typed[0])

    typed[0] = 99.9
    assert not due(100.0), "a key 0.1 s ago"
    now[0] = typed[0] + gc_pause.IDLE_S
    assert due(100.0), "no key for IDLE_S"
    typed[0] = 100.0 + gc_pause.MAX_DEFER_S  # typing without a pause
    now[0] = typed[0] + 0.05
    assert due(100.0), "never later than MAX_DEFER_S after the turn"
    assert not due(now[0] - 1.0)


async def test_a_key_press_holds_the_flush_briefly(monkeypatch: pytest.MonkeyPatch) -> None:
    # The clock and the typing are switches: the test decides when time has passed.
    now = [0.0]
    monkeypatch.setattr(assistant_message, "monotonic", lambda: now[0])
    asked = [0]

    def typing() -> float:  # asked by a flush tick whose append is due: a key "was just pressed"...
        asked[0] += 1
        return 0.0

    app = LogHost()
    async with app.run_test(size=(80, 24)) as pilot:
        answer = await new_answer(app.log_view)
        monkeypatch.setattr(answer.budget, "content_interval", lambda: 0.1)
        monkeypatch.setattr(answer.clock, "since_input", typing)
        now[0] = 0.2  # past the content interval: without the key press, the next tick appends
        answer.write("held back")
        await wait_until(
            pilot, lambda: asked[0] >= 3 or answer.markdown.source, what="flush ticks that would have shown the text"
        )
        assert answer.markdown.source == "", "a flush right after a key press waits"
        now[0] = assistant_message.MAX_HOLD_S  # ...so only the bound releases text
        await wait_until(pilot, lambda: answer.markdown.source == "held back", what="bounded hold")
        await answer.finish()


async def test_text_handed_over_in_one_piece_is_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(assistant_message, "SEGMENT_CHARS", 20)
    app = LogHost()
    async with app.run_test(size=(80, 24)) as pilot:
        first = await new_answer(app.log_view)
        first.write("The first paragraph is long enough.")
        await wait_until(pilot, lambda: first.markdown.source != "", what="first flush")
        second = "The second one\ngoes on"
        first.write("\n\n" + second)  # one delta: after the cut it is the continuation's only text
        await wait_until(pilot, lambda: first.next is not None, what="hand-over")
        await first.live.finish()
        assert first.next.text == second
        assert first.next.markdown.source == second
        assert first.text + first.next.text == "The first paragraph is long enough.\n\n" + second


async def test_finish_during_a_hand_over_keeps_one_segment(monkeypatch: pytest.MonkeyPatch) -> None:
    """The turn ends (Done, Esc) while the flush is mounting the continuation: the mount is called
    off, no empty segment stays in the log, and the first segment shows all the text."""
    import asyncio

    monkeypatch.setattr(assistant_message, "SEGMENT_CHARS", 20)
    app = LogHost()
    async with app.run_test(size=(80, 24)) as pilot:
        log = app.log_view
        first = await new_answer(log)
        first.write("The first paragraph is long enough.")
        await wait_until(pilot, lambda: first.markdown.source != "", what="first flush")
        mount, started, settled = log.mount, asyncio.Event(), asyncio.Event()

        def slow_mount(*widgets, **kwargs):  # a busy loop: the mount's await completes late
            mounted = mount(*widgets, **kwargs)

            async def later() -> None:
                started.set()
                try:
                    await asyncio.sleep(0.3)  # the scenario: a slow mount (not a wait for something)
                    await mounted
                finally:  # mounted, or called off
                    settled.set()

            return later()

        monkeypatch.setattr(log, "mount", slow_mount)
        first.write("\n\nThe second one\nand more")
        await wait_until(pilot, started.is_set, what="hand-over under way")
        await first.live.finish(interrupted=True)
        await wait_until(pilot, settled.is_set, what="the hand-over's mount to end")
        await pilot.pause()
        assert list(log.items) == [first] and first.next is None
        assert first.text == "The first paragraph is long enough.\n\nThe second one\nand more"
        assert first.markdown.source == first.text and first.interrupted


async def test_file_names_are_shown_literally_streamed_and_whole() -> None:
    """`__init__.py` is not a bold "init"; `*stars*` still emphasise (issue: names from tools)."""
    text = "Edit __init__.py and test_a_b_c.py, then *check* the __main__ module."
    app = LogHost()
    async with app.run_test(size=(100, 30)) as pilot:
        streamed = await stream(pilot, app.log_view, text, chunk=3)
        whole = AssistantMessage(text)
        await app.log_view.add(whole)
        await wait_until(pilot, lambda: len(whole.markdown.children) == 1, what="render")
        await pilot.pause()
        for answer in (streamed, whole):
            [line] = [ln.lstrip("▌ ").strip() for ln in answer_lines(app, [answer]) if ln.strip(" ▌")]
            assert line == "Edit __init__.py and test_a_b_c.py, then check the __main__ module."
    from co_tui.tui.markdown_parser import literal_underscores_parser

    inline = literal_underscores_parser().parseInline(text)[0].children
    assert [t.type for t in inline if t.type.endswith("_open")] == ["em_open"]  # *check* only


# --- content frames adapt to the cost of layout (tui/frame_budget.py) -------------------------------


def test_slow_layout_frames_space_the_appends_out() -> None:
    budget = frame_budget.FrameBudget()
    assert budget.content_interval() == 1 / frame_budget.MAX_CONTENT_HZ, "cheap frames: 10 a second"
    for _ in range(50):
        budget.note_layout(0.040)  # a loaded host: 40 ms to reflow and repaint
    interval = budget.content_interval()
    # two layout frames per append take at most a quarter of the time
    assert interval == pytest.approx(0.040 * 2 / frame_budget.LAYOUT_SHARE, rel=0.01)
    for _ in range(50):
        budget.note_layout(1.0)
    assert budget.content_interval() == frame_budget.MAX_INTERVAL_S, "text never waits longer"


async def test_the_chat_screen_times_its_layout_frames(make_app) -> None:
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_until(pilot, lambda: app.chat.frame_budget.layout_cost() > 0, what="a layout frame timed")


async def test_an_answer_in_one_character_deltas_renders_as_one_arriving_whole(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """However the text is cut into deltas and whenever the appends fall (fast or spaced out by
    slow frames), the streamed answer reads line for line as the same text rendered at once."""
    monkeypatch.setattr(assistant_message, "SEGMENT_CHARS", 300)
    monkeypatch.setattr(assistant_message, "FLUSH_TICK_S", 0.01)
    spacing = [0.0]
    app = LogHost()
    async with app.run_test(size=(100, 400)) as pilot:
        log = app.log_view
        first = await new_answer(log)
        monkeypatch.setattr(first.budget, "content_interval", lambda: spacing[0])  # its continuations' too
        for i, char in enumerate(ANSWER):
            first.live.write(char)
            if i % 97 == 0:  # appends fall at arbitrary points, some spaced out like slow frames
                spacing[0] = 0.0 if i % 3 else 10.0
                await pilot.pause()
        await first.live.finish()
        await pilot.pause()
        segments = segments_of(first)
        assert len(segments) >= 5
        assert "".join(s.text for s in segments) == ANSWER
        assert "".join(s.markdown.source for s in segments) == ANSWER
        streamed = answer_lines(app, segments)

        await log.clear_log()
        whole = AssistantMessage(ANSWER)
        await log.add(whole)
        await wait_until(pilot, lambda: len(whole.markdown.children) > 10, what="one-shot render")
        await pilot.pause()
        assert streamed == answer_lines(app, [whole])


async def test_text_held_back_by_slow_frames_is_kept_when_the_turn_is_interrupted(
    make_app, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Esc mid-stream while frames are so slow that no append has happened yet: the answer still
    shows every delta the model sent, as the session kept it."""
    from tui_fakes import Hold, Text

    said = "".join(f"word{n} " for n in range(400)) + "cut mid-wo"
    asked = [0]

    def never_due() -> float:  # asked by every flush tick while text waits: no append is ever due
        asked[0] += 1
        return 3600.0

    def script(prompt: str):
        return [Text(said, chunks=len(said)), Hold(), Text("never shown")]  # one-character deltas

    app = make_app(script=script)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_until(pilot, lambda: getattr(app, "session", None) is not None, what="session ready")
        monkeypatch.setattr(app.chat.frame_budget, "content_interval", never_due)
        await pilot.press(*"go", "enter")
        await wait_until(
            pilot,
            lambda: said in "".join(m.text for m in app.chat.query(AssistantMessage)),
            what="every delta buffered",
        )
        [answer] = app.chat.query(AssistantMessage)
        # Two flush ticks after the last delta came: each would have appended it all, were one due.
        buffered = asked[0]
        await wait_until(
            pilot, lambda: asked[0] >= buffered + 2 or answer.markdown.source, what="two flush ticks or an append"
        )
        assert answer.markdown.source == "", "nothing appended yet: the frames are slow"
        await pilot.press("escape")
        await wait_until(pilot, lambda: not app.busy, what="the turn to end")
        [answer] = app.chat.query(AssistantMessage)
        assert answer.interrupted and answer.finished
        assert answer.text == said and answer.markdown.source == said
        assert app.session.prompts == ["go"]


def test_the_spinner_steps_slowly_while_text_streams(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each spinner step is a frame; while the answer's text grows on screen it steps every
    STREAMING_STEP_S instead of every tick."""
    from co_tui.tui.widgets import activity_indicator
    from co_tui.tui.widgets.activity_indicator import ActivityIndicator

    now = [100.0]
    monkeypatch.setattr(activity_indicator, "monotonic", lambda: now[0])
    appended = [float("inf")]  # seconds since the last append
    budget = frame_budget.FrameBudget()
    monkeypatch.setattr(budget, "since_append", lambda: appended[0])
    spinner = ActivityIndicator(budget)

    def ticks(n: int) -> int:
        before = spinner.frame
        for _ in range(n):
            now[0] += 0.125  # a tick (exact in binary: the sums stay exact)
            spinner._tick()
        return (spinner.frame - before) % len(activity_indicator.FRAMES)

    assert ticks(5) == 5, "waiting for the model: a step every tick"
    appended[0] = 0.2
    assert ticks(4) == 1, "text streaming: one step in half a second"
    appended[0] = activity_indicator.STREAMING_WINDOW_S
    assert ticks(3) == 3, "the text stopped: back to every tick"


# --- closed segments drawn as lines while the answer streams ----------------------------------------


async def stream_until_closed_segments_are_lines(pilot, log: ChatLog, text: str = ANSWER) -> AssistantMessage:
    """Stream `text` in small segments, then a trailing paragraph (no new cut) one word a poll until
    every closed segment still in the log is drawn as lines; the answer is still streaming."""
    first = await stream(pilot, log, text, finish=False)
    tail = iter(f" tail{n}" for n in range(10_000))

    def all_closed_drawn() -> bool:
        closed = [s for s in segments_of(first)[:-1] if s.is_attached]  # not those pruned
        if closed and all(s.rendered is not None for s in closed):
            return True
        first.live.write(next(tail))  # a flush (the only place segments are drawn) needs new text
        return False

    await wait_until(pilot, all_closed_drawn, what="closed segments drawn as lines")
    await pilot.pause()
    return first


def gave_up(drawn: list[RenderedLines | None]) -> bool:
    """None of these lines widgets is in the log any more (each segment was thawed)."""
    return all(lines is None or not lines.is_attached for lines in drawn)


async def test_closed_segments_are_drawn_as_lines_while_streaming_and_shown_again_at_the_end(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """While an answer streams, a closed segment's Markdown blocks leave the layout (one widget of
    lines stands in, drawing the same text); the answer's end brings the real Markdown back."""
    monkeypatch.setattr(assistant_message, "SEGMENT_CHARS", 300)
    monkeypatch.setattr(frame_budget, "MAX_CONTENT_HZ", 50)
    monkeypatch.setattr(assistant_message, "FLUSH_TICK_S", 0.02)
    app = LogHost()
    async with app.run_test(size=(100, 400)) as pilot:
        log = app.log_view
        first = await stream_until_closed_segments_are_lines(pilot, log)
        segments = segments_of(first)
        closed = segments[:-1]
        assert len(closed) >= 4 and not segments[-1].finished
        placed = app.screen._compositor.full_map
        blocks = [block for s in closed for block in s.markdown.children]
        assert len(blocks) > 4 * len(closed), "closed segments hold many blocks"
        assert not any(block in placed for block in blocks), "a layout pass no longer places them"
        assert all(s.rendered in placed and not s.markdown.display for s in closed)
        assert [laid_out(s) for s in closed] == [2] * len(closed), "the log's budget counts what is placed"
        drawn = answer_lines(app, segments)

        await first.live.finish()
        await pilot.pause()
        assert all(s.rendered is None and s.markdown.display for s in segments)
        assert not app.query(RenderedLines), "the lines were removed"
        assert answer_lines(app, segments) == drawn, "the lines drew what the Markdown draws"
        assert "".join(s.text for s in segments) == "".join(s.markdown.source for s in segments)


@pytest.fixture
def lines_drawn(monkeypatch: pytest.MonkeyPatch) -> Callable[[], AbstractAsyncContextManager[Any]]:
    """Enter `lines_drawn()` to stream the start of ANSWER into a LogHost at 100x40 in small, fast
    segments until its closed segments are drawn as lines; it gives (pilot, app, the answer, its
    closed segments, their lines), still streaming."""
    monkeypatch.setattr(assistant_message, "SEGMENT_CHARS", 300)
    monkeypatch.setattr(frame_budget, "MAX_CONTENT_HZ", 50)
    monkeypatch.setattr(assistant_message, "FLUSH_TICK_S", 0.02)

    @asynccontextmanager
    async def run() -> AsyncIterator[Any]:
        app = LogHost()
        async with app.run_test(size=(100, 40)) as pilot:
            first = await stream_until_closed_segments_are_lines(pilot, app.log_view, ANSWER[:800])
            closed = segments_of(first)[:-1]
            drawn = [s.rendered for s in closed]
            assert any(drawn)
            yield pilot, app, first, closed, drawn

    return run


async def test_lines_drawn_at_another_width_give_way_to_the_markdown(lines_drawn) -> None:
    async with lines_drawn() as (pilot, app, first, closed, drawn):
        await pilot.resize_terminal(70, 40)
        # A flush still due may draw a segment again at the new width before this looks: what must
        # hold is that no lines drawn at the old width are left.
        await wait_until(pilot, lambda: gave_up(drawn), what="lines given up")
        assert all(s.markdown.display or s.rendered not in drawn for s in closed)
        assert not first.live.finished, "still streaming: a later flush draws them again at the new width"


async def test_a_theme_change_gives_the_lines_up(lines_drawn) -> None:
    async with lines_drawn() as (pilot, app, _first, closed, drawn):
        app.theme = "textual-light" if app.theme != "textual-light" else "textual-dark"
        await wait_until(pilot, lambda: gave_up(drawn), what="lines given up")  # (a later flush may draw anew)
        assert all(s.markdown.display or s.rendered not in drawn for s in closed)


async def test_segments_pruned_mid_stream_are_left_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    """A long answer in a small log: its oldest segments are pruned while it streams; later flushes
    and the answer's end skip those, and the segments left show their Markdown."""
    monkeypatch.setattr(assistant_message, "SEGMENT_CHARS", 300)
    monkeypatch.setattr(frame_budget, "MAX_CONTENT_HZ", 50)
    monkeypatch.setattr(assistant_message, "FLUSH_TICK_S", 0.02)
    app = LogHost()
    async with app.run_test(size=(100, 40)) as pilot:
        log = app.log_view
        first = await stream_until_closed_segments_are_lines(pilot, log)
        segments = segments_of(first)
        log.widget_budget = laid_out(segments[-1]) + 2  # the live segment and one drawn as lines
        await log.prune()
        assert log.hidden_count == len(segments) - 2 and not segments[0].is_attached
        before = first.budget.since_append()
        first.live.write(" more words")
        await wait_until(pilot, lambda: first.budget.since_append() < before, what="a flush after the prune")
        await first.live.finish()
        await pilot.pause()
        shown = [s for s in segments if s.is_attached]
        assert len(shown) == 2 and all(s.rendered is None and s.markdown.display for s in shown)

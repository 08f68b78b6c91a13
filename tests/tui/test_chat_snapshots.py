"""Snapshots of the chat screen's states (pytest-textual-snapshot; plain `def` tests).

Every state is reached the way a user reaches it (typing, keys) against a scripted FakeSession;
see tui_fakes.py. Terminal 100x30, no animations, no cursor blink, fixed ids, temp dirs.
"""

from __future__ import annotations

from pilot_helpers import dialog_armed, send_prompt, wait_idle, wait_ready, wait_until
from tui_fakes import Fail, Hold, Text, Tool, Trim

from co_tui.config import Settings
from co_tui.governance.events import HistoryTrimmed

SIZE = (100, 30)

TRIM = HistoryTrimmed(
    reason="token_budget",
    strategy="turn_trim",
    dropped_messages=14,
    dropped_turns=3,
    kept_turns=2,
    tokens_before=41_200,
    tokens_after=12_900,
    budget_tokens=26_000,
    session_id="f00dfeed",
)
SUMMARY_TRIM = HistoryTrimmed(
    reason="message_count",
    strategy="summary",
    dropped_messages=22,
    dropped_turns=6,
    kept_turns=4,
    tokens_before=30_400,
    tokens_after=9_800,
    budget_tokens=26_000,
    session_id="f00dfeed",
    summary="The user is fixing **the parser**: tests in `tests/test_parser.py` fail on empty input.\n"
    "- read `parser.py`, found the off-by-one\n- the fix is not applied yet",
)


def tool_script(prompt: str):
    return [
        Text("I'll read it first."),
        Tool("read_file", '{"path": "README.md"}', "# Demo\n\nA small demo workspace.\n" * 40),
        Text("The README is a **demo** file with one heading:\n\n- `# Demo`\n- a one-line description"),
    ]


def send(*prompts: str):
    """run_before: wait for the session, send each prompt and wait until its turn is done."""

    async def run(pilot) -> None:
        await wait_ready(pilot)
        for prompt in prompts:
            await send_prompt(pilot, prompt)

    return run


def test_empty_chat(snap_compare, make_app):
    assert snap_compare(make_app(), terminal_size=SIZE, run_before=send())


def test_conversation_with_tool_call(snap_compare, make_app):
    assert snap_compare(make_app(script=tool_script), terminal_size=SIZE, run_before=send("what is in the readme?"))


def test_tool_call_expanded_with_truncated_badge(snap_compare, make_app):
    async def run(pilot) -> None:
        await send("what is in the readme?")(pilot)
        app = pilot.app
        # Governance shortened this output in the model's view: the context copy carries the marker.
        from dataclasses import replace

        from pydantic_ai.messages import ModelRequest, ToolReturnPart

        session = app.session
        for i, message in enumerate(session.context):
            if isinstance(message, ModelRequest) and isinstance(message.parts[0], ToolReturnPart):
                part = message.parts[0]
                cut = replace(part, content=part.content[:40] + "\n[…truncated, 1,400 chars total]")
                session.context[i] = replace(message, parts=[cut])
        await pilot.press(*"and now?", "enter")
        await wait_idle(pilot)
        block = app.chat.query_one("ToolCallBlock")
        assert block.truncated
        block.collapsed = False
        await pilot.pause()

    assert snap_compare(make_app(script=tool_script), terminal_size=(100, 40), run_before=run)


def _meter_at(level: str):
    """run_before: one turn, then check the meter really sits at `level` (colour class included)."""

    async def run(pilot) -> None:
        await send("hi")(pilot)
        meter = pilot.app.chat.meter
        assert meter.level == level
        assert meter.has_class(f"-{level}")

    return run


def test_meter_low(snap_compare, make_app):
    """< 60% of the budget: green."""
    app = make_app(budget_tokens=100_000, extra_tokens=18_000)
    assert snap_compare(app, terminal_size=SIZE, run_before=_meter_at("low"))


def test_meter_mid(snap_compare, make_app):
    """60–85%: yellow."""
    app = make_app(budget_tokens=100_000, extra_tokens=70_000)
    assert snap_compare(app, terminal_size=SIZE, run_before=_meter_at("mid"))


def test_meter_high(snap_compare, make_app):
    """>= 85%: red."""
    app = make_app(budget_tokens=100_000, extra_tokens=93_000)
    assert snap_compare(app, terminal_size=SIZE, run_before=_meter_at("high"))


def test_meter_over_budget_says_what_happens_next(snap_compare, make_app):
    """Past the budget (an answer just joined the context): red, and the meter says governance cuts
    before the next request — the figure is not a broken budget. Governance's own check says so:
    the context is at its message limit (eight), which the next prompt passes."""

    async def run(pilot) -> None:
        await send("fix the parser", "and the tests", "run them", "hi")(pilot)
        meter = pilot.app.chat.meter
        assert meter.level == "high" and meter.has_class("-high")
        text = str(meter.render())
        assert meter.over_limit and "8/8 msgs · ~105k/100k tokens (105%)" in text
        assert text.endswith("  trims on next send")

    app = make_app(Settings(max_history_messages=8), budget_tokens=100_000, extra_tokens=100_300)
    assert snap_compare(app, terminal_size=SIZE, run_before=run)


def test_meter_exact_with_guessed_window(snap_compare, make_app):
    app = make_app(exactness="exact", window_is_guess=True, budget_tokens=26_214)
    assert snap_compare(app, terminal_size=SIZE, run_before=send("hi"))


def _trim_script(prompt: str):
    return [Trim(TRIM), Text("Carrying on with the newest turns.")] if prompt == "go on" else [Text("ok")]


def test_trim_banner_collapsed(snap_compare, make_app):
    assert snap_compare(make_app(script=_trim_script), terminal_size=SIZE, run_before=send("start", "go on"))


async def _expand_the_banner(pilot) -> None:
    """run_before: send a prompt, then open its turn's banner with the keyboard."""
    await send("go on")(pilot)
    banner = pilot.app.chat.query_one("TrimBanner")
    banner.query_one("CollapsibleTitle").focus()
    await pilot.press("enter")
    await wait_until(pilot, lambda: not banner.collapsed, what="banner expanded")
    await pilot.pause()


def test_summary_banner_expanded(snap_compare, make_app):
    def script(prompt: str):
        return [Trim(SUMMARY_TRIM), Text("Continuing from the summary.")]

    assert snap_compare(make_app(script=script), terminal_size=(100, 34), run_before=_expand_the_banner)


def test_summary_banner_with_kept_and_lost(snap_compare, make_app):
    """The banner's details say what the summary kept and lost."""
    from dataclasses import replace

    checked = replace(
        SUMMARY_TRIM,
        summary_kept=["tests/test_parser.py", "parser.py", "read_file", "parse_args"],
        summary_lost=["src/a.py", "docs/b.md", "TokenMeter", "1500"],
    )

    def script(prompt: str):
        return [Trim(checked), Text("Continuing from the summary.")]

    assert snap_compare(make_app(script=script), terminal_size=(100, 34), run_before=_expand_the_banner)


def test_after_compact(snap_compare, make_app):
    async def run(pilot) -> None:
        await send("fix the parser", "and the tests")(pilot)
        await pilot.press("ctrl+k", "ctrl+k")  # twice: compact without the preview question
        await wait_until(pilot, lambda: pilot.app.chat.query("TrimBanner.-compact"), what="compact banner")
        await wait_idle(pilot)

    assert snap_compare(make_app(), terminal_size=SIZE, run_before=run)


def test_compact_preview_dialog(snap_compare, make_app):
    """/compact first shows what it will summarise and the estimated size after."""

    async def run(pilot) -> None:
        await send("fix the parser", "and the tests")(pilot)
        await pilot.press(*"/compact the parser", "enter")
        await wait_until(pilot, lambda: type(pilot.app.screen).__name__ == "ConfirmCompact", what="preview")
        await pilot.pause()

    assert snap_compare(make_app(), terminal_size=SIZE, run_before=run)


def test_clear_dialog(snap_compare, make_app):
    async def run(pilot) -> None:
        await send("fix the parser", "and the tests")(pilot)
        await pilot.press("ctrl+l")
        await dialog_armed(pilot, "ConfirmClear")
        await pilot.pause()

    assert snap_compare(make_app(), terminal_size=SIZE, run_before=run)


def test_after_clear(snap_compare, make_app):
    async def run(pilot) -> None:
        await send("fix the parser")(pilot)
        await pilot.press("ctrl+l")
        await dialog_armed(pilot, "ConfirmClear")
        await pilot.press("y")
        await wait_until(pilot, lambda: pilot.app.chat.query("TrimBanner.-clear"), what="clear banner")
        await pilot.pause()

    assert snap_compare(make_app(), terminal_size=SIZE, run_before=run)


def test_error_block(snap_compare, make_app):
    def script(prompt: str):
        return [Text("Let me check"), Fail("HTTP 503 from anthropic:claude-sonnet-4-5: overloaded (retried 2 times)")]

    assert snap_compare(make_app(script=script), terminal_size=SIZE, run_before=send("hello"))


def test_offline_badge(snap_compare, make_app):
    """The offline model is flagged in the title bar (compare test_online_model_title)."""
    assert snap_compare(make_app(), terminal_size=(80, 12), run_before=send())


def test_online_model_title(snap_compare, make_app):
    app = make_app(model_name="anthropic:claude-sonnet-4-5", is_offline=False)
    assert snap_compare(app, terminal_size=(80, 12), run_before=send())


def test_slash_popup(snap_compare, make_app):
    async def run(pilot) -> None:
        await wait_ready(pilot)
        await pilot.press("/", "c")
        await wait_until(pilot, lambda: pilot.app.chat.query_one("SlashPopup").is_open, what="popup")
        await pilot.pause()

    assert snap_compare(make_app(), terminal_size=SIZE, run_before=run)


def test_unknown_command_hint(snap_compare, make_app):
    async def run(pilot) -> None:
        await wait_ready(pilot)
        await pilot.press(*"/compcat", "escape", "enter")
        await wait_until(pilot, lambda: pilot.app.chat.query_one("#hint").has_class("-shown"), what="hint")

    assert snap_compare(make_app(), terminal_size=SIZE, run_before=run)


def test_palette_open(snap_compare, make_app):
    async def run(pilot) -> None:
        await wait_ready(pilot)
        await pilot.press("ctrl+p")
        await wait_until(pilot, lambda: type(pilot.app.screen).__name__ == "CommandPalette", what="palette")
        # Its search box's cursor blinks every 0.5 s: on a loaded machine the snapshot caught it off
        # (1 run in 5 under a CPU hog). Off, it shows steadily.
        from textual.widgets import Input

        pilot.app.screen.query_one(Input).cursor_blink = False
        await pilot.press("/")
        # The palette searches in a worker after a debounce: wait for the hits, not a fixed time.
        from co_tui.tui.commands import COMMANDS

        # Every command listed (hits may arrive in more than one batch), and the list laid out.
        await wait_until(
            pilot,
            lambda: pilot.app.screen.query("CommandList").first().option_count == len(COMMANDS),
            what="palette hits",
        )
        await pilot.pause()

        def laid_out() -> bool:
            # Every command in view, or as many as the palette's height holds (then it scrolls).
            listed = pilot.app.screen.query("CommandList").first()
            return listed.size.height >= len(COMMANDS) or (listed.size.height > 0 and listed.max_scroll_y > 0)

        await wait_until(pilot, laid_out, what="the palette's list laid out")

    assert snap_compare(make_app(), terminal_size=SIZE, run_before=run)


def test_interrupted_answer(snap_compare, make_app):
    said = "This answer is long and slow and will be stopped T"  # cut mid-word, as a user's esc cuts it

    def script(prompt: str):
        return [Text(said, chunks=10), Hold(), Text("his part is never shown")]

    async def run(pilot) -> None:
        await wait_ready(pilot)
        await pilot.press(*"tell me", "enter")
        await wait_until(
            pilot,
            lambda: said in "".join(m.text for m in pilot.app.chat.query("AssistantMessage")),
            what="the text before the pause",
        )
        assert pilot.app.busy, "the turn holds until escape"
        await pilot.press("escape")
        await wait_idle(pilot)
        answer = pilot.app.chat.query_one("AssistantMessage")
        assert answer.interrupted and answer.text == said
        assert len(pilot.app.chat.query("ErrorBlock.-interrupted")) == 1

    assert snap_compare(make_app(script=script), terminal_size=SIZE, run_before=run)


def test_approve_shell_dialog(snap_compare, make_app):
    async def run(pilot) -> None:
        await wait_ready(pilot)
        pilot.app.run_worker(pilot.app.approvals.approve_shell("pytest -q tests/test_parser.py"))
        await dialog_armed(pilot, "ApprovalDialog")
        await pilot.pause()

    assert snap_compare(make_app(), terminal_size=SIZE, run_before=run)


def test_long_answer_across_segments(snap_compare, make_app, monkeypatch):
    """A streamed answer long enough to continue in new segments reads as one block: one border,
    paragraph spacing kept at each cut, no trailing blank line (segments forced small here)."""
    from co_tui.tui.widgets import assistant_message

    monkeypatch.setattr(assistant_message, "SEGMENT_CHARS", 120)
    paragraphs = [f"Paragraph {n}: the answer goes on with a few more words about step {n}." for n in range(9)]
    text = "## Findings\n\n" + "\n\n".join(paragraphs) + "\n\n- one\n- two"

    def taken_in(sent: str) -> bool:
        """Every chunk sent so far was taken by a flush of the answer's segments (a segment cuts
        only in a flush: at 0.03 s a chunk, a loaded host flushed too seldom to make 3 segments)."""
        segments = list(app.chat.query(assistant_message.AssistantMessage))
        return not any(s._parts for s in segments) and "".join(s._text for s in segments) == sent

    async def run(pilot) -> None:
        await send("explain at length")(pilot)
        answers = list(pilot.app.chat.query("AssistantMessage"))
        assert len(answers) >= 3, "the answer must have been split into segments"
        assert all(a.text.startswith("Paragraph ") for a in answers[1:]), "each cut is at a paragraph"
        assert "".join(a.text for a in answers) == text

    # The scenario: the answer arrives in 40 chunks, each once the app took the one before, so it
    # grows across segments as it streams, the same way on any host.
    app = make_app(script=lambda p: [Text(text, chunks=40, shown=taken_in)])
    assert snap_compare(app, terminal_size=(100, 40), run_before=run)


def _lost_script(prompt: str):
    """Turn 1 mentions src/a.py and docs/b.md; turn 2's summary loses them."""
    from dataclasses import replace

    if prompt != "go on":
        return [Text("Read src/a.py: the retry loop lives there.\nThe design notes are in docs/b.md.")]
    checked = replace(
        SUMMARY_TRIM,
        summary_kept=["tests/test_parser.py", "parser.py", "read_file", "parse_args"],
        summary_lost=["src/a.py", "docs/b.md", "TokenMeter", "1500"],
    )
    return [Trim(checked), Text("Continuing from the summary.")]


async def _press_r_on_the_summary_banner(pilot) -> None:
    await send("start", "go on")(pilot)
    session = pilot.app.session
    session.history.set_context(session.context[-2:])  # what the summary replaced leaves (the fake does not cut)
    pilot.app.chat.query_one("TrimBanner").query_one("CollapsibleTitle").focus()
    await pilot.press("r")
    await wait_until(pilot, lambda: type(pilot.app.screen).__name__ == "RecoverLostScreen", what="the picker")
    await pilot.pause()


def test_recover_lost_item_picker(snap_compare, make_app):
    """`r` on a summary banner with lost items: the picker of what to bring back."""
    assert snap_compare(
        make_app(script=_lost_script), terminal_size=(100, 34), run_before=_press_r_on_the_summary_banner
    )


def test_recovered_item_banner(snap_compare, make_app):
    """Enter in the picker: the banner of the recovery, opened, shows the verbatim excerpt."""

    async def run(pilot) -> None:
        await _press_r_on_the_summary_banner(pilot)
        await pilot.press("enter")
        await wait_until(pilot, lambda: pilot.app.chat.query("TrimBanner.-restore"), what="the recovery banner")
        await wait_idle(pilot)
        banner = pilot.app.chat.query_one("TrimBanner.-restore")
        banner.query_one("CollapsibleTitle").focus()
        await pilot.press("enter")
        await wait_until(pilot, lambda: not banner.collapsed, what="banner expanded")
        await pilot.pause()

    assert snap_compare(make_app(script=_lost_script), terminal_size=(100, 40), run_before=run)


def test_scrolled_up_new_output_below(snap_compare, make_app):
    """Scrolled up with the wheel while an answer runs, output arrives below (here the line an
    interrupted turn ends with): the chat stays where the user is and says so."""

    def script(prompt: str):
        return [Text("Let me think about it."), Hold()] if prompt == "hold on" else tool_script(prompt)

    async def run(pilot) -> None:
        from textual import events

        await send("what is in the readme?", "and again?")(pilot)
        app = pilot.app
        await pilot.press(*"hold on", "enter")
        await wait_until(pilot, lambda: app.chat.query("AssistantMessage").last().text, what="the answer begun")
        log = app.chat.log_view
        x, y = log.region.x + 10, log.region.y + 5
        for _ in range(3):
            app.post_message(events.MouseScrollUp(None, x, y, 0, 0, 0, False, False, False, screen_x=x, screen_y=y))
            await pilot.pause()
        await pilot.press("escape")
        await wait_idle(pilot)
        await wait_until(pilot, lambda: app.chat.query_one("#below-hint").has_class("-new"), what="the hint")
        await pilot.pause()

    assert snap_compare(make_app(script=script), terminal_size=SIZE, run_before=run)


def test_ctrl_c_cleared_the_prompt(snap_compare, make_app):
    """Ctrl+C with text in the prompt: cleared, and the hint says a second press quits."""

    async def run(pilot) -> None:
        await send("hello")(pilot)
        await pilot.press(*"a half-typed thought", "ctrl+c")
        await wait_until(pilot, lambda: "again quits" in str(pilot.app.chat.query_one("#hint").render()), what="hint")

    assert snap_compare(make_app(), terminal_size=SIZE, run_before=run)

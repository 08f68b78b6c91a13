"""`compact_mode = "ask"` in the TUI, on the real session (offline model, SQLite store): a send
that would cut stops before anything is sent and shows the planned cut; each answer is carried out
and the figures after it are the session's (docs/context-governance.md, "Compact mode")."""

from __future__ import annotations

from pathlib import Path

import pytest
from pilot_helpers import dialog_armed, inspector_loaded, paste, wait_idle, wait_ready, wait_until
from quiet_app import QuietApp

from co_tui.config import load_settings
from co_tui.text import format_tokens

SIZE = (100, 40)
AUTOMATIC = ("token_budget", "message_count")


@pytest.fixture
def ask_app(workspace: Path) -> QuietApp:
    """The real session in compact_mode ask; the message limit (8) is what the sends pass."""
    return QuietApp(load_settings(compact_mode="ask", max_history_messages=8), workspace)


async def _fill(pilot, turns: int = 4) -> None:
    """Send `turns` prompts (two messages each), none of which needs a cut."""
    await wait_ready(pilot)
    for i in range(turns):
        await paste(pilot, f"note {i}")
        await pilot.press("enter")
        await wait_idle(pilot)
    assert pilot.app.screen.__class__.__name__ == "ChatScreen"


async def _ask(pilot, prompt: str = "and now?"):
    """Send `prompt`; wait for the ask dialog over the chat. Returns it."""
    from co_tui.tui.screens.ask_cut import AskCutScreen

    await paste(pilot, prompt)
    await pilot.press("enter")
    await wait_until(pilot, lambda: isinstance(pilot.app.screen, AskCutScreen), what="the ask dialog")
    await dialog_armed(pilot, "AskCutScreen")
    return pilot.app.screen


def _body(screen) -> str:
    """The planned cut as shown: the prompt line, then one `label  text` line per row of the table."""
    cells = [str(cell.render()) for cell in screen.query("#ask-plan > Static")]
    rows = [f"{label}  {text}" for label, text in zip(cells[::2], cells[1::2], strict=True)]
    return "\n".join([str(screen.query_one("#ask-prompt").render()), *rows])


def _cuts(app) -> list:
    return [e for e in app.session.ledger if e.reason in AUTOMATIC]


async def test_the_dialog_shows_the_planned_cut_and_nothing_is_sent_then_c_cuts_as_planned_and_sends(ask_app):
    """The question, then its first answer, on one filled session (four turns of the offline model)."""
    async with ask_app.run_test(size=SIZE) as pilot:
        await _fill(pilot)
        session = ask_app.session
        transcript = len(session.transcript)
        plan = session.plan_send("and now?")
        screen = await _ask(pilot)
        assert len(session.transcript) == transcript and not ask_app.busy, "stopped before sending"
        assert ask_app.chat.prompt.text == "", "the prompt left the input with the send"
        title = str(screen.query_one("#dialog-title").render())
        assert title == "This send would summarise the context first (past its message limit)"
        body = _body(screen)
        lines = body.splitlines()
        assert lines[0] == "Your prompt, not sent yet: “and now?”"
        assert lines[1] == (
            f"Goes  {plan.going_messages} messages ({plan.going_turns} turns) summarised into one recap: "
            "“note 1” · “note 2” · “note 3”"
        )
        assert lines[2] == "Stays  1 turn and your prompt: “note 0”"
        after = format_tokens(plan.tokens_after)
        assert lines[3] == f"Tokens  ~{format_tokens(plan.tokens_before)} now → ~{after} after the cut"
        assert lines[4] == f"Limits  budget {format_tokens(plan.budget_tokens)} · window 32k"
        fresh, cached = format_tokens(plan.fresh_tokens), format_tokens(plan.cached_tokens)
        assert lines[5] == f"Cache  ~{fresh} read afresh once, ~{cached} still cached (uncut: ~8 new)"
        assert plan.cached_tokens > 1000, "the instructions and the kept head turn stay cached"
        assert lines[6] == f"Summary  the summariser reads ~{format_tokens(plan.summarised_tokens)} tokens"
        compact = session.compact_preview()  # the /compact answer gives its dialog's estimate, plus the prompt
        assert plan.compact_tokens_after == compact.tokens_after + plan.uncut_fresh_tokens
        options = [str(option.prompt) for option in screen.query_one("#ask-choices").options]
        assert (
            options[1]
            == f"k  /compact with the focus below (~{format_tokens(plan.compact_tokens_after)} after), then send"
        )

        # Cut as planned: it cuts, then sends.
        await pilot.press("c")
        await wait_idle(pilot)
        [cut] = _cuts(ask_app)
        assert cut.reason == "message_count" and cut.dropped_turns == plan.going_turns
        assert session.title == "note 0" and session.transcript[-2].parts[0].content == "and now?"
        banners = ask_app.chat.query("TrimBanner")
        assert len(banners) == 1, "the cut's banner is in the chat"
        # The banner's figures are the ones the dialog announced: the same request before, and after
        # at most the estimate (it counts the summary at the longest it may be).
        assert (cut.tokens_before, cut.budget_tokens) == (plan.tokens_before, plan.budget_tokens)
        assert cut.tokens_after <= plan.tokens_after, (cut.tokens_after, plan.tokens_after)
        assert session.meter_reading().messages == 5, "the head turn, the summary, the prompt and its answer"


async def test_esc_or_ctrl_c_cancels_the_send_and_the_prompt_goes_back(ask_app):
    """Either key cancels (ctrl+c did nothing in the dialog). Both on one filled session: the prompt
    the first cancel put back in the input is sent again, and the second key cancels that."""
    from co_tui.tui.screens.ask_cut import AskCutScreen

    async with ask_app.run_test(size=SIZE) as pilot:
        await _fill(pilot)
        session = ask_app.session
        before = (len(session.transcript), list(session.context), len(session.ledger))
        await _ask(pilot, "keep this prompt")
        for cancels, key in enumerate(["escape", "ctrl+c"], start=1):
            if cancels > 1:  # the prompt put back, sent again
                await pilot.press("enter")
                await wait_until(pilot, lambda: isinstance(ask_app.screen, AskCutScreen), what="the ask dialog")
                await dialog_armed(pilot, "AskCutScreen")
            await pilot.press(key)
            await wait_until(pilot, lambda: ask_app.chat.prompt.text == "keep this prompt", what="the prompt back")
            await wait_idle(pilot)
            assert (len(session.transcript), list(session.context), len(session.ledger)) == before, key
            notices = [n.text for n in ask_app.chat.query("NoticeLine")]
            cancelled = "send cancelled: nothing was cut or sent; your prompt is back in the input"
            assert notices[-1] == cancelled and notices.count(cancelled) == cancels, key


async def test_over_the_budget_once_sends_uncut_and_the_next_send_asks_again(ask_app):
    from co_tui.tui.screens.ask_cut import AskCutScreen

    async with ask_app.run_test(size=SIZE) as pilot:
        await _fill(pilot)
        session = ask_app.session
        await _ask(pilot)
        await pilot.press("o")
        await wait_idle(pilot)
        assert not _cuts(ask_app) and len(session.context) == 10, "sent whole, over the limit"
        notices = [n.text for n in ask_app.chat.query("NoticeLine")]
        [trace] = [n for n in notices if n.startswith("sent over the budget once, as you chose: ~")]
        assert trace.endswith("budget; nothing was cut (the next send asks again)"), (
            "a trace in the chat (issue 43 item 9)"
        )
        reading = session.meter_reading()
        assert reading.trim_pending and reading.asks_first
        assert "asks before next send" in str(ask_app.chat.meter.render())
        await _ask(pilot, "again?")
        assert isinstance(ask_app.screen, AskCutScreen)


async def test_letters_typed_in_a_burst_go_to_the_prompt_not_to_the_dialog(ask_app):
    """`hello` typed on while the question is up: its letters go to the prompt and each re-arms the
    dialog, so its `o` sends nothing over the budget (issue 43 item 9). A key on its own answers."""
    async with ask_app.run_test(size=SIZE) as pilot:
        await _fill(pilot)
        session = ask_app.session
        dialog = await _ask(pilot)
        await pilot.press(*"hello")
        assert ask_app.screen is dialog and not dialog.armed, "re-armed, not answered"
        assert ask_app.chat.prompt.text == "hello"
        assert len(session.transcript) == 8, "nothing sent"
        await dialog_armed(pilot, "AskCutScreen")
        await pilot.press("c")
        await wait_idle(pilot)
        assert session.transcript[-2].parts[0].content == "and now?" and _cuts(ask_app)
        assert ask_app.chat.prompt.text == "hello", "what was typed for the prompt stays there"


async def test_compact_with_a_focus_then_sends(ask_app):
    async with ask_app.run_test(size=SIZE) as pilot:
        await _fill(pilot)
        session = ask_app.session
        plan = session.plan_send("and now?")
        await _ask(pilot)
        await pilot.press("tab", *"note 2", "enter")  # the focus field; Enter there compacts
        await wait_until(pilot, lambda: session.transcript[-2:] and len(session.transcript) == 10, what="the send")
        await wait_idle(pilot)
        [compact] = list(session.ledger)
        assert compact.reason == "manual_compact"
        assert "/compact focus" in (compact.summary_instructions or [])
        assert compact.tokens_after + plan.uncut_fresh_tokens <= plan.compact_tokens_after, "at most the estimate"
        assert not _cuts(ask_app), "no automatic cut after the compaction"
        assert session.transcript[-2].parts[0].content == "and now?"
        assert session.plan_send("next") is None


async def test_inspect_then_the_question_comes_back_with_new_figures(ask_app):
    from co_tui.tui.screens.ask_cut import AskCutScreen
    from co_tui.tui.screens.history import HistoryScreen

    async with ask_app.run_test(size=SIZE) as pilot:
        await _fill(pilot)
        session = ask_app.session
        await _ask(pilot, "over once")
        await pilot.press("o")  # ten messages: a pinned turn leaves the rest still past the limit
        await wait_idle(pilot)
        first = await _ask(pilot)
        going = session.plan_send("and now?").going_prompts
        assert "note 1" in going and "1 pinned" not in _body(first)
        await pilot.press("i")
        await wait_until(pilot, lambda: isinstance(ask_app.screen, HistoryScreen), what="the inspector")
        await inspector_loaded(pilot)
        await ask_app.steering.toggle_pin(2)  # pin "note 1", as `p` on its row does
        await pilot.press("escape")
        await wait_until(
            pilot,
            lambda: isinstance(ask_app.screen, AskCutScreen) and ask_app.screen is not first,
            what="the question again",
        )
        await dialog_armed(pilot, "AskCutScreen")
        assert "1 pinned" in _body(ask_app.screen) and list(session.pins) == [2]
        assert "“note 1”" not in _body(ask_app.screen).split("Stays")[0], "the pinned turn no longer goes"
        assert len(session.transcript) == 10, "still nothing sent"
        await pilot.press("c")
        await wait_idle(pilot)
        assert session.transcript[-2].parts[0].content == "and now?"
        assert any("note 1" in str(m) for m in session.context), "the pinned turn stayed"
        assert _cuts(ask_app), "cut as planned"


async def test_inspect_then_no_cut_needed_sends(ask_app):
    from co_tui.tui.screens.history import HistoryScreen

    async with ask_app.run_test(size=SIZE) as pilot:
        await _fill(pilot)
        session = ask_app.session
        await _ask(pilot)
        await pilot.press("i")
        await wait_until(pilot, lambda: isinstance(ask_app.screen, HistoryScreen), what="the inspector")
        await inspector_loaded(pilot)
        await ask_app.steering.evict(0)  # the oldest turn leaves, as `d` on its row does
        await ask_app.steering.evict(1)
        await pilot.press("escape")
        await wait_until(pilot, lambda: len(session.transcript) == 10, what="the prompt sent")
        await wait_idle(pilot)
        notices = [n.text for n in ask_app.chat.query("NoticeLine")]
        assert "no cut is needed any more: sending your prompt" in notices
        assert not _cuts(ask_app)


async def test_over_the_budget_past_the_window_is_refused_in_one_line(make_app):
    """The fake's window is 5/4 of its budget and its meter counts 400 tokens a message on top of
    1,500 of overhead: nine messages are past it, so the dialog refuses to send over the budget
    and stays."""
    from co_tui.config import Settings
    from co_tui.tui.screens.ask_cut import AskCutScreen

    app = make_app(Settings(max_history_messages=8, compact_mode="ask"), budget_tokens=2_000)
    async with app.run_test(size=SIZE) as pilot:
        await _fill(pilot)
        screen = await _ask(pilot)
        await pilot.press("o")
        line = screen.query_one("#ask-line")
        await wait_until(pilot, lambda: line.has_class("-refused"), what="the refusal")
        text = str(line.render())
        assert text == "~5.1k tokens would pass the 2.5k window: not sent over the budget"
        assert "\n" not in text and isinstance(app.screen, AskCutScreen)
        await pilot.press("c")
        await wait_idle(pilot)
        assert app.session.choices[-1] == "cut"


async def test_enter_on_the_compact_answer_compacts_without_a_focus(ask_app):
    async with ask_app.run_test(size=SIZE) as pilot:
        await _fill(pilot)
        session = ask_app.session
        await _ask(pilot)
        await pilot.press("down", "enter")  # the second answer, highlighted: /compact
        await wait_until(pilot, lambda: len(session.transcript) == 10, what="the send after the compaction")
        await wait_idle(pilot)
        [compact] = list(session.ledger)
        assert compact.reason == "manual_compact" and "/compact focus" not in (compact.summary_instructions or [])
        assert session.transcript[-2].parts[0].content == "and now?"


async def test_a_prompt_sent_while_asked_waits_and_is_asked_about_in_turn(ask_app):
    """A prompt that arrives while a send's cut is asked (queued before the dialog, or a paste) waits
    in the queue; once the first send is answered and done, the second one is planned and asked too."""
    from co_tui.tui.screens.ask_cut import AskCutScreen

    async with ask_app.run_test(size=SIZE) as pilot:
        await _fill(pilot)
        session = ask_app.session
        first = await _ask(pilot, "first")
        await ask_app.controller.send("second")
        assert ask_app.controller.queued == ["second"] and len(session.transcript) == 8
        await pilot.press("o")  # the first goes out over the budget, then the second is asked about
        await wait_until(
            pilot,
            lambda: isinstance(ask_app.screen, AskCutScreen) and ask_app.screen is not first,
            what="the second question",
        )
        assert ask_app.screen.prompt == "second" and ask_app.controller.queued == []
        assert session.transcript[-2].parts[0].content == "first"
        await pilot.press("escape")
        await wait_until(pilot, lambda: ask_app.chat.prompt.text == "second", what="the second prompt back")
        assert len(session.transcript) == 10


async def test_a_cut_that_only_shortens_outputs_says_so_without_an_empty_message_count(workspace: Path):
    """Over the token budget with old tool outputs to shorten, no message leaves: the Goes row names
    the outputs alone (it read `0 messages (0 turns)2 old tool outputs shortened`)."""
    for i in (1, 2):
        (workspace / f"f{i}.txt").write_text("".join(f"line {i}-{n}\n" for n in range(200)))
    app = QuietApp(load_settings(compact_mode="ask", context_budget_tokens=3000), workspace)
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(pilot)
        for i in (1, 2):
            await paste(pilot, f"read f{i}.txt")
            await pilot.press("enter")
            await wait_idle(pilot)
        plan = app.session.plan_send("and now?")
        assert plan is not None and plan.going_messages == 0 and plan.shortened == 2, plan
        screen = await _ask(pilot)
        assert _body(screen).splitlines()[1] == "Goes  2 old tool outputs shortened"
        await pilot.press("escape")

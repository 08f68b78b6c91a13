"""Every key and slash command, driven through the real CoTuiApp + ChatSession + offline model.

No fakes here: the session is built by `open_session` (real SQLite store in the temp
CO_TUI_DATA_DIR of the autouse fixture), the model is the built-in offline one. An answer that must
still be running when a key lands is held open by CO_TUI_OFFLINE_HOLD (a file never made).
"""

from __future__ import annotations

import json
from contextlib import asynccontextmanager

import pytest
from pilot_helpers import dialog_armed, send_prompt, wait_idle, wait_ready, wait_until

from co_tui.session.banner import banner_line

SIZE = (100, 30)


@pytest.fixture
def app(real_app):
    return real_app


def screen_name(pilot) -> str:
    return type(pilot.app.screen).__name__


def banners(pilot, kind: str) -> list[str]:
    """The one-line text of every trim banner of `kind` (compact / clear / trim) in the log."""
    return [banner_line(b.event) for b in pilot.app.chat.query(f"TrimBanner.-{kind}")]


async def send_nowait(pilot, text: str) -> None:
    """Type `text` and press enter without waiting for the turn (pilot.press would wait for it)."""
    await pilot.press(*text)
    pilot.app.simulate_key("enter")
    await wait_until(pilot, lambda: pilot.app.busy, what="turn started")


def answers(pilot) -> list:
    return list(pilot.app.chat.query("AssistantMessage"))


async def next_turn_works(pilot) -> None:
    """After an interrupt: a fresh prompt gets a full, uninterrupted answer and no new error."""
    errors_before = len(pilot.app.chat.query("ErrorBlock"))
    await send_prompt(pilot, "hello")
    last = answers(pilot)[-1]
    assert last.text and not last.interrupted
    assert len(pilot.app.chat.query("ErrorBlock")) == errors_before


@asynccontextmanager
async def after_one_turn(app):
    """The running app's pilot, after one finished "hello" turn."""
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(pilot)
        await send_prompt(pilot, "hello")
        yield pilot


async def press_or_type(pilot, how: str) -> None:
    """A key (`ctrl+k`) or a slash command line (`/compact focus`, sent with enter)."""
    if how.startswith("/"):
        await send_prompt(pilot, how)
    else:
        await pilot.press(how)


# --- compact and clear: key and command ------------------------------------------------------------


@pytest.mark.parametrize("how", ["ctrl+k", "/compact the greeting"])
async def test_compact(app, how):
    async with after_one_turn(app) as pilot:
        before = len(app.session.transcript)
        await press_or_type(pilot, how)
        # It first shows what it will summarise and the estimated size after.
        await wait_until(pilot, lambda: screen_name(pilot) == "ConfirmCompact", what="compact preview")
        body = str(pilot.app.screen.query_one("#dialog-body").render())
        assert "2 messages (1 turn" in body and "Estimated size after" in body
        await pilot.press("enter")
        await wait_until(pilot, lambda: banners(pilot, "compact"), what="compact banner")
        await wait_idle(pilot)
        assert banners(pilot, "compact")[0].startswith("✂ Conversation compacted")
        assert app.session.ledger[-1].reason == "manual_compact"
        assert len(app.session.transcript) == before  # the transcript keeps everything


async def test_compact_twice_skips_the_question_and_esc_cancels(app):
    async with after_one_turn(app) as pilot:
        await pilot.press("ctrl+k")
        await wait_until(pilot, lambda: screen_name(pilot) == "ConfirmCompact", what="compact preview")
        await pilot.press("escape")
        await wait_until(pilot, lambda: screen_name(pilot) != "ConfirmCompact", what="dialog closed")
        await wait_idle(pilot)
        assert not app.session.ledger and not banners(pilot, "compact")
        await pilot.press("ctrl+k", "ctrl+k")
        await wait_until(pilot, lambda: banners(pilot, "compact"), what="compact banner")
        await wait_idle(pilot)
        assert [e.reason for e in app.session.ledger] == ["manual_compact"]


async def test_a_y_typed_right_after_the_clear_dialog_opens_goes_to_the_prompt(app, monkeypatch):
    """The clear dialog's `y` arms a moment after it is shown (screens/arming.py): typed on at
    once, it is prompt text and the conversation stays. (The arming is made long here.)"""
    from co_tui.tui.screens import arming

    monkeypatch.setattr(arming, "ARMING_S", 3600)
    async with after_one_turn(app) as pilot:
        old_id = app.session.id
        await pilot.press("ctrl+l")
        await wait_until(pilot, lambda: screen_name(pilot) == "ConfirmClear", what="confirm dialog")
        await pilot.press("y", "enter")
        await pilot.pause()
        assert screen_name(pilot) == "ConfirmClear" and not pilot.app.screen.armed
        assert app.chat.prompt.text == "y"
        assert app.session.id == old_id and not banners(pilot, "clear")


# ctrl+c keeps, as n does (it did nothing: Textual's screen default copies, silently). The answers
# that keep go first, on the session they keep, then the clear (ctrl+l: each on its own dialog).
@pytest.mark.parametrize(("how", "answers_in_turn"), [("ctrl+l", ["n", "ctrl+c", "y"]), ("/clear", ["y"])])
async def test_clear_asks_first(app, how, answers_in_turn):
    async with after_one_turn(app) as pilot:
        old_id, context = app.session.id, list(app.session.context)
        for answer in answers_in_turn:
            await press_or_type(pilot, how)
            await dialog_armed(pilot, "ConfirmClear")
            await pilot.press(answer)
            await wait_until(pilot, lambda: screen_name(pilot) == "ChatScreen", what="dialog closed")
            await wait_idle(pilot)
            if answer == "y":
                assert banners(pilot, "clear")
                assert app.session.context == [] and app.session.id != old_id
                assert not app.chat.query("UserMessage") and not answers(pilot)
            else:
                assert not banners(pilot, "clear"), answer
                assert app.session.context == context and app.session.id == old_id, answer
                assert [m.text for m in app.chat.query("UserMessage")] == ["hello"], answer


# --- screens, interrupts ---------------------------------------------------------------------------


async def test_key_opens_screen(app):
    """Each key opens its screen and escape closes it, one after the other on one session."""
    async with after_one_turn(app) as pilot:
        for key, screen in [("f2", "HistoryScreen"), ("f1", "HelpScreen"), ("ctrl+p", "CommandPalette")]:
            await pilot.press(key)
            await wait_until(pilot, lambda screen=screen: screen_name(pilot) == screen, what=screen)
            await pilot.press("escape")
            await wait_until(pilot, lambda: screen_name(pilot) == "ChatScreen", what=f"back to the chat from {screen}")


async def test_escape_interrupts_mid_stream(app, monkeypatch, tmp_path):
    # The answer is held open (a file never made) until Esc: a slow model raced the clock.
    monkeypatch.setenv("CO_TUI_OFFLINE_HOLD", str(tmp_path / "never"))
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(pilot)
        await send_nowait(pilot, "hello")
        await wait_until(pilot, lambda: answers(pilot) and answers(pilot)[0].text, what="first words")
        await pilot.press("escape")
        await wait_idle(pilot)
        answer = answers(pilot)[0]
        assert answer.interrupted and answer.text  # the partial answer stays, marked
        # The interruption is said once: one error block, no second line inside the answer.
        assert len(app.chat.query("ErrorBlock.-interrupted")) == 1
        assert not answer.query("Label")
        monkeypatch.delenv("CO_TUI_OFFLINE_HOLD")
        await next_turn_works(pilot)


async def test_escape_interrupts_mid_tool_call(app, monkeypatch, tmp_path):
    # The answer after the call is held open (a file never made): escape lands while the turn is
    # between the call and the end of its answer, whatever the load.
    monkeypatch.setenv("CO_TUI_OFFLINE_HOLD", str(tmp_path / "never"))
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(pilot)
        await send_nowait(pilot, "read README.md")
        await wait_until(pilot, lambda: app.chat.query("ToolCallBlock"), what="tool call block")
        await pilot.press("escape")
        await wait_idle(pilot)
        block = app.chat.query_one("ToolCallBlock")
        assert block.tool_name == "read_file" and block.status in ("done", "interrupted")
        assert len(app.chat.query("ErrorBlock.-interrupted")) == 1
        monkeypatch.delenv("CO_TUI_OFFLINE_HOLD")
        await next_turn_works(pilot)


# --- slash commands --------------------------------------------------------------------------------


async def test_slash_opens_screen(app):
    """Each command opens its screen (escape closes it before the next), on one fresh session."""
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(pilot)
        for line, screen in [("/history", "HistoryScreen"), ("/help", "HelpScreen")]:
            await send_prompt(pilot, line)
            await wait_until(pilot, lambda screen=screen: screen_name(pilot) == screen, what=screen)
            await pilot.press("escape")
            await wait_until(pilot, lambda: screen_name(pilot) == "ChatScreen", what=f"back to the chat from {screen}")


async def test_slash_model_shows_and_switches(app):
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(pilot)

        def notices() -> list[str]:
            return [n.text for n in app.chat.query("NoticeLine")]

        await send_prompt(pilot, "/model")
        assert any(text.startswith("Model: offline") for text in notices())
        await send_prompt(pilot, "/model offline")
        await wait_until(pilot, lambda: "Model switched to offline" in notices(), what="switch notice")
        assert app.session.model_name == "offline" and app.chat.title_bar.offline


async def test_unknown_command_hints_closest(app):
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(pilot)
        await pilot.press(*"/compcat", "escape", "enter")  # escape closes the (empty) popup
        hint = app.chat.query_one("#hint")
        await wait_until(pilot, lambda: hint.has_class("-shown"), what="hint")
        assert "did you mean /compact" in str(hint.render())
        assert not app.session.ledger  # nothing ran


async def test_slash_popup_appears_on_slash(app):
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(pilot)
        popup = app.chat.query_one("SlashPopup")
        assert not popup.is_open
        await pilot.press("/")
        await wait_until(pilot, lambda: popup.is_open, what="popup")
        assert popup.option_count >= 7  # every command of the registry
        await pilot.press("h", "e")
        await wait_until(pilot, lambda: popup.option_count == 1, what="filtered to /help")


async def test_fast_typing_runs_the_command_typed_not_the_stale_pick(app):
    """Keys that arrive together (a paste, a busy machine) reach the prompt before its `Changed`
    messages: Enter must run `/help` as typed, not the popup's pick for `/` (which is /compact)."""
    from textual import events

    async with after_one_turn(app) as pilot:
        popup = app.chat.query_one("SlashPopup")
        await pilot.press("/")
        await wait_until(pilot, lambda: popup.is_open, what="popup")
        assert popup.selected.name == "compact"
        for char in "help":
            app.post_message(events.Key(char, char))
        app.post_message(events.Key("enter", "\r"))
        await wait_until(pilot, lambda: screen_name(pilot) == "HelpScreen", what="help")
        assert not banners(pilot, "compact") and app.session.ledger == []


async def test_escape_closes_the_popup_until_the_text_changes(app):
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(pilot)
        popup = app.chat.query_one("SlashPopup")
        await pilot.press("/", "h", "e")
        await wait_until(pilot, lambda: popup.is_open, what="popup")
        await pilot.press("escape")
        assert not popup.is_open
        await pilot.press("enter")  # sends `/he` as typed: no pick, an inline hint
        hint = app.chat.query_one("#hint")
        await wait_until(pilot, lambda: hint.has_class("-shown"), what="hint")
        assert "did you mean /help" in str(hint.render()) and screen_name(pilot) == "ChatScreen"


async def test_slash_export_writes_where_it_says(app, workspace):
    async with after_one_turn(app) as pilot:

        def last_notice() -> str:
            return app.chat.query("NoticeLine").last().text

        async def export(args: str, outcome) -> None:  # the file is written in a thread: wait for its line
            await send_prompt(pilot, f"/export{args}")
            await wait_until(pilot, outcome, what=f"/export{args}")

        exports = app.settings.resolved_data_dir / "exports"  # by default there, not in the workspace
        md = exports / f"co-tui-{app.session.id[:8]}.md"
        await export("", lambda: last_notice().startswith("Exported"))
        assert last_notice() == f"Exported md to {md}" and "hello" in md.read_text()
        assert oct(md.stat().st_mode & 0o777) == "0o600" and not list(workspace.glob("co-tui-*"))
        second = exports / md.name.replace(".md", "-2.md")
        await export("", lambda: last_notice() == f"Exported md to {second}")  # again: a new file, the first kept

        await export(" json out/session.json", lambda: bool(app.chat.query("ErrorBlock")))  # a missing directory
        error = app.chat.query("ErrorBlock").last()
        assert error.kind == "storage" and error.message.startswith("export failed:")
        assert "\n" not in error.message and not (workspace / "out").exists()

        await export(" json saved.json", lambda: "json" in last_notice())
        data = json.loads((workspace / "saved.json").read_text())
        assert data and last_notice() == f"Exported json to {workspace / 'saved.json'}"
        errors = len(app.chat.query("ErrorBlock"))
        hint = app.chat.query_one("#hint")
        await export(" json saved.json", lambda: hint.has_class("-shown"))  # exists: refused in one line
        assert str(hint.render()) == "export refused: saved.json exists (nothing was overwritten) — give another path"
        assert len(app.chat.query("ErrorBlock")) == errors, "no storage-error block: the path was taken"
        assert json.loads((workspace / "saved.json").read_text()) == data

        await export(" pdf", lambda: "unknown export format" in str(app.chat.query_one("#hint").render()))
        assert "unknown export format 'pdf'" in str(app.chat.query_one("#hint").render())


async def test_keys_echo_while_a_turn_is_being_saved(app, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every save (an fsync) runs off the UI loop, the step checkpoints a turn makes as it goes
    included: a store held mid-save still lets typed keys show."""
    import threading

    from co_tui.store.session_store import SessionStore

    entered, release, saving, held_the_loop = threading.Event(), threading.Event(), [False], []
    save_history = SessionStore.save_history  # the session's one save

    def slow_save(self, *args, **kwargs):
        saving[0] = True
        entered.set()
        try:
            # On the UI loop this wait would hold every key, and the test's release, until it gives up.
            if not release.wait(20):
                held_the_loop.append(True)
            return save_history(self, *args, **kwargs)
        finally:
            saving[0] = False

    monkeypatch.setattr(SessionStore, "save_history", slow_save)
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(pilot)
        pilot.app.chat.prompt.load_text("hello")
        pilot.app.simulate_key("enter")
        await wait_until(pilot, entered.is_set, what="the save to start")
        await pilot.press("a", "b", "c")
        await wait_until(pilot, lambda: pilot.app.chat.prompt.text == "abc", what="the keys to echo")
        assert saving[0], "the keys showed while the save was still running"
        assert pilot.app.busy
        release.set()
        await wait_idle(pilot)
        assert not saving[0]
        assert not held_the_loop, "a save ran on the UI loop (the turn's first step checkpoint did)"
        assert pilot.app.session.store.load(pilot.app.session.id).transcript, "the turn was saved"


async def test_a_command_nothing_is_close_to_gets_no_wrong_guess(app):
    """`/edit` was answered `did you mean /quit?` (two shared letters) (issue 32, item 9)."""
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(pilot)
        await pilot.press(*"/edit", "escape", "enter")
        hint = app.chat.query_one("#hint")
        await wait_until(pilot, lambda: hint.has_class("-shown"), what="hint")
        assert "/edit" in str(hint.render()) and "did you mean" not in str(hint.render())
        assert app.is_running


async def test_a_model_that_cannot_start_names_the_tui_command_not_the_flag(real_app, monkeypatch):
    """In the TUI, `/model openai:gpt-5` without a key said `choose --model offline`, a flag of the
    command line (issue 32, item 9)."""
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    async with real_app.run_test(size=SIZE) as pilot:
        await wait_ready(pilot)
        await pilot.press(*"/model openai:gpt-5", "enter")
        hint = real_app.chat.query_one("#hint")
        await wait_until(pilot, lambda: "OPENAI_API_KEY" in str(hint.render()), what="the hint")
        assert "/model offline" in str(hint.render()) and "--model" not in str(hint.render())
        assert real_app.session.model_name == "offline"


async def test_slash_compact_mode_switches_for_the_session_and_says_so(app):
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(pilot)

        def notices() -> list[str]:
            return [n.text for n in app.chat.query("NoticeLine")]

        assert app.session.compact_mode == "auto"
        await send_prompt(pilot, "/compact-mode off")
        await wait_until(pilot, lambda: app.session.compact_mode == "off", what="mode off")
        assert notices()[-1].startswith("compact_mode off for this session: never cuts automatically")
        await send_prompt(pilot, "/compact-mode")  # no argument (the palette): the next mode
        await wait_until(pilot, lambda: app.session.compact_mode == "auto", what="mode auto")
        assert notices()[-1].startswith("compact_mode auto for this session")
        assert notices()[-1].endswith(" · was off: /compact-mode off goes back"), "a bare switch says the way back"
        await send_prompt(pilot, "/compact-mode")
        await wait_until(pilot, lambda: app.session.compact_mode == "ask", what="mode ask")
        assert notices()[-1].startswith("compact_mode ask for this session: asks before a send that would cut")
        await send_prompt(pilot, "/compact-mode auto")
        await wait_until(pilot, lambda: app.session.compact_mode == "auto", what="mode auto again")
        assert "goes back" not in notices()[-1], "a mode named is what was asked for"
        await send_prompt(pilot, "/compact-mode sometimes")
        hint = app.chat.query_one("#hint")
        await wait_until(pilot, lambda: hint.has_class("-shown"), what="hint")
        assert "'sometimes' is not a mode — auto, ask or off" in str(hint.render())
        assert app.session.compact_mode == "auto"

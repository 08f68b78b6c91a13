"""Surrogates from the wire (issue 40, item 3): an emoji split across two stream chunks (`"smile
\\ud83d"` then `"\\ude00 end"` in the JSON) or a lone surrogate in tool arguments, through the real
OpenAI client, a real SQLite file and the real command. Nothing is lost: the pair is recombined,
a lone one becomes U+FFFD, every save succeeds and the next prompt works."""

from __future__ import annotations

import json
from pathlib import Path

from support.turns import collect, of_type

from co_tui.store.session_store import SessionStore

from .harness import co_tui, provider_env, session, text_of
from .loopback import LoopbackServer, Reply, ToolCallSpec

# 14 characters in 2 chunks of 7: the JSON of the first ends in `\ud83d`, of the second starts `\ude00`.
SPLIT_EMOJI = Reply("smile \ud83d\ude00 end!!", chunks=2)
# A lone high surrogate in a tool call's JSON arguments (json.dumps writes it as `\ud83d`).
LONE_IN_ARGS = Reply(tool_calls=(ToolCallSpec("list_dir", {"path": ".", "note": "x\ud83dy"}),))


async def test_split_emoji_is_recombined_saved_and_the_next_prompt_works(env: LoopbackServer, tmp_path: Path) -> None:
    store = SessionStore.open(tmp_path / "data")
    try:
        chat = session(tmp_path, store=store)
        env.script(SPLIT_EMOJI)
        events = await collect(chat.run_turn("say smile"))
        assert not of_type(events, "error"), events
        assert text_of(events) == "smile 😀 end!!"
        env.script(Reply("second answer"))
        events = await collect(chat.run_turn("again"))
        assert not of_type(events, "error"), events
        assert text_of(events) == "second answer"
        assert not chat.unsaved()
        loaded = store.load(chat.id)
        texts = json.dumps([m.parts[0].content for m in loaded.transcript if m.kind == "response"], ensure_ascii=False)
        assert "smile 😀 end!!" in texts and "second answer" in texts
        assert len(loaded.transcript) == 4
    finally:
        store.close()


async def test_lone_surrogate_in_tool_args_is_replaced_and_saved(env: LoopbackServer, tmp_path: Path) -> None:
    store = SessionStore.open(tmp_path / "data")
    try:
        chat = session(tmp_path, store=store)
        env.script(LONE_IN_ARGS, Reply("listed"))
        events = await collect(chat.run_turn("list"))
        assert not of_type(events, "error"), events
        [call] = of_type(events, "tool_call")
        assert "\ud83d" not in call.args and "x\ufffdy" in call.args
        env.script(Reply("next"))
        events = await collect(chat.run_turn("and then"))
        assert not of_type(events, "error"), events
        assert not chat.unsaved()
        assert len(store.load(chat.id).transcript) == 6
        # what was sent back to the server is valid (the request bodies parsed as JSON on arrival)
        assert "x\ufffdy" in json.dumps(env.requests[-1].body, ensure_ascii=False)
    finally:
        store.close()


def test_print_mode_prints_the_emoji_and_saves(loopback: LoopbackServer, tmp_path: Path) -> None:
    loopback.script(SPLIT_EMOJI)
    data = tmp_path / "data"
    proc = co_tui(
        "-p",
        "say smile",
        "--model",
        "openai-chat:gpt-4o",
        cwd=tmp_path,
        env={**provider_env(loopback), "CO_TUI_DATA_DIR": str(data)},
    )
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    assert proc.stdout.strip() == "smile 😀 end!!"
    assert not list(data.glob("rescued-*"))

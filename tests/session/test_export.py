"""Markdown and JSON exports of a saved session, banners at the cuts."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pydantic_ai.messages import ModelMessagesTypeAdapter, ModelRequest, UserPromptPart
from support.builders import breadcrumb, saved_tool_turn

from co_tui.governance.events import HistoryTrimmed
from co_tui.session.export import export_json, export_markdown, render_export, trim_banner
from co_tui.session.saved_session import LoadedSession
from co_tui.store.session_store import SessionStore


@pytest.fixture
def saved(store: SessionStore, tmp_path: Path) -> LoadedSession:
    sid = store.create_session(model="test:model", workspace=tmp_path, title="explain files")
    turns = [saved_tool_turn(i) for i in range(3)]
    store.save_turn(sid, new_transcript=turns[0] + turns[1], context=turns[0] + turns[1], new_events=[])
    cut = HistoryTrimmed(
        reason="token_budget",
        strategy="turn_trim",
        dropped_messages=4,
        dropped_turns=1,
        kept_turns=2,
        tokens_before=9000,
        tokens_after=5000,
        budget_tokens=8000,
    )
    store.save_turn(sid, new_transcript=turns[2], context=[breadcrumb(4, 1), *turns[1], *turns[2]], new_events=[cut])
    compacted = HistoryTrimmed(
        reason="manual_compact",
        strategy="compact",
        dropped_messages=9,
        summary="Three files were explained.\nAll are request handlers.",
    )
    summary_msg = ModelRequest(parts=[UserPromptPart("[Compacted conversation summary]\nThree files.")])
    store.save_turn(sid, new_transcript=[], context=[summary_msg], new_events=[compacted])
    return store.load(sid)


def test_markdown_has_blocks_and_banners_in_place(saved: LoadedSession) -> None:
    md = export_markdown(saved)
    assert md.startswith("# explain files\n")
    assert saved.meta.id in md
    assert md.count("## User") == 3 and md.count("## Assistant") == 6
    assert md.count("**Tool call** `read_file`") == 3 and md.count("**Tool result** `read_file`") == 3
    assert '"path": "file_2.py"' in md
    # The turn-trim banner sits after turn 2's prompt, before its answer; the compact one at the end.
    prompt_2 = md.index("read file_2.py and explain it")
    banner = md.index("> ✂ History trimmed · 4 messages (1 turn) · 9k → 5k tokens · token budget")
    assert prompt_2 < banner < md.index("file_2.py defines a request handler.")
    assert md.rstrip().endswith("> All are request handlers.")
    assert md.index("> ✂ Conversation compacted") > md.index("file_2.py defines a request handler.")


def test_markdown_fences_survive_backticks(saved: LoadedSession) -> None:
    from dataclasses import replace

    from pydantic_ai.messages import ToolReturnPart

    tricky = ModelRequest(parts=[ToolReturnPart("read_file", "```python\nx = 1\n```", tool_call_id="c")])
    md = export_markdown(replace(saved, transcript=[tricky], ledger=[], ledger_positions=[]))
    assert "````\n```python\nx = 1\n```\n````" in md


def test_banner_quotes_summary_lines() -> None:
    ev = HistoryTrimmed(reason="message_count", strategy="summary", dropped_messages=3, summary="one\n\ntwo")
    assert trim_banner(ev).splitlines()[1:] == [">", "> one", ">", "> two"]
    assert trim_banner(ev).startswith("> ✂ History summarised · 3 messages")


def test_json_round_trips_the_transcript(saved: LoadedSession) -> None:
    doc = json.loads(export_json(saved))
    assert doc["format"] == "co-tui-session" and doc["meta"]["id"] == saved.meta.id
    assert ModelMessagesTypeAdapter.validate_python(doc["transcript"]) == saved.transcript
    assert [e["strategy"] for e in doc["ledger"]] == ["turn_trim", "compact"]
    assert [e["at_message"] for e in doc["ledger"]] == [9, 12]
    assert HistoryTrimmed.from_dict(doc["ledger"][1]) == saved.ledger[1]


def test_unknown_format(saved: LoadedSession) -> None:
    assert render_export(saved, "md") == export_markdown(saved)
    with pytest.raises(ValueError, match="use md or json"):
        render_export(saved, "pdf")


def test_write_export_defaults_to_a_private_folder_and_never_overwrites(tmp_path: Path) -> None:
    import stat

    from co_tui.session.export import write_export

    default = tmp_path / "data" / "exports" / "co-tui-abcdef12.md"
    first = write_export("one", default)
    second = write_export("two", default)  # the default name is taken: a new one, the first kept
    assert first == default and second == default.with_name("co-tui-abcdef12-2.md")
    assert first.read_text() == "one" and second.read_text() == "two"
    assert stat.S_IMODE(first.stat().st_mode) == 0o600 and stat.S_IMODE(second.stat().st_mode) == 0o600
    assert stat.S_IMODE(default.parent.stat().st_mode) == 0o700

    # A directory given as the target gets the default name, made unique the same way.
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / default.name).write_text("theirs")
    assert write_export("three", default, elsewhere) == elsewhere / "co-tui-abcdef12-2.md"
    assert (elsewhere / default.name).read_text() == "theirs"

    # A file named by the user that exists: refused, one line, nothing overwritten.
    mine = tmp_path / "notes.md"
    mine.write_text("keep me")
    with pytest.raises(FileExistsError) as refused:
        write_export("four", default, mine)
    assert "nothing was overwritten" in str(refused.value) and "\n" not in str(refused.value)
    assert mine.read_text() == "keep me"
    fresh = write_export("five", default, tmp_path / "fresh.md")
    assert fresh.read_text() == "five" and stat.S_IMODE(fresh.stat().st_mode) == 0o600


async def test_the_session_exports_itself_as_the_cli_renders_it(store: SessionStore, tmp_path: Path) -> None:
    """`SessionPort.export` (/export) and `--export` render through one path (`render_saved`): the
    file holds what the CLI prints; nothing saved yet is refused with one line."""
    from co_tui.config import load_settings
    from co_tui.session.chat import ChatSession
    from co_tui.session.export import EXPORTS_DIR, render_saved

    workspace = tmp_path / "ws"
    workspace.mkdir()
    session = ChatSession(load_settings(), workspace=workspace, store=store)
    assert session.saved and session.catalog is store
    with pytest.raises(ValueError, match="nothing saved to export yet"):
        session.export("md")
    async for _ in session.run_turn("hello there"):
        pass
    path = session.export("md")
    assert path == store.path.parent / EXPORTS_DIR / f"co-tui-{session.id[:8]}.md"
    assert path.read_text() == render_saved(store, session.id, "md")[1]
    assert "## User\n\nhello there" in path.read_text()
    where = session.export("json", tmp_path)
    assert where.parent == tmp_path and json.loads(where.read_text())["meta"]["id"] == session.id
    unsaved = ChatSession(load_settings(), workspace=workspace)
    assert not unsaved.saved and unsaved.catalog is None


async def test_the_rescue_copy_never_follows_a_planted_symlink(
    store: SessionStore, data_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Issue 33: the rescue copy opened its name with O_TRUNC and followed a symlink planted there,
    # overwriting the link's target with the conversation.
    import time

    from co_tui.config import load_settings
    from co_tui.session.chat import ChatSession

    workspace = tmp_path / "ws"
    workspace.mkdir()
    chat = ChatSession(load_settings(), workspace=workspace, store=store)
    async for _ in chat.run_turn("hello"):
        pass
    monkeypatch.setattr(time, "strftime", lambda *_: "20260101-000000")
    victim = tmp_path / "victim.txt"
    victim.write_text("do not overwrite\n")
    planted = data_dir / f"rescued-{chat.id[:8]}-20260101-000000.json"
    planted.symlink_to(victim)
    rescued = chat.write_rescue_copy()
    assert victim.read_text() == "do not overwrite\n"
    assert rescued is not None and rescued != planted and rescued.parent == data_dir
    assert not rescued.is_symlink() and (rescued.stat().st_mode & 0o777) == 0o600
    assert json.loads(rescued.read_text())["transcript"][0]["parts"][0]["content"] == "hello"


def test_control_bytes_are_escaped_in_markdown(store: SessionStore, tmp_path: Path) -> None:
    # Issue 33: raw control bytes from a tool's output or the model reached the Markdown export,
    # where `cat` or `less -R` obeyed them (retitle the window, clear the screen, rewrite lines).
    from pydantic_ai.messages import ModelResponse, TextPart, ToolCallPart, ToolReturnPart

    sid = store.create_session(model="test:model", workspace=tmp_path, title="title\x1b]0;pwned\x07\nforged")
    messages = [
        ModelRequest(parts=[UserPromptPart("read it")]),
        ModelResponse(parts=[ToolCallPart("read_file\n# Forged heading", {"path": "a.txt"}, tool_call_id="c1")]),
        ModelRequest(parts=[ToolReturnPart("read_file", "line one\r\nline two\x1b[2J\x9b2J\rover", tool_call_id="c1")]),
        ModelResponse(parts=[TextPart("done\x1b]8;;http://evil\x07link\x1b]8;;\x07\n\tindented")]),
    ]
    store.save_turn(sid, new_transcript=messages, context=messages, new_events=[])
    text = export_markdown(store.load(sid))
    assert not any(ord(c) < 32 and c not in "\n\t" or 0x7F <= ord(c) < 0xA0 for c in text), repr(text)
    assert text.startswith("# title\\x1b]0;pwned\\x07\\nforged\n")
    assert "`read_file\\n# Forged heading`" in text and "\n# Forged heading" not in text
    assert "line one\nline two\\x1b[2J\\x9b2J\\rover" in text, "CRLF is a line break, a lone CR is shown"
    assert "done\\x1b]8;;http://evil\\x07link" in text and "\n\tindented" in text

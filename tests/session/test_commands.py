"""The one command table (session/commands.py) and its handlers on the port: the TUI's popup, palette,
help and keys doc read it; a front end with no screens runs the commands that have a handler."""

from __future__ import annotations

from pathlib import Path

from support.turns import collect, run_turn

from co_tui.config import load_settings
from co_tui.session import COMMANDS, headless_commands, run_command
from co_tui.session.chat import ChatSession
from co_tui.session.events import Done, Notice, UsageUpdate
from co_tui.tui import commands as tui_commands


def test_the_tui_reads_the_session_table_and_every_command_has_an_action() -> None:
    assert tui_commands.COMMANDS is COMMANDS
    from co_tui.tui.command_actions import CommandActions

    assert all(callable(getattr(CommandActions, c.action, None)) for c in COMMANDS)
    names = [c.name for c in headless_commands()]
    assert {"compact", "clear", "undo", "context", "pin", "rewind", "compact-mode"} <= set(names)
    assert "history" not in names and "sessions" not in names, "those need a screen"


async def test_commands_run_on_the_port_and_say_what_they_did(tmp_path: Path) -> None:
    session = ChatSession(load_settings(), workspace=tmp_path)
    refused = await collect(run_command(session, "/undo"))
    assert isinstance(refused[0], Notice) and isinstance(refused[-1], Done) and refused[-1].failed
    await run_turn(session, "hello")
    pinned = await collect(run_command(session, "/pin"))
    assert isinstance(pinned[0], Notice) and "pinned" in pinned[0].message.lower()
    assert isinstance(pinned[1], UsageUpdate) and not pinned[-1].failed
    mode = await collect(run_command(session, "/compact-mode off"))
    assert session.compact_mode == "off" and mode[-2].message.startswith("compact_mode off for this session")
    context = await collect(run_command(session, "/context"))
    assert context[0].message.startswith("Context: ") and "- Pinned turns (2): " in context[0].message
    unknown = await collect(run_command(session, "/compat"))
    assert unknown[0].message == "unknown command /compat — did you mean /compact?" and unknown[-1].failed
    screen = await collect(run_command(session, "/history"))
    assert "needs co-tui's own screen" in screen[0].message


async def test_rewind_goes_back_before_the_newest_prompt_and_gives_it_back(tmp_path: Path) -> None:
    from co_tui.session import open_store

    settings = load_settings(data_dir=str(tmp_path / "data"))
    session = ChatSession(settings, workspace=tmp_path, store=open_store(settings))
    await run_turn(session, "first")
    await run_turn(session, "second")
    events = await collect(run_command(session, "/rewind"))
    assert events[0].type == "history_trimmed" and events[0].reason == "rewind"
    assert events[-1] == Done(output="second") and len(session.transcript) == 2
    session.release_claim()


async def test_model_while_a_turn_runs_is_refused_in_the_one_busy_wording(tmp_path: Path) -> None:
    """`/model NAME` asked while a turn holds the session says what every busy refusal says
    (`wording.busy_line`), and the model stays."""
    session = ChatSession(load_settings(), workspace=tmp_path)
    session.gate.running = True  # a turn holds the conversation
    said = await collect(run_command(session, "/model openai:gpt-4o"))
    assert said[0].message == "switching models: a turn is running — press esc to interrupt it first"
    assert said[-1].failed and session.model_name == "offline"

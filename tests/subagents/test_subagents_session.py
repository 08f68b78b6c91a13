"""Subagents in print mode, exports, rewinds, forks and the session list (docs/subagents.md), with
the built-in offline model delegating (no key) and a real SQLite store. The command is called
in-process (`call_co_tui`): what it prints and saves is the point, not the process."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_process import call_co_tui as co_tui
from support.turns import of_type, run_turn

from co_tui.config import Settings
from co_tui.session.chat import ChatSession
from co_tui.session.child_record import child_records
from co_tui.session.opening import resume_session
from co_tui.store.session_store import SessionStore

ASK = "explore docs in a subagent and tell me which file mentions budget"


@pytest.fixture
def workspace_files() -> dict[str, str | bytes]:
    return {"docs/a.md": "# A\n\nThe budget is 40k tokens.\n", "docs/b.md": "# B\n\nNothing here.\n"}


def test_print_mode_jsonl_carries_every_child_event_with_its_agent(workspace: Path) -> None:
    done = co_tui("-p", ASK, "--output-format", "jsonl", cwd=workspace)
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    started = [e for e in lines if e["type"] == "subagent_started"]
    finished = [e for e in lines if e["type"] == "subagent_finished"]
    assert len(started) == len(finished) == 1
    delegation = started[0]["delegation"]
    assert started[0]["agent"] == "explore-1" and started[0]["task"] == "search budget in docs"
    child = [e for e in lines if e.get("agent") == "explore-1" and not e["type"].startswith("subagent_")]
    assert {e["type"] for e in child} >= {"tool_call", "tool_result", "usage"}
    assert all(e["delegation"] == delegation for e in child)
    # The main agent's lines carry no origin fields (they are as before subagents).
    main = [e for e in lines if "agent" not in e]
    assert "delegation" not in json.dumps(main) and main[-1]["type"] == "done"
    assert finished[0]["outcome"] == "done" and "docs/a.md" in main[-1]["output"]


def test_print_mode_text_keeps_the_childs_words_off_stdout(workspace: Path) -> None:
    done = co_tui("-p", ASK, cwd=workspace)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("A subagent (explore-1) did that")
    assert done.stdout.count("Most in: docs/a.md") == 1  # the child's own answer is not on stdout too
    assert "· subagent explore-1: search budget in docs" in done.stderr
    assert "· explore-1 done · 2 requests" in done.stderr


async def test_export_rewind_fork_and_the_session_list_see_the_child(workspace: Path, isolated_env: Path) -> None:
    store = SessionStore.open(isolated_env / "data")
    chat = ChatSession(Settings(model="offline"), workspace=workspace, store=store)
    await run_turn(chat, "list docs")
    events = await run_turn(chat, ASK)
    assert of_type(events, "subagent_finished")[0].outcome == "done"
    await run_turn(chat, "read docs/b.md")

    # Export: the child's transcript at its delegation, in both formats.
    from co_tui.session.export import render_saved

    _, markdown, _ = render_saved(store, chat.id, "md")
    at = markdown.index("### Subagent `explore-1` (explore)")
    assert markdown.index("`delegate`") < at < markdown.index("docs/b.md")
    assert "> **Tool call** `search_text`" in markdown[at:] and "> docs/a.md:3: The budget is 40k tokens." in markdown
    _, exported, _ = render_saved(store, chat.id, "json")
    document = json.loads(exported)
    holders = [m for m in document["transcript"] if "co_tui_subagent" in json.dumps(m)]
    assert len(holders) == 1 and "The budget is 40k tokens." in json.dumps(holders[0])

    # A fork copies it.
    from co_tui.session.opening import fork_saved

    fork_id = fork_saved(store, chat.id)
    forked = resume_session(chat.settings, workspace=workspace, store=store, session_id=fork_id)
    assert [r.agent for _, r in child_records(forked.history.transcript)] == ["explore-1"]
    forked.release_claim()

    # A rewind to before the delegation drops it with the turn; the next child is numbered afresh.
    point = next(p for p in chat.rewind_points() if p.text == ASK)
    await chat.rewind(point.position)
    assert child_records(chat.history.transcript) == []
    assert "co_tui_subagent" not in json.dumps([str(m) for m in chat.history.context])
    again = await run_turn(chat, ASK)
    assert of_type(again, "subagent_finished")[0].agent == "explore-2"  # ids never repeat in a process
    chat.release_claim()
    store.close()


async def test_the_session_cost_includes_the_childrens(workspace: Path) -> None:
    from pydantic_ai.messages import ModelRequest, ToolReturnPart

    from co_tui.session.cost import session_cost, transcript_item_cost

    chat = ChatSession(Settings(model="offline"), workspace=workspace)
    await run_turn(chat, ASK)
    ((index, record),) = child_records(chat.history.transcript)
    assert record.finished.cost_usd == 0.0  # the offline model is free: an unpriced child would make it None
    holder = chat.history.transcript[index]
    meta = dict(next(p for p in holder.parts if isinstance(p, ToolReturnPart)).metadata or {})
    meta["co_tui_subagent"] = {
        **meta["co_tui_subagent"],
        "finished": {**meta["co_tui_subagent"]["finished"], "cost_usd": 0.25},
    }
    priced = ModelRequest(parts=[ToolReturnPart("delegate", "x", tool_call_id="d", metadata=meta)])
    assert float(transcript_item_cost(priced) or 0) == 0.25
    assert session_cost([*chat.history.transcript, priced]) == pytest.approx(0.25)
    meta["co_tui_subagent"]["finished"]["cost_usd"] = None
    assert session_cost([priced]) is None  # an unpriced child makes the total unknown, as any request


def test_the_user_can_have_a_saved_childs_transcript_recalled_in_a_later_process(workspace: Path) -> None:
    # Each run opens the session afresh from the store, as a later process does (called in-process).
    assert co_tui("-p", ASK, cwd=workspace).returncode == 0
    later = co_tui("--continue", "-p", "what did explore-1 read?", "--output-format", "jsonl", cwd=workspace)
    assert later.returncode == 0, later.stderr
    lines = [json.loads(line) for line in later.stdout.splitlines()]
    call = next(e for e in lines if e["type"] == "tool_call")
    assert (call["tool_name"], json.loads(call["args"])) == ("recall", {"handle": "explore-1"})
    result = next(e for e in lines if e["type"] == "tool_result")
    assert "subagent explore-1's transcript" in result["content"] and "The budget is 40k tokens." in result["content"]
    assert lines[-1]["output"].startswith("I read subagent explore-1's transcript back with recall")


def test_the_session_list_shows_what_the_children_held_apart(workspace: Path) -> None:
    assert co_tui("-p", "list docs", cwd=workspace).returncode == 0
    before = co_tui("--list-sessions", cwd=workspace)
    assert "+" not in before.stdout.splitlines()[1].split()[4]  # no child: the main figure alone
    assert co_tui("--continue", "-p", ASK, cwd=workspace).returncode == 0
    listing = co_tui("--list-sessions", cwd=workspace)
    assert listing.returncode == 0, listing.stderr
    header, row = listing.stdout.splitlines()[:2]
    tokens = row.split()[4]
    main, _, children = tokens.partition("+")
    assert main.startswith("~") or main[0].isdigit()
    assert children and children != "0", row  # e.g. "1.7k+695": the explore child's context, apart
    assert header.index("TOKENS") + len("TOKENS") == row.index(tokens) + len(tokens)  # the column lines up

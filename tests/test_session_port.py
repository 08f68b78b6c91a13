"""One conformance suite for the session port: the real `ChatSession` (offline model, a real SQLite
store) and the TUI tests' `FakeSession` both keep the contract the TUI relies on
(co_tui/session/port.py). A fake that drifts from the real session fails here, not in a TUI test
that then passes for the wrong reason."""

from __future__ import annotations

import typing
from pathlib import Path

import pytest
from tui_fakes import FakeSession, Step, Text

from co_tui.config import Settings, load_settings
from co_tui.governance.events import HistoryTrimmed
from co_tui.session.approvals import ApprovalRequest, Approvals, Decision
from co_tui.session.events import Done, DoneReason, Event, UsageUpdate
from co_tui.session.port import SessionPort

EVENT_CLASSES = typing.get_args(Event)


def _answer(prompt: str) -> list[Step]:
    """The fake's answer names a file the prompt did not, as the offline model's do: a summary,
    which keeps the prompts verbatim, can lose it."""
    return [Text(f"You said: **{prompt}**. Choose a model in config.toml.")]


@pytest.fixture(params=["real", "fake"])
def session(request: pytest.FixtureRequest, tmp_path: Path) -> SessionPort:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "README.md").write_text("# Demo\n")
    if request.param == "fake":
        return FakeSession(Settings(), workspace=workspace, script=_answer)
    from co_tui.session.chat import ChatSession
    from co_tui.session.opening import open_store

    settings = load_settings()
    return ChatSession(settings, workspace=workspace, store=open_store(settings))


async def _turn(session: SessionPort, prompt: str) -> list[Event]:
    events = []
    async for event in session.run_turn(prompt):
        if not events:
            assert session.busy, "busy while the turn runs"
        events.append(event)
    return events


async def test_is_a_session_port(session: SessionPort) -> None:
    assert isinstance(session, SessionPort)
    assert not session.busy and not session.transcript and not session.context and not session.ledger
    assert isinstance(session.meter_reading(), UsageUpdate)


async def test_a_turn_yields_the_closed_union_and_ends_with_done(session: SessionPort) -> None:
    events = await _turn(session, "hello there")
    assert all(isinstance(event, EVENT_CLASSES) for event in events)
    assert isinstance(events[-1], Done) and not events[-1].failed and not events[-1].interrupted
    assert sum(isinstance(event, Done) for event in events) == 1
    assert any(isinstance(event, UsageUpdate) for event in events), "the meter moves after a turn"
    assert not session.busy
    assert len(session.transcript) >= 2 and session.context, "the prompt and the answer are kept"
    assert session.title == "hello there"
    for event in events:
        assert next(iter(event.to_dict())) == "type", "jsonl: `type` first"


async def test_cancel_while_idle_changes_nothing(session: SessionPort) -> None:
    session.cancel()
    events = await _turn(session, "hi")
    assert isinstance(events[-1], Done) and not events[-1].interrupted


async def test_clear_starts_afresh_under_a_new_id(session: SessionPort) -> None:
    await _turn(session, "hello")
    old_id = session.id
    event = await session.clear()
    assert isinstance(event, HistoryTrimmed)
    assert (event.reason, event.strategy, event.kept_turns, event.tokens_after) == ("clear", "turn_trim", 0, 0)
    assert event.dropped_turns == 1 and event.session_id == old_id
    assert event.note == "conversation cleared"
    assert session.id != old_id
    assert (
        list(session.transcript),
        list(session.context),
        list(session.ledger),
        list(session.ledger_positions),
        session.title,
    ) == ([], [], [], [], "")


async def test_compact_of_nothing_says_so(session: SessionPort) -> None:
    events = [event async for event in session.compact()]
    assert events == [Done(output="nothing to compact", reason=DoneReason.NOTHING_TO_COMPACT)]


async def test_compact_records_one_cut(session: SessionPort) -> None:
    await _turn(session, "hello")
    events = [event async for event in session.compact("the greeting")]
    trims = [event for event in events if isinstance(event, HistoryTrimmed)]
    assert len(trims) == 1 and trims[0].reason == "manual_compact" and trims[0].strategy == "compact"
    assert isinstance(events[-1], Done) and not events[-1].failed
    assert list(session.ledger) == trims and len(session.ledger_positions) == 1
    assert not session.busy


async def test_an_unknown_model_is_refused_and_the_old_one_stays(session: SessionPort) -> None:
    before = session.model_name
    with pytest.raises(Exception) as caught:
        session.set_model("badprovider:nothing")
    assert "\n" not in str(caught.value) and str(caught.value)
    assert session.model_name == before


async def test_evict_removes_an_older_turn_and_refuses_the_newest(session: SessionPort) -> None:
    await _turn(session, "hello")
    await _turn(session, "how are you")
    transcript_before = list(session.transcript)
    with pytest.raises(ValueError) as caught:
        await session.evict(len(session.context) - 1)
    assert "newest turn" in str(caught.value) and "\n" not in str(caught.value)
    event = await session.evict(0)
    assert (event.reason, event.strategy, event.dropped_turns) == ("manual_evict", "turn_trim", 1)
    assert event.session_id == session.id
    assert list(session.ledger)[-1] == event and len(session.ledger_positions) == len(session.ledger)
    assert list(session.transcript) == transcript_before  # never the transcript


async def test_compact_preview_and_next_cut(session: SessionPort) -> None:
    assert session.compact_preview() is None  # nothing to compact
    assert session.next_cut() is None
    await _turn(session, "hello")
    preview = session.compact_preview()
    assert preview is not None and preview.reason == "manual_compact" and preview.dropped_turns == 1
    assert preview.tokens_after <= preview.tokens_before


async def test_context_breakdown_adds_up_to_the_meter(session: SessionPort) -> None:
    from co_tui.session.context_breakdown import ContextBreakdown

    empty = session.context_breakdown()
    assert isinstance(empty, ContextBreakdown)
    keys = [row.key for row in empty.rows]
    assert keys[0] == "instructions" and "tool_schemas" in keys and "messages" not in keys
    assert empty.total_tokens == sum(row.tokens for row in empty.rows) > 0, "instructions and tools before any message"
    await _turn(session, "hello there")
    breakdown = session.context_breakdown()
    assert breakdown.total_tokens == session.meter_reading().context_tokens
    assert breakdown.category_tokens("messages") > 0 and breakdown.rows[-1].items == len(session.context)
    assert breakdown.free_tokens == breakdown.budget_tokens - breakdown.total_tokens
    assert breakdown.reserve_tokens == breakdown.window_tokens - breakdown.budget_tokens


async def test_no_instruction_files_in_an_empty_workspace(session: SessionPort) -> None:
    assert list(session.instruction_files) == []


async def test_undo_walks_back_and_refuses_with_one_line(session: SessionPort) -> None:
    from co_tui.governance.undo import UndoRefused

    with pytest.raises(UndoRefused, match="^nothing to undo"):
        await session.undo()
    await _turn(session, "hello there")
    await _turn(session, "and more")
    before = list(session.context)
    events = [event async for event in session.compact()]
    assert isinstance(events[-1], Done) and session.undoable_cuts() == [0]
    event = await session.undo()
    assert (event.reason, event.strategy, event.dropped_messages) == ("restore", "compact", 0)
    assert event.restored_messages > 0 and event.session_id == session.id
    assert list(session.context) == before, "the context is the one before the compaction"
    assert session.ledger[-1] is event or session.ledger[-1] == event
    assert session.undoable_cuts() == []
    with pytest.raises(UndoRefused, match="^nothing left to undo"):
        await session.undo()


async def test_pin_the_newest_turn_then_unpin_it(session: SessionPort) -> None:
    from co_tui.session.steering import PinChange, PinRefused

    with pytest.raises(PinRefused, match="nothing to pin"):
        await session.pin_newest()
    await _turn(session, "remember this")
    change = await session.pin_newest()
    assert isinstance(change, PinChange) and change.pinned and change.turn == 1 and change.pinned_tokens > 0
    assert list(session.pins) == [0]
    assert session.meter_reading().pinned_tokens == change.pinned_tokens
    assert "pinned turn 1" in change.describe()
    change = await session.toggle_pin(len(session.transcript) - 1)
    assert not change.pinned and list(session.pins) == [] and change.pinned_tokens == 0


async def test_recover_brings_a_lost_item_back_at_the_end_and_undo_takes_it_out(session: SessionPort) -> None:
    from co_tui.governance.markers import recovered_items

    with pytest.raises(ValueError, match="no summary in this session lost"):
        await session.recover("src/a.py")
    await _turn(session, "please look at notes_v7.md and the parse_tokens helper")
    await _turn(session, "and more")
    [event async for event in session.compact()]
    lost = session.ledger[-1].summary_lost
    assert lost, "the compaction lost something to recover"
    before = list(session.context)
    trim = await session.recover(lost[0])
    assert (trim.reason, trim.strategy, trim.restored_messages, trim.dropped_messages) == ("restore", "compact", 1, 0)
    assert trim.salvaged_item == lost[0] and trim.salvaged_text and lost[0] in trim.salvaged_text
    assert trim.session_id == session.id and lost[0] in (trim.note or "")
    assert list(session.context[: len(before)]) == before, "appended at the end: the prefix is unchanged"
    assert recovered_items(session.context[-1]) == [lost[0]]
    with pytest.raises(ValueError, match="already in the context"):
        await session.recover(lost[0])
    undo = await session.undo()
    assert undo.reason == "restore" and "left the context" in (undo.note or "")
    assert list(session.context) == before, "/undo of a recovery takes the excerpt back out"


def test_saved_and_catalog_agree(session: SessionPort) -> None:
    """`saved` says whether there is a database; `catalog` is that database (the picker's) or None."""
    assert isinstance(session.saved, bool)
    assert (session.catalog is not None) == session.saved
    assert session.data_dir_warning is None, "the tests' data dir is private"


async def test_the_compact_preview_leaves_pinned_turns_out(session: SessionPort) -> None:
    """The fake's preview counted a pinned turn among what /compact summarises; the real one keeps
    pinned turns out of the summary (docs/context-governance.md, "Pins")."""
    await _turn(session, "the secret word is tangerine")
    await session.pin_newest()
    await _turn(session, "hello there")
    preview = session.compact_preview()
    assert preview is not None and preview.dropped_turns == 1  # only the unpinned turn
    await session.pin_newest()
    assert session.compact_preview() is None  # every turn pinned: nothing to compact


async def test_compact_mode_switches_for_the_session(session: SessionPort) -> None:
    assert session.compact_mode == "auto"
    session.set_compact_mode("off")
    assert session.compact_mode == "off"
    await _turn(session, "hello")  # a turn runs the same in either mode
    session.set_compact_mode("auto")
    assert session.compact_mode == "auto"


async def test_rewind_goes_back_on_a_new_branch_and_switching_brings_the_old_one_back(session: SessionPort) -> None:
    from co_tui.session.branching import BranchMoveRefused

    assert session.rewind_points() == [] and [b.info.id for b in session.branches()] == [0]
    await _turn(session, "first")
    before_second = list(session.context)
    pins_then = list(session.pins)
    await _turn(session, "second")
    await session.pin_newest()
    await _turn(session, "third")
    left = list(session.context)
    points = session.rewind_points()
    assert [(p.turn, p.first_line) for p in points] == [(3, "third"), (2, "second"), (1, "first")]
    assert all(p.restorable and p.tokens >= 0 for p in points)

    rewound = await session.rewind(points[1].position)
    assert rewound.prompt == "second"
    event = rewound.event
    assert (event.reason, event.strategy, event.branch_from, event.branch_to) == ("rewind", "branch", 0, 1)
    assert event.session_id == session.id and session.ledger[-1] == event
    assert list(session.context) == before_second and list(session.pins) == pins_then
    assert len(session.transcript) == points[1].position
    rows = session.branches()
    assert [(r.info.id, r.info.parent, r.active) for r in rows] == [(0, None, False), (1, 0, True)]
    assert rows[0].turns == 3 and rows[0].last_prompt == "third"

    await _turn(session, "second, edited")
    switched = await session.switch_branch(0)
    assert (switched.reason, switched.branch_from, switched.branch_to) == ("branch_switch", 1, 0)
    assert list(session.context) == left, "the branch left comes back as it was"
    with pytest.raises(BranchMoveRefused, match="one in use"):
        await session.switch_branch(0)
    with pytest.raises(BranchMoveRefused, match="no branch 7"):
        await session.switch_branch(7)


async def test_fork_refuses_in_one_line_when_there_is_nothing_saved(session: SessionPort) -> None:
    from co_tui.session.port import Refused

    with pytest.raises(Refused) as refused:
        await session.fork()
    assert "\n" not in str(refused.value) and "fork" in str(refused.value)


async def test_a_shell_command_nobody_can_approve_is_refused(session: SessionPort) -> None:
    events = [event async for event in session.run_user_shell("echo hi")]
    assert [event.type for event in events] == ["notice", "done"] and events[-1].failed
    assert "was not run" in events[0].message
    assert not session.transcript and not session.busy


async def test_an_approved_shell_command_is_one_whole_turn(session: SessionPort) -> None:
    async def ask(request: ApprovalRequest) -> Decision:
        return "once" if request.tool == "run_shell" and request.by_user and request.tool_call_id is None else "deny"

    # The front end's `ask`, given when the session is built, behind the session's approvals.
    session.turns.shell.approver = Approvals(ask).approve  # type: ignore[attr-defined]
    events = []
    async for event in session.run_user_shell("echo hi"):
        if not events:
            assert session.busy, "busy while the command runs"
        events.append(event)
    assert [event.type for event in events] == ["tool_call", "tool_result", "usage", "done"]
    assert events[1].content == "$ echo hi\nhi\n[exit code 0]" and not events[-1].failed
    assert [type(m).__name__ for m in session.context] == ["ModelRequest", "ModelResponse", "ModelRequest"]
    assert len(session.transcript) == 3 and not session.busy


async def test_a_mentioned_file_is_attached_and_said(session: SessionPort) -> None:
    workspace = session.workspace  # type: ignore[attr-defined]
    (workspace / "notes.md").write_text("the secret word is zephyr\n")
    preview = session.attachments("what is in @notes.md?")
    assert [a.path for a in preview.attached] == ["notes.md"] and preview.tokens > 0
    events = [event async for event in session.run_turn("what is in @notes.md?")]
    assert events[0].type == "notice" and events[0].message.startswith("attached notes.md (file) · ~")
    sent = session.transcript[0].parts[-1].content
    assert sent.startswith('what is in @notes.md?\n\n<attached path="notes.md">') and "zephyr" in sent
    assert session.title == "what is in @notes.md?", "the title is the prompt as typed"


async def test_ask_plans_before_the_send_and_takes_the_choice(session: SessionPort) -> None:
    assert session.plan_send("hello") is None, "auto: nothing is asked"
    session.set_compact_mode("ask")
    assert session.compact_mode == "ask"
    assert session.plan_send("hello") is None, "nothing to cut: the send goes out uncut"
    for choice in ("over_budget", "cut", None):
        events = [event async for event in session.run_turn(f"a send ({choice})", choice)]  # type: ignore[arg-type]
        assert isinstance(events[-1], Done) and not events[-1].failed
    assert len(session.transcript) >= 6 and not session.busy


async def test_the_fakes_figures_outlive_clear_rewind_and_a_new_model(tmp_path: Path) -> None:
    """The fake's figures are its meter's, and the real session makes a new meter on `/clear`, a
    rewind and a model switch (`AgentBinding.new_meter`, by its `meter_factory`): each is the fake's too, not a real one
    that would count the fake's messages by their text."""
    session = FakeSession(Settings(), workspace=tmp_path, tokens_per_message=1000, overhead_tokens=0)
    await _turn(session, "one")
    await _turn(session, "two")
    assert session.meter_reading().context_tokens == 4000
    await session.rewind(session.rewind_points()[0].position)  # back before "two"
    assert session.meter_reading().context_tokens == 2000
    await session.clear()
    await _turn(session, "three")
    assert session.meter_reading().context_tokens == 2000
    session.binding.configure("offline")  # what the real `set_model` does
    assert session.meter_reading().context_tokens == 2000

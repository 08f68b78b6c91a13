"""The inspector's status words and per-turn states, worked out from governance's statuses (no
terminal): governance/turn_states.py, and which tool outputs the model sees shortened."""

from typing import get_args

from support.builders import system, tool_turn

from co_tui.governance import annotate_history, estimate_tokens, fit_to_budget
from co_tui.governance.inspect import context_view
from co_tui.governance.trim import is_truncated_output, truncate_text
from co_tui.governance.turn_states import STATUS_LABELS, Status, TurnBar, status_label, turn_bars, turn_state

from .synthetic import make_text


def test_every_status_governance_emits_has_its_label_and_no_other():
    assert set(STATUS_LABELS) == set(get_args(Status))
    assert STATUS_LABELS["truncated"] == "output truncated" and STATUS_LABELS["next_to_go"] == "next to go"
    assert status_label("something_new") == "something new"  # shown as it comes


def test_a_turns_state_adds_up_its_messages():
    assert turn_state(["in_context", "truncated", "next_to_go"]) == "in_context"
    assert turn_state(["in_context", "dropped"]) == "partial"
    assert turn_state(["summarised", "dropped"]) == "summarised"
    assert turn_state(["dropped", "evicted"]) == "dropped"


def test_bars_of_a_history_really_cut():
    transcript = [system()]
    for t in range(5):
        transcript += tool_turn(f"task {t}", [make_text("logs", 5000, t)], f"done {t}", id_prefix=f"t{t}-")
    cut = fit_to_budget(transcript, estimate_tokens(transcript[-4:]) + 250, tool_output_trim_chars=100)
    rows = annotate_history(transcript, cut.messages)
    bars = turn_bars(rows)
    assert [bar.turn for bar in bars] == [1, 2, 3, 4, 5]  # the preamble (turn 0) is left out
    assert bars[0].state == "dropped" and bars[-1] == TurnBar(
        5, sum(r.tokens for r in rows if r.turn == 5), "in_context"
    )
    # The context's rows carry the transcript's turns and statuses (a shortened output included).
    shown = context_view(rows, annotate_history(cut.messages, cut.messages))
    assert {row.status for row in shown} >= {"in_context"} and shown[-1].turn == 5


def test_governance_says_which_outputs_are_shortened():
    cut = truncate_text("x" * 500, 100)
    assert cut is not None and is_truncated_output(cut)
    assert not is_truncated_output("x" * 500)
    assert not is_truncated_output(cut + "\nand more after the note")  # only governance's own note, at the end

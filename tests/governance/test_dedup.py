"""Repeated reads deduplicated at a cut (governance/dedup.py, issue 44): which outputs become a note
and which never do, the pass's one event, and a property over generated sessions that re-read:
never the newest turn or a pinned one, and every note names handles whose recall returns the
original."""

from __future__ import annotations

import re

import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st
from pydantic_ai.messages import ModelRequest, ToolReturnPart
from support.builders import calls, reply, results, tool_turn, user
from support.examples import examples
from support.loop import run

from co_tui.governance.dedup import SAME_AS, dedupe_outputs
from co_tui.governance.handles import handle_of, stamp_handles
from co_tui.governance.markers import marker_info, separate_markers
from co_tui.governance.pins import turn_key
from co_tui.governance.policy import Governor
from co_tui.governance.policy_settings import GovernancePolicy
from co_tui.governance.recall import recall_output
from co_tui.governance.tokens import content_text, estimate_tokens
from co_tui.governance.trim import fit_to_budget, truncate_text
from co_tui.governance.turns import segment

from .synthetic import make_text

A = make_text("code", 5_000, 1)  # the file read again and again
B = make_text("code", 5_000, 2)
C = make_text("logs", 3_000, 3)
NOTE = re.compile(r'the same as (r\d+(?:\.\d+)?) later in the context; recall\("(r\d+(?:\.\d+)?)"\) returns it whole')


def _session(*turn_outputs: list[str]) -> list:
    history: list = []
    for t, outputs in enumerate(turn_outputs):
        history += tool_turn(f"turn {t}", outputs, f"answer {t}", id_prefix=f"t{t}c")
    return stamp_handles(history, 0)


def _notes(messages) -> list[tuple[str, str, str]]:
    """(own handle, newer handle named, recall handle named) of every dedup note in `messages`."""
    out = []
    for message in messages:
        for part in message.parts if isinstance(message, ModelRequest) else ():
            if isinstance(part, ToolReturnPart) and (m := NOTE.search(content_text(part.content))):
                out.append((handle_of(part) or "", m[1], m[2]))
    return out


def _dedup(history: list):
    source = separate_markers(history)
    return dedupe_outputs(source, segment(source), estimate_tokens(source))


@pytest.mark.parametrize(
    ("turns", "noted"),
    [
        # An older read of A, then A again in a later (not newest) turn and in the newest: the two
        # older copies become notes naming the newest copy.
        (([A, C], [A], [B], [A]), {"r2": "r16", "r8": "r16"}),
        # The newer copy in an older turn is named as well.
        (([A], [A], [C]), {"r2": "r6"}),
        # Both copies in the newest turn: the model is working with them, nothing changes.
        (([C], [A, A]), {}),
        # Nothing read twice.
        (([A], [B], [C]), {}),
        # A read twice within one older turn: the first becomes a note naming the second.
        (([A, A], [C]), {"r2": "r4"}),
    ],
)
def test_which_outputs_become_notes(turns, noted):
    history = _session(*turns)
    result = _dedup(history)
    assert {own: newer for own, newer, _ in _notes(result.messages)} == noted
    assert result.deduplicated == len(noted)
    assert all(own == again for own, _, again in _notes(result.messages))  # recall names the output itself
    assert (result.tokens_after < result.tokens_before) == bool(noted)
    assert result.tokens_after == estimate_tokens(result.messages)
    newest = segment(history).turns[-1]
    assert [result.messages[i] for i in newest.indices] == newest.messages


@pytest.mark.parametrize(
    "older",
    [
        pytest.param(lambda part: ToolReturnPart(part.tool_name, part.content, part.tool_call_id), id="no handle"),
        pytest.param(
            lambda part: ToolReturnPart(
                part.tool_name, truncate_text(part.content, 100), part.tool_call_id, metadata=part.metadata
            ),
            id="already cut",
        ),
    ],
)
def test_an_output_recall_cannot_bring_back_or_already_cut_stays(older):
    history = _session([A], [C], [A])
    history[2] = ModelRequest(parts=[older(history[2].parts[0])])
    assert _dedup(history).deduplicated == 0


def test_short_outputs_stay():
    short = "ok: 3 files changed\n" * 10
    assert _dedup(_session([short], [C], [short])).deduplicated == 0


def test_no_dedup_without_a_cut():
    history = _session([A], [B], [A])
    result = fit_to_budget(history, estimate_tokens(history) + 1)
    assert result.events == [] and result.messages == history


def test_dedup_alone_is_one_tool_output_trim_event():
    history = _session([A], [B], [A], [C])
    tokens = estimate_tokens(history)
    result = fit_to_budget(history, tokens - 10, target_tokens=tokens - 200, tool_output_trim_chars=2000)
    assert len(result.events) == 1
    event = result.events[0]
    assert (event.strategy, event.deduplicated_outputs, event.dropped_turns) == ("tool_output_trim", 1, 0)
    assert event.tokens_before == tokens and event.tokens_after == estimate_tokens(result.messages)
    assert event.note == "1 repeated tool output replaced by a note naming the newer copy"
    assert _notes(result.messages) == [("r2", "r10", "r2")]


def test_dedup_and_a_turn_drop_are_one_event():
    history = _session([C], [A], [B], [A], [B], [A])
    tokens = estimate_tokens(history)
    result = fit_to_budget(history, tokens // 4, tool_output_trim_chars=2000)
    assert [e.strategy for e in result.events] == ["turn_trim"]
    event = result.events[0]
    assert event.tokens_before == tokens and event.deduplicated_outputs >= 1
    assert event.note is not None and event.note.startswith(f"{event.deduplicated_outputs} repeated tool output")
    for _own, newer, _ in _notes(result.messages):  # every note names a copy the cut kept
        assert any(handle_of(p) == newer for m in result.messages for p in getattr(m, "parts", ()))


def test_a_pinned_turn_is_never_deduplicated():
    history = _session([A], [B], [C], [A], [B], [A])
    pinned = turn_key(history[0])
    assert pinned is not None
    governor = Governor(
        GovernancePolicy(budget_tokens=estimate_tokens(history) - 500, strategy="trim", max_history_messages=0),
        pins=frozenset({pinned}),
    )
    outcome = run(governor.apply(history))
    assert outcome.changed
    assert history[2] in outcome.messages  # the pinned turn's read of A, verbatim
    assert "r2" not in {own for own, _, _ in _notes(outcome.messages)}


def test_a_repeat_pass_reuses_the_notes():
    history = _session([A], [B], [A], [C])
    first, second = _dedup(history), _dedup(history)
    assert all(a is b for a, b in zip(first.messages, second.messages, strict=True))


# --- the property ---------------------------------------------------------------------------------

POOL = [make_text(kind, size, i) for i, (kind, size) in enumerate([("code", 4_000), ("logs", 2_500), ("json", 1_500)])]


@st.composite
def rereading_sessions(draw):
    """A stamped session of 2–8 turns whose reads come mostly from a pool of three outputs (so most
    are read again), every fourth turn possibly chat only, and the keys of 0–2 pinned turns."""
    history: list = []
    n = draw(st.integers(2, 8))
    for t in range(n):
        # Every fourth turn may be chat only (no reads) or read something new (index len(POOL)).
        options = range(len(POOL) + 1) if t % 4 == 3 else range(len(POOL))
        reads = draw(st.lists(st.sampled_from(options), min_size=0 if t % 4 == 3 else 1, max_size=3))
        if not reads:
            history += [user(f"turn {t}"), reply(f"answer {t}")]
            continue
        history.append(user(f"turn {t}"))
        for k, which in enumerate(reads):
            output = POOL[which] if which < len(POOL) else make_text("prose", 1_000, 100 * t + k)
            cid = f"t{t}c{k}"
            history += [calls(("read_file", cid, {"path": f"f{which}.txt"})), results(("read_file", cid, output))]
        history.append(reply(f"answer {t}"))
    history = stamp_handles(history, 0)
    keys = [k for k in (turn_key(m) for m in history) if k is not None]
    pins = draw(st.lists(st.sampled_from(keys), max_size=2, unique=True)) if keys else []
    return history, frozenset(pins)


@settings(max_examples=examples(200))
@given(rereading_sessions(), st.floats(0.3, 1.05), st.sampled_from(["trim", "summarize"]))
def test_dedup_never_touches_the_newest_turn_or_pins_and_every_note_recalls_the_original(
    session, fraction, strategy
) -> None:
    transcript, pins = session
    budget = max(200, int(estimate_tokens(transcript) * fraction))
    governor = Governor(GovernancePolicy(budget_tokens=budget, strategy=strategy, max_history_messages=0), pins=pins)
    outcome = run(governor.apply(transcript))  # no summariser given: the zero-LLM rules
    context = outcome.messages
    # No note in the newest turn or a pinned one (the step shrink may still shorten the newest
    # turn's older steps, as it always did: that is not a dedup), and pinned turns are verbatim.
    layout = segment(transcript)
    pinned = [t for t in layout.turns if turn_key(t.messages[0]) in pins]
    untouchable = {
        handle_of(p) for turn in [layout.turns[-1], *pinned] for m in turn.messages for p in getattr(m, "parts", ())
    }
    notes = _notes(context)
    event(f"dedup notes: {'some' if notes else 'none'}")  # --hypothesis-show-statistics: most examples have some
    assert not {own for own, _, _ in notes} & untouchable
    kept = {id(m) for m in context}
    assert all(id(m) in kept for turn in pinned for m in turn.messages)
    # Every note names its own output and the newer copy: both recall the original text.
    originals = {handle_of(p): p for m in transcript for p in getattr(m, "parts", ()) if handle_of(p)}
    for own, newer, named in notes:
        original = content_text(originals[own].content)
        assert named == own
        for handle in (own, newer):
            assert recall_output(transcript, handle, page_chars=10**9).text.split("\n", 1)[1] == original
    # Only when the pass cut, counted in one event, never more notes than it says.
    counted = [e.deduplicated_outputs for e in outcome.events if e.deduplicated_outputs]
    assert len(counted) <= 1
    assert len(notes) <= sum(counted)
    assert not notes or outcome.changed
    assert all(marker_info(m) is None or id(m) not in {id(x) for x in transcript} for m in context)

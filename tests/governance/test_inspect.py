"""annotate_history: the /history inspector's per-message status."""

from hypothesis import given
from hypothesis import strategies as st
from support.builders import chat_turn, system, tool_turn

from co_tui.governance import annotate_history, estimate_tokens, fit_to_budget, trim_to_recent_turns
from co_tui.governance.inspect import LIGHT_HEAD_CHARS, lighten_for_inspection
from co_tui.governance.summarize import apply_summary, plan_summary_window

from .synthetic import make_text


def _transcript():
    msgs = [system()]
    for t in range(5):
        msgs += tool_turn(f"task {t}", [make_text("logs", 5000, t)], f"done {t}", id_prefix=f"t{t}-")
    return msgs


def test_everything_in_context_when_nothing_was_cut():
    transcript = _transcript()
    infos = annotate_history(transcript, transcript)
    assert all(i.status == "in_context" for i in infos)
    assert [i.role for i in infos[:5]] == ["system", "user", "assistant", "tool", "assistant"]
    assert [i.turn for i in infos[:6]] == [0, 1, 1, 1, 1, 2]
    assert infos[1].preview == "task 0" and infos[2].preview.startswith("→ read_file")
    assert infos[3].context_index == 3


def test_dropped_truncated_and_kept():
    transcript = _transcript()
    budget = estimate_tokens(transcript[-4:]) + 250  # room for the newest turn and a little more
    res = fit_to_budget(transcript, budget, tool_output_trim_chars=100)
    infos = annotate_history(transcript, res.messages)
    statuses = [i.status for i in infos]
    assert "dropped" in statuses and "truncated" in statuses and "in_context" in statuses
    assert statuses[0] == "in_context"  # system prompt
    assert all(i.status == "in_context" for i in infos if i.turn == 5)  # newest turn verbatim
    dropped_turns = {i.turn for i in infos if i.status == "dropped"}
    assert dropped_turns and max(dropped_turns) < min(i.turn for i in infos if i.status != "dropped" and i.turn)


def test_summarised_messages():
    transcript = [system(), *[m for t in range(20) for m in chat_turn(f"q{t}", f"a{t}")]]
    window = plan_summary_window(transcript, 10, 100_000)
    context, dropped, _ = apply_summary(window, "a summary")
    infos = annotate_history(transcript, context)
    assert sum(i.status == "summarised" for i in infos) == dropped
    assert infos[1].status == "in_context"  # the head turn
    assert infos[-1].status == "in_context"
    later = trim_to_recent_turns(context, estimate_tokens(context) // 3).messages
    assert "dropped" in {i.status for i in annotate_history(transcript, later)}


def test_light_copies_annotate_as_the_whole_messages_do():
    # Big outputs (5,000 characters), a truncated one still in the context, dropped turns.
    transcript = _transcript()
    budget = estimate_tokens(transcript[-4:]) + 250
    context = fit_to_budget(transcript, budget, tool_output_trim_chars=100).messages
    light = lighten_for_inspection(transcript, context)
    assert len(light) == len(transcript)
    copied = [i for i, (a, b) in enumerate(zip(light, transcript, strict=True)) if a is not b]
    assert copied and all(len(light[i].parts[0].content) == LIGHT_HEAD_CHARS for i in copied)
    assert all(len(m.parts[0].content) == 5000 for m in transcript if m.parts[0].part_kind == "tool-return")
    assert annotate_history(light, context) == annotate_history(transcript, context)
    # What the context holds, by identity or by key, is never a copy: it is compared whole.
    held = {id(p) for m in context for p in m.parts}
    assert not any(id(p) in held for i in copied for p in transcript[i].parts)


def test_context_view_annotates_markers_as_in_context():
    transcript = _transcript()
    context = trim_to_recent_turns(transcript, estimate_tokens(transcript) // 2).messages
    rows = annotate_history(context, context)
    assert all(r.status == "in_context" for r in rows)
    assert rows[1].role == rows[1].kind == "marker"


def test_the_prompt_being_sent_is_not_dropped():
    """During a streaming answer the transcript already holds the new prompt while the
    context (updated when the turn ends) does not; after a cut it showed as `dropped`."""
    transcript = _transcript()
    cut = trim_to_recent_turns(transcript, estimate_tokens(transcript[-8:]) + 200)
    assert cut.trimmed
    from support.builders import user

    sending = [*transcript, user("and now?")]
    infos = annotate_history(sending, cut.messages)
    assert infos[-1].status == "in_context"
    assert any(i.status == "dropped" for i in infos)  # the cut itself is still reported


def test_an_empty_interrupted_answer_in_context_is_in_context():
    """After Esc during a tool call an empty assistant message sat in the context but the
    inspector showed it `dropped` (no part to match)."""
    from pydantic_ai.messages import ModelResponse

    transcript = [*_transcript()[:5], ModelResponse(parts=[])]
    infos = annotate_history(transcript, list(transcript))
    assert [i.status for i in infos] == ["in_context"] * len(transcript)


def test_a_compaction_does_not_relabel_what_an_earlier_trim_dropped():
    """After /compact, messages an earlier trim had dropped showed as `summarised`
    (the compaction only read the trim's breadcrumb). With the ledger, each missing message takes the
    status of the cut that removed it."""
    from co_tui.governance import trim_to_message_count
    from co_tui.governance.events import HistoryTrimmed
    from co_tui.governance.markers import make_compact_pair

    transcript = [m for t in range(10) for m in chat_turn(f"q{t}", f"a{t}")]
    cut = trim_to_message_count(transcript, 8)
    assert cut.trimmed
    trim_event = cut.to_event("message_count", 1000)
    compacted = make_compact_pair(20, 10, "the summary")
    compact_event = HistoryTrimmed(
        reason="manual_compact", strategy="compact", dropped_messages=len(transcript) - cut.dropped_messages
    )
    ledger, positions = [trim_event, compact_event], [len(transcript), len(transcript)]
    infos = annotate_history(transcript, compacted, ledger=ledger, positions=positions)
    statuses = [i.status for i in infos]
    assert statuses == ["dropped"] * cut.dropped_messages + ["summarised"] * (len(transcript) - cut.dropped_messages)
    # Without the ledger, the compact marker decides for everything (the old, wrong answer).
    assert {i.status for i in annotate_history(transcript, compacted)} == {"summarised"}


def test_with_the_ledger_the_prompt_being_sent_after_an_in_run_cut_is_not_dropped():
    """During streaming the prompt is in the transcript but not in the (stale) context,
    and a cut made before this request is already in the ledger: the prompt is never its victim."""
    from support.builders import user

    transcript = _transcript()
    sending = [*transcript, user("and now?")]
    cut = trim_to_recent_turns(sending, estimate_tokens(sending[-5:]) + 200)
    assert cut.trimmed
    event = cut.to_event("token_budget", 1000)
    # The context the session holds is still the one from before this turn (no cut applied yet).
    infos = annotate_history(sending, transcript, ledger=[event], positions=[len(sending)])
    assert infos[-1].status == "in_context"
    assert all(i.status == "in_context" for i in infos)  # the stale context still holds the rest


def test_with_the_ledger_an_empty_interrupted_answer_is_in_context():
    """An empty assistant message left by Esc during a tool call is in the context."""
    from pydantic_ai.messages import ModelResponse

    transcript = [*_transcript()[:5], ModelResponse(parts=[])]
    context = [*transcript[:5], ModelResponse(parts=[], timestamp=transcript[-1].timestamp)]
    infos = annotate_history(transcript, context, ledger=[], positions=[])
    assert [i.status for i in infos] == ["in_context"] * len(transcript)
    assert infos[-1].context_index == 5


# --- the ledger replay reads each message about once (issue 33: quadratic on 5,000 turns) --------


def _replay_by_rebuilding(located, turn_of, ledger, positions, evicted):
    """The replay as it was written first, rebuilding the missing messages' list at every cut: the
    reference the linear one (`_removals_from_ledger`) must agree with."""
    alive = [i for i, (where, _) in enumerate(located) if where is None]
    removed = {}
    for event, position in zip(ledger, positions, strict=False):
        count = event.dropped_messages
        if count <= 0 or not alive:
            continue
        everything = event.strategy == "compact" or event.reason == "clear"
        newest_turn = turn_of.get(position - 1, -1)
        if event.reason == "manual_evict":
            taken = [i for i in alive if i < position and i in evicted][:count]
        else:
            candidates = [
                i
                for i in alive
                if i < position and i not in evicted and (everything or turn_of.get(i, 0) != newest_turn)
            ]
            taken = candidates[-count:] if everything else candidates[:count]
        summarised = event.strategy in ("summary", "compact")
        without = event.unsummarised_messages if summarised else 0
        for k, i in enumerate(taken):
            removed[i] = "summarised" if summarised and k >= without else "dropped"
        gone = set(taken)
        alive = [i for i in alive if i not in gone]
    return removed


@given(data=st.data())
def test_the_ledger_replay_agrees_with_rebuilding_the_list_at_every_cut(data) -> None:
    from co_tui.governance.events import HistoryTrimmed
    from co_tui.governance.inspect import _removals_from_ledger

    size = data.draw(st.integers(1, 60))
    located = [
        (None if missing else 0, True) for missing in data.draw(st.lists(st.booleans(), min_size=size, max_size=size))
    ]
    turn_of, turn = {}, 0
    for i in range(size):
        turn += data.draw(st.integers(0, 1))
        turn_of[i] = turn
    evicted = set(data.draw(st.lists(st.integers(0, size - 1), max_size=5)))
    kinds = st.sampled_from(
        [
            ("budget", "turn_trim"),
            ("budget", "summary"),
            ("manual", "compact"),
            ("clear", "clear"),
            ("manual_evict", "evict"),
        ]
    )
    ledger, positions = [], []
    for _ in range(data.draw(st.integers(0, 12))):
        reason, strategy = data.draw(kinds)
        count = data.draw(st.integers(0, 8))
        ledger.append(
            HistoryTrimmed(
                reason=reason,
                strategy=strategy,
                dropped_messages=count,
                unsummarised_messages=data.draw(st.integers(0, count)),
            )
        )
        positions.append(data.draw(st.integers(0, size)))
    assert _removals_from_ledger(located, turn_of, ledger, positions, evicted) == _replay_by_rebuilding(
        located, turn_of, ledger, positions, evicted
    )

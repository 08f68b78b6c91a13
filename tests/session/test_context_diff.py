"""The context edit plan: whatever governance did, applying the plan yields exactly the new context."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

from hypothesis import given, settings
from hypothesis import strategies as st
from support.examples import examples

from co_tui.session.context_diff import ContextState, plan_context_update


@dataclass
class Msg:
    text: str
    parts: list = field(default_factory=list)


def _encode(message: Msg) -> tuple[str, str, bytes]:
    return ("request", message.text, hashlib.blake2b(message.text.encode(), digest_size=16).digest())


def _apply(old: ContextState, plan) -> list[tuple[int, bytes]]:
    table = dict(zip(old.keys, old.digests, strict=False))
    for key in plan.deletes:
        del table[key]
    # The ranges say the same: every saved key inside a range is deleted, no other.
    in_ranges = sorted(k for k in old.keys if any(lo <= k <= hi for lo, hi in plan.delete_ranges))
    assert in_ranges == sorted(plan.deletes)
    for key, enc in plan.inserts:
        assert key not in table
        table[key] = enc[2]
    return sorted(table.items())


def _saved(messages: list[Msg], *, with_objects: bool = True) -> ContextState:
    state = plan_context_update(ContextState(), messages, _encode).state
    return ContextState.from_rows(state.keys, state.digests, state.messages if with_objects else None)


def _snapshot(state: ContextState) -> tuple:
    return (list(state.keys), list(state.digests), list(state.messages))


edits = st.lists(
    st.one_of(
        st.tuples(st.just("keep"), st.integers(0, 30)),  # the same object as old[i]
        st.tuples(st.just("copy"), st.integers(0, 30)),  # an equal, rebuilt copy of old[i]
        st.tuples(st.just("new"), st.text(min_size=1, max_size=6)),
    ),
    max_size=40,
)


# 1.5× the default: each case draws an edit script on top of its context.
@settings(max_examples=examples(150))
@given(old_texts=st.lists(st.text(min_size=1, max_size=6), max_size=30), edit=edits, with_objects=st.booleans())
def test_plan_reproduces_the_new_context(old_texts: list[str], edit: list, with_objects: bool) -> None:
    old_msgs = [Msg(t) for t in old_texts]
    old = _saved(old_msgs, with_objects=with_objects)
    new: list[Msg] = []
    for op, arg in edit:
        if op == "new":
            new.append(Msg("n:" + arg))
        elif old_msgs:
            source = old_msgs[arg % len(old_msgs)]
            new.append(source if op == "keep" else Msg(source.text))
    before = _snapshot(old)
    new_before = list(new)
    plan = plan_context_update(old, new, _encode)

    assert _snapshot(old) == before and new == new_before  # the old rows and the input untouched
    result = _apply(old, plan)
    assert [d for _k, d in result] == [_encode(m)[2] for m in new]
    assert plan.state.keys == [k for k, _d in result]
    assert all(a is b for a, b in zip(plan.state.messages, new, strict=False)) and len(plan.state.messages) == len(new)
    # The indexes carried to the next save describe exactly the new rows.
    assert plan.state.by_id == {id(m): k for m, k in zip(new, plan.state.keys, strict=False)} or len(
        set(map(id, new))
    ) < len(new)
    assert sorted(k for keys in plan.state.by_digest.values() for k in keys) == plan.state.keys
    # A second save of the same context changes nothing.
    again = plan_context_update(plan.state, new, _encode)
    assert again.deletes == [] and again.inserts == []


def test_unchanged_and_appended_touch_nothing_old() -> None:
    msgs = [Msg(str(i)) for i in range(10)]
    old = _saved(msgs)
    plan = plan_context_update(old, msgs + [Msg("x")], _encode)
    assert plan.deletes == [] and len(plan.inserts) == 1


def test_head_replaced_and_copies_rebuilt() -> None:
    msgs = [Msg("marker 1")] + [Msg(str(i)) for i in range(10)]
    old = _saved(msgs)
    new = [Msg("marker 2")] + [Msg(m.text) for m in msgs[3:]]  # all rebuilt, equal copies
    plan = plan_context_update(old, new, _encode)
    assert sorted(plan.deletes) == sorted(old.keys[:3])
    assert [enc[1] for _k, enc in plan.inserts] == ["marker 2"]


def test_no_room_between_keys_renumbers_the_tail() -> None:
    a, b, c = Msg("a"), Msg("b"), Msg("c")
    old = ContextState.from_rows([0, 1], [_encode(a)[2], _encode(b)[2]], [a, b])
    plan = plan_context_update(old, [a, c, b], _encode)
    result = _apply(old, plan)
    assert [d for _k, d in result] == [_encode(m)[2] for m in (a, c, b)]
    assert plan.deletes == [1]

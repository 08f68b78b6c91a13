"""The step shrink's memo (`step_shrink._SHRUNK`): repeat passes reuse its work, results never change,
it forgets what changed, and it never touches its inputs."""

import copy

import pytest
from support.builders import calls, chat_turn, results, tool_turn, user

from co_tui.governance import check_pairing, estimate_tokens, shrink_steps
from co_tui.governance import step_shrink as shrink_module
from co_tui.governance.tokens import _IdentityCache

from .synthetic import make_text


def _big_turn() -> list:
    """A turn whose older steps carry large outputs and one huge call argument."""
    outputs = [make_text("logs", 12_000, i) for i in range(8)]
    history = [*chat_turn("hi", "hello"), *tool_turn("big", outputs)]
    # One older step calls a tool with huge arguments (the response side of the shrink).
    history[5] = calls(("write_file", "c1", {"path": "a.py", "text": make_text("code", 9_000, 99)}))
    return history


def _tight(history: list) -> int:
    """A budget only the deepest level (0 chars) reaches: every level runs."""
    return estimate_tokens(history) // 5


def test_a_repeat_shrink_returns_the_same_new_objects():
    history = _big_turn()
    budget = _tight(history)
    first = shrink_steps(history, budget)
    second = shrink_steps(history, budget)
    assert first.trimmed and first.shrunk_parts > 1
    assert len(first.messages) == len(second.messages)
    # Without the memo the levels evict each other in the one-cap caches and the second pass
    # builds new messages (re-counting their tokens).
    assert all(a is b for a, b in zip(first.messages, second.messages, strict=True))
    assert (second.tokens_before, second.tokens_after, second.shrunk_parts) == (
        first.tokens_before,
        first.tokens_after,
        first.shrunk_parts,
    )


def test_memoised_results_equal_fresh_ones(monkeypatch: pytest.MonkeyPatch):
    history = _big_turn()
    for budget in (_tight(history), estimate_tokens(history) // 2, estimate_tokens(history) - 50):
        warm = shrink_steps(history, budget)
        warm = shrink_steps(history, budget)  # from the memo
        monkeypatch.setattr(shrink_module, "_SHRUNK", _IdentityCache())
        fresh = shrink_steps(copy.deepcopy(history), budget)
        assert warm.messages == fresh.messages
        assert (warm.tokens_after, warm.shrunk_parts) == (fresh.tokens_after, fresh.shrunk_parts)
        assert check_pairing(warm.messages) == []


def test_the_memo_forgets_what_changed():
    history = _big_turn()
    message = history[6]  # an older step's tool result
    cut_1000, n_1000 = shrink_module._shrink_message(message, 1000)
    cut_0, n_0 = shrink_module._shrink_message(message, 0)
    assert n_1000 == n_0 == 1 and cut_1000 != cut_0  # one entry per cap
    assert shrink_module._shrink_message(message, 1000)[0] is cut_1000
    # A new parts list (a copy made elsewhere) is a different message: counted afresh.
    message.parts = [*message.parts, *results(("grep", "zz", make_text("logs", 3_000, 7))).parts]
    again, n = shrink_module._shrink_message(message, 1000)
    assert again is not cut_1000 and n == 2
    # Equal content in another object: an equal result, not the other object's.
    twin = copy.deepcopy(history[8])
    assert shrink_module._shrink_message(twin, 200)[0] == shrink_module._shrink_message(history[8], 200)[0]
    assert shrink_module._shrink_message(twin, 200)[0] is not shrink_module._shrink_message(history[8], 200)[0]


def test_the_shrink_never_mutates_its_input():
    history = [*_big_turn(), user("and then?")]
    history.pop()  # the newest turn stays the big one
    before = copy.deepcopy(history)
    ids = [id(m) for m in history]
    parts = [list(m.parts) for m in history]
    budget = _tight(history)
    for _ in range(2):
        assert shrink_steps(history, budget).trimmed
    assert history == before
    assert [id(m) for m in history] == ids
    assert [list(m.parts) for m in history] == parts

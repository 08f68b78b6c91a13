"""A pass with known counts (issue 44): a cut note lists what it lists once per cut and renders no
more lines than it keeps; the memos of the pass (per turn: `cut_notes._LINES`,
`truncation._TURN_TRIMS`; per input: `trim._PREPARED`, `trim._STEPS`, `trim._TURN_TOKENS`; and
`trim._BREADCRUMB_TOKENS`) never change a result, and the pass never touches its input."""

import copy
from collections.abc import Sequence

import pytest
from support.builders import breadcrumb, calls, results, tool_turn, user

from co_tui.governance import cut_notes, truncation
from co_tui.governance import trim as trim_module
from co_tui.governance.handles import stamp_handles
from co_tui.governance.markers import marker_text
from co_tui.governance.tokens import _IdentityCache, estimate_tokens
from co_tui.governance.trim import fit_to_budget
from co_tui.governance.turns import segment

from .synthetic import make_text


def _history(turns: int = 60, *, output_chars: int = 3_000) -> list:
    """`turns` tool turns of two reads each (outputs over the 2,000-char cap), stamped with handles."""
    history: list = []
    for t in range(turns):
        outputs = [make_text("code", output_chars, 10 * t + k) for k in range(2)]
        history += tool_turn(f"turn {t}: look at module {t}", outputs, f"module {t} read", id_prefix=f"t{t}c")
    return stamp_handles(history, 0)


def _eager_listing(layout, dropped: int, room: int, start: int = 0) -> str:
    """The listing as it was made before issue 44: every removed turn's line rendered, then capped."""
    numbers = cut_notes.turn_numbers(layout)
    first = numbers[start - 1] + 1 if start else 1
    last = numbers[dropped - 1]
    head = cut_notes.removed_listing(layout, dropped, marker_text, 10**6, start=start).split("\n")[0]
    if dropped <= start or len(head) > room:
        return ""
    assert str(first) in head and str(last) in head
    lines = [
        *cut_notes._earlier_lines(layout, marker_text),
        *(cut_notes.turn_line(numbers[i], layout.turns[i]) for i in range(start, dropped)),
    ]
    kept: list[str] = []
    used = 0
    for line in reversed(lines):
        if used + len(line) + 1 > room - len(head) - 32:
            break
        kept.append(line)
        used += len(line) + 1
    left = len(lines) - len(kept)
    if left and room - len(head) >= 32:
        kept.append(f"- ({left} earlier turns not listed)")
    return "\n".join([head, *reversed(kept)])


def _forget(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cut_notes, "_LINES", _IdentityCache())
    monkeypatch.setattr(truncation, "_TURN_TRIMS", _IdentityCache())
    monkeypatch.setattr(trim_module, "_BREADCRUMB_TOKENS", {})
    monkeypatch.setattr(trim_module, "_PREPARED", [])
    monkeypatch.setattr(trim_module, "_STEPS", _IdentityCache())
    monkeypatch.setattr(trim_module, "_TURN_TOKENS", _IdentityCache())


@pytest.mark.parametrize(
    ("dropped", "room", "start"),
    [
        (1, 1500, 0),  # one turn: "Turn 1 is out of view"
        (40, 1500, 0),  # many turns: the oldest are counted, not listed
        (40, 120, 0),  # the head and hardly a line
        (40, 40, 0),  # not even the head: no listing
        (40, 1500, 2),  # a summary's head kept before the marker
        (3, 1500, 3),  # nothing dropped after the head
        (59, 10**6, 0),  # room for every line
    ],
)
def test_the_lazy_listing_equals_the_eager_one(dropped: int, room: int, start: int):
    history = [breadcrumb(12, 3), *_history()]
    layout = segment(history)
    assert cut_notes.removed_listing(layout, dropped, marker_text, room, start=start) == _eager_listing(
        layout, dropped, room, start
    )


def test_a_cut_renders_only_the_lines_it_lists_and_once(monkeypatch: pytest.MonkeyPatch):
    rendered: list[int] = []
    real = cut_notes.turn_line

    def counting(number: int, turn) -> str:
        rendered.append(number)
        return real(number, turn)

    monkeypatch.setattr(cut_notes, "turn_line", counting)
    _forget(monkeypatch)
    history = _history()
    budget = estimate_tokens(history) // 4
    first = fit_to_budget(history, budget, tool_output_trim_chars=2000)
    assert [e.strategy for e in first.events] == ["turn_trim"] and first.events[0].dropped_turns > 30
    note = marker_text(first.messages[0]) or ""
    listed = [line for line in note.split("\n") if line.startswith(cut_notes.LISTED_PREFIX)]
    assert "earlier turns not listed" in note and 0 < len(listed) < 20
    # The line that did not fit is rendered too (to find that it does not), no other; the cut may be
    # tried one turn deeper once (its listing priced in), which renders the same lines again.
    assert len(set(rendered)) <= len(listed) + 2 and len(rendered) <= 2 * (len(listed) + 2)
    rendered.clear()
    second = fit_to_budget(history, budget, tool_output_trim_chars=2000)
    assert rendered == []  # the same cut again: every line from the memo
    assert second.messages[1:] == first.messages[1:] and marker_text(second.messages[0]) == note


def _dumped(messages: Sequence) -> list:
    from pydantic_ai.messages import ModelMessagesTypeAdapter

    # Timestamps differ between two breadcrumbs built at different moments; compare the rest.
    out = ModelMessagesTypeAdapter.dump_python(list(messages), mode="json")
    for message in out:
        message.pop("timestamp", None)
        for part in message.get("parts", []):
            part.pop("timestamp", None)
    return out


@pytest.mark.parametrize("stub", [False, True])
def test_memoised_passes_equal_fresh_ones(monkeypatch: pytest.MonkeyPatch, stub: bool):
    history = [user("before everything"), *_history(30)]
    total = estimate_tokens(history)
    # From "only outputs cut" through "outputs cut part way" to "most turns dropped".
    for budget in (total - 2_000, total * 3 // 4, total // 2, total // 5):
        fit_to_budget(history, budget, tool_output_trim_chars=2000, stub=stub)
        warm = fit_to_budget(history, budget, tool_output_trim_chars=2000, stub=stub)
        with monkeypatch.context() as patch:
            _forget(patch)
            fresh = fit_to_budget(copy.deepcopy(history), budget, tool_output_trim_chars=2000, stub=stub)
        assert _dumped(warm.messages) == _dumped(fresh.messages), budget
        assert [e.to_dict() for e in warm.events] == [e.to_dict() for e in fresh.events], budget
        assert (warm.tokens_before, warm.tokens_after, warm.fits) == (
            fresh.tokens_before,
            fresh.tokens_after,
            fresh.fits,
        )


def test_a_turn_that_changed_is_listed_afresh():
    history = _history(10)
    layout = segment(history)
    before = cut_notes.removed_listing(layout, 5, marker_text)
    changed = list(history)
    # Turn 3's first call now reads another file: a new message in the middle of the turn.
    position = layout.turns[2].indices[1]
    changed[position] = calls(("read_file", "t2c0", {"path": "elsewhere.py"}))
    after = cut_notes.removed_listing(segment(changed), 5, marker_text)
    assert "elsewhere.py" in after and "elsewhere.py" not in before
    # Equal content in other objects lists the same.
    assert cut_notes.removed_listing(segment(copy.deepcopy(history)), 5, marker_text) == before


def test_a_repeat_pass_is_memoised_but_hands_out_its_own_lists():
    history = _history(20)
    budget = estimate_tokens(history) // 3
    first = fit_to_budget(history, budget, tool_output_trim_chars=2000)
    second = fit_to_budget(history, budget, tool_output_trim_chars=2000)
    assert first.messages is not second.messages
    assert all(a is b for a, b in zip(first.messages[1:], second.messages[1:], strict=True))
    first.messages.append(user("a caller's own message"))  # the caller's list: the memo is not touched
    third = fit_to_budget(history, budget, tool_output_trim_chars=2000)
    assert len(third.messages) == len(second.messages)


def test_a_message_given_new_parts_is_taken_apart_afresh():
    history = _history(12)
    budget = estimate_tokens(history) // 2
    fit_to_budget(history, budget, tool_output_trim_chars=2000)
    # The same message object with another parts list (as a copy made elsewhere would be): the memo
    # of that input no longer matches, and the pass counts the new parts.
    history[-2] = copy.copy(history[-2])
    before = fit_to_budget(history, budget, tool_output_trim_chars=2000).tokens_before
    history[-2].parts = [*history[-2].parts, *results(("grep", "zz", make_text("logs", 4_000, 5))).parts]
    after = fit_to_budget(history, budget, tool_output_trim_chars=2000).tokens_before
    assert after > before


def test_the_pass_never_touches_its_input():
    history = [*_history(20), *tool_turn("newest", [make_text("logs", 9_000, 1)]), results(("grep", "x", "late"))]
    history.pop()  # keep pairing valid: the newest turn ends in its reply
    snapshot = copy.deepcopy(history)
    ids = [id(m) for m in history]
    for _ in range(2):
        fit_to_budget(history, estimate_tokens(history) // 3, tool_output_trim_chars=2000)
    assert [id(m) for m in history] == ids
    assert history == snapshot

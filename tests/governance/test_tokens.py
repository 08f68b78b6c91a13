"""The words+punctuation estimator and its per-object cache."""

import json

from pydantic_ai.messages import ModelRequest, ToolReturnPart
from support.builders import results, tool_turn, user

from co_tui.governance import estimate_text_tokens, estimate_tokens
from co_tui.governance import tokens as tok

from .synthetic import make_text


def test_empty_and_short_text():
    assert estimate_text_tokens("") == 0
    assert 1 <= estimate_text_tokens("hi") <= 2
    assert 8 <= estimate_text_tokens("The quick brown fox jumps over the lazy dog.") <= 13


def test_not_chars_over_four_on_dense_content():
    # chars/4 undercounts base64, logs and CJK badly; the estimator must count far more pieces.
    for category, min_ratio in (("base64", 2.0), ("cjk", 3.0), ("logs", 1.3)):
        text = make_text(category, 8000)
        assert estimate_text_tokens(text) > min_ratio * len(text) / 4, category


def test_long_text_scales_with_length():
    small = make_text("logs", 16_000)
    big = small * 5
    ratio = estimate_text_tokens(big) / estimate_text_tokens(small)
    assert 4.5 < ratio < 5.5


def test_dict_list_and_str_content_are_counted():
    payload = {"rows": [{"id": i, "name": f"item {i}"} for i in range(50)]}
    as_dict = estimate_tokens([results(("q", "c1", payload))])
    as_str = estimate_tokens([results(("q", "c1", json.dumps(payload, separators=(",", ":"))))])
    as_list = estimate_tokens([results(("q", "c1", payload["rows"]))])
    assert as_dict > 200 and abs(as_dict - as_str) <= 5 and as_list > 200


def test_counts_are_cached_by_identity_and_input_untouched():
    history = tool_turn("go", [make_text("code", 4000, s) for s in range(3)])
    snapshot = [repr(m) for m in history]
    first = estimate_tokens(history)
    assert estimate_tokens(history) == first
    assert [repr(m) for m in history] == snapshot
    for m in history:
        assert tok._MESSAGE_CACHE.get(m, (id(m.parts), len(m.parts))) is not None


def test_cache_notices_a_replaced_parts_list():
    msg = user("short")
    before = estimate_tokens([msg])
    msg.parts = [*msg.parts, ToolReturnPart("t", make_text("prose", 2000), "c")]
    assert estimate_tokens([msg]) > before + 300


def test_media_is_billed():
    from pydantic_ai.messages import BinaryContent, UserPromptPart

    req = ModelRequest(parts=[UserPromptPart(["look", BinaryContent(b"\x89PNG", media_type="image/png")])])
    assert estimate_tokens([req]) >= tok.MEDIA_TOKENS


# Adversarial layouts for the estimate: dense and sparse stretches of any length in any
# order. A sampled estimate read 102 KB laid out as "1 KB of blanks, then dense text" × 16 as 99
# tokens against 98,418 measured; the estimate must be about the sum of its pieces for every mix.
_PIECES = {
    "blank": " " * 997,
    "dense": "".join(chr(33 + (i * 7919) % 94) for i in range(1500)),  # punctuation, digits, mixed case
    "cjk": "漢字かな交じり文" * 60,
    "emoji": "🙂🚀" * 200,
    "base64": make_text("base64", 2000),
    "prose": make_text("prose", 2000),
}


def _piece_sum(pieces: list[str]) -> int:
    return sum(estimate_text_tokens(p) for p in pieces)


def test_dense_text_between_sample_windows_is_counted():
    size, windows = 102_400, 16
    step = size // windows
    dense = (_PIECES["dense"] * 10)[: step - 1024]
    pieces = [chunk for _ in range(windows) for chunk in (" " * 1024, dense)]
    text = "".join(pieces)
    estimate = estimate_text_tokens(text)
    assert estimate > 50_000  # the sampled estimate said 1
    assert abs(estimate - _piece_sum(pieces)) <= 3 * len(pieces) + 0.02 * estimate


from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from support.examples import examples  # noqa: E402


# Fewer than the default: each case estimates a text of up to 30 × 40 repeated pieces.
@settings(max_examples=examples(60))
@given(st.lists(st.tuples(st.sampled_from(sorted(_PIECES)), st.integers(1, 40)), min_size=1, max_size=30))
def test_estimate_is_the_sum_of_its_pieces_for_any_mix(layout):
    pieces = [(_PIECES[name] * reps) for name, reps in layout]
    text = "".join(pieces)
    estimate = estimate_text_tokens(text)
    expected = _piece_sum(pieces)
    # Joining two pieces changes a few boundary features (a word run, a punctuation run); nothing else.
    assert abs(estimate - expected) <= 3 * len(pieces) + 0.02 * expected, (len(text), estimate, expected)

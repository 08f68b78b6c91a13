"""The words+punctuation estimator and its per-object cache."""

import json

from pydantic_ai.messages import ModelRequest, ToolReturnPart

from co_tui.governance import estimate_text_tokens, estimate_tokens
from co_tui.governance import tokens as tok

from .builders import results, tool_turn, user
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


def test_long_text_is_sampled_but_scales_with_length():
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

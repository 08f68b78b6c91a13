"""`session/answer_cap.py`, pure: where a capped answer stops, and the response it leaves."""

from __future__ import annotations

from pydantic_ai.messages import ModelRequest, ModelResponse, TextPart, ToolCallPart, UserPromptPart

from co_tui.session.answer_cap import AnswerCap, cap_line, capped_history

PROMPT = ModelRequest(parts=[UserPromptPart(content="talk")])


def test_the_cap_takes_deltas_up_to_it_then_nothing() -> None:
    cap = AnswerCap(10)
    assert [cap.take(t) for t in ("abcd", "efgh", "ijkl", "mnop")] == ["abcd", "efgh", "ij", ""]
    assert cap.reached and cap.shown == "abcdefghij"
    assert AnswerCap(0).take("x" * 1000) == "x" * 1000  # 0: no cap


def test_a_new_response_counts_from_zero() -> None:
    cap = AnswerCap(10)
    cap.take("abcdefgh")
    cap.reset()
    assert cap.take("abcdefgh") == "abcdefgh" and not cap.reached


def test_the_kept_response_ends_where_the_shown_one_did() -> None:
    response = ModelResponse(parts=[TextPart("abc"), ToolCallPart("t", {}, "c1"), TextPart("defghijk"), TextPart("zz")])
    messages = [PROMPT, response]
    capped = capped_history(messages, 6, "abcdef")
    assert [p.content for p in capped[-1].parts if isinstance(p, TextPart)] == ["abc", "def" + cap_line(6)]
    assert any(isinstance(p, ToolCallPart) for p in capped[-1].parts)
    assert messages[-1] is response and response.parts[2].content == "defghijk"  # the input is unchanged


def test_a_run_that_kept_no_partial_response_ends_with_one_holding_what_was_shown() -> None:
    capped = capped_history([PROMPT], 6, "abcdef")
    assert isinstance(capped[-1], ModelResponse)
    assert capped[-1].parts == [TextPart("abcdef" + cap_line(6))]


def test_less_text_than_the_cap_kept_still_gets_the_line() -> None:
    capped = capped_history([PROMPT, ModelResponse(parts=[TextPart("abc")])], 6, "abc")
    assert [p.content for p in capped[-1].parts] == ["abc", cap_line(6).lstrip("\n")]

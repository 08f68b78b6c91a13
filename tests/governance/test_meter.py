"""TokenMeter: exact / anchored / estimated, calibration, reset on model change."""

from hypothesis import assume, given, settings
from hypothesis import strategies as st
from pydantic_ai.messages import ModelResponse, RequestUsage, TextPart
from support.builders import chat_turn, results, user
from support.examples import examples

from co_tui.governance import TokenMeter, estimate_tokens, trim_to_recent_turns

from .synthetic import make_text


def _response(text="ok", input_tokens=0, output_tokens=0):
    return ModelResponse(
        parts=[TextPart(text)], usage=RequestUsage(input_tokens=input_tokens, output_tokens=output_tokens)
    )


def test_no_report_is_estimated_with_prior_and_overhead_hint():
    meter = TokenMeter(provider="anthropic", overhead_tokens=300)
    history = [user(make_text("prose", 2000))]
    reading = meter.reading(history)
    assert reading.exactness == "estimated"
    assert reading.tokens == round(1.2 * estimate_tokens(history)) + 300
    assert TokenMeter().reading([]).tokens == 0


def test_before_the_first_message_the_figure_is_the_overhead():
    """The meter read `~0/10k` before the first message while /context counted the instructions
    and tool schemas every request carries (issue 32, item 1): the request is that overhead alone."""
    assert TokenMeter(overhead_tokens=8300).reading([]).tokens == 8300


def test_exact_then_anchored_then_estimated_after_rewrite():
    meter = TokenMeter(provider="openai")
    history = [user("hello there"), _response("hi", 1200, 30)]
    meter.observe_response(None, history)  # usage read from the response
    exact = meter.reading(history)
    assert (exact.exactness, exact.tokens, exact.input_tokens, exact.output_tokens) == ("exact", 1230, 1200, 30)

    grown = [*history, user(make_text("logs", 4000))]
    anchored = meter.reading(grown)
    assert anchored.exactness == "anchored"
    assert anchored.tokens == 1230 + round(meter.ratio * estimate_tokens(grown[-1:]))
    assert anchored.anchor_tokens == 1230

    rewritten = [user("hello there"), *grown[1:]]  # a different object at the front: report no longer applies
    assert meter.reading(rewritten).exactness == "estimated"


def test_growth_between_reports_calibrates_ratio():
    meter = TokenMeter(provider="openai")
    history = [user("start"), _response("a")]
    meter.observe_response(RequestUsage(input_tokens=500, output_tokens=10), history)
    added = results(("read", "c1", make_text("code", 8000)))
    history = [*history, added, _response("b")]
    true_growth = 2 * estimate_tokens([history[1], added])  # the provider counts twice our estimate
    meter.observe_response(RequestUsage(input_tokens=500 + true_growth, output_tokens=10), history)
    assert 1.9 < meter.ratio <= 2.0
    assert 0.5 <= meter.ratio <= 3.0


def test_model_change_resets_calibration():
    meter = TokenMeter(provider="openai", model_name="a")
    history = [user(make_text("prose", 8000)), _response("x")]
    meter.observe_response(
        RequestUsage(input_tokens=estimate_tokens(history[:1]) * 3, output_tokens=5), history, model_name="a"
    )
    assert meter.ratio > 1.5
    meter.observe_response(RequestUsage(input_tokens=0), history, model_name="b")  # switch, no usable report
    assert meter.ratio == meter.prior and meter.reading(history).exactness == "estimated"


def test_meter_survives_governance_rewrites():
    meter = TokenMeter()
    history = [m for t in range(6) for m in chat_turn(f"q{t}", make_text("prose", 3000, t))]
    meter.observe_response(RequestUsage(input_tokens=estimate_tokens(history), output_tokens=50), history)
    cut = trim_to_recent_turns(history, estimate_tokens(history) // 2).messages
    reading = meter.reading(cut)
    assert reading.exactness == "estimated" and 0 < reading.tokens < estimate_tokens(history)


def _settled_meter(settle_ratio: float) -> tuple[TokenMeter, list]:
    """A meter that has learned `settle_ratio` from two growths of a few thousand tokens."""
    meter = TokenMeter(provider="openai")
    history = [user("start"), _response("a")]
    reported = 500
    meter.observe_response(RequestUsage(input_tokens=reported, output_tokens=5), history)
    for seed in range(2):
        before = estimate_tokens(history[:-1])  # the request the last report was for
        history = [*history, user(make_text("prose", 8000, seed)), _response("b")]
        reported += round(settle_ratio * (estimate_tokens(history[:-1]) - before))
        meter.observe_response(RequestUsage(input_tokens=reported, output_tokens=5), history)
    return meter, history


def _move(settle_ratio: float, sample: float, chars: int) -> float:
    """How far one growth of `chars` characters reported at `sample` × our estimate moves the ratio."""
    meter, history = _settled_meter(settle_ratio)
    start, reported = meter.ratio, meter.reading(history).input_tokens
    before = estimate_tokens(history[:-1])
    grown = [*history, user(make_text("prose", chars, 7)), _response("c")]
    meter.observe_response(
        RequestUsage(input_tokens=reported + round(sample * (estimate_tokens(grown[:-1]) - before)), output_tokens=5),
        grown,
    )
    return abs(meter.ratio - start)


# Fewer than the default: each case settles two meters over 8,000-character prompts.
@settings(max_examples=examples(60))
@given(st.floats(0.7, 2.0), st.floats(0.5, 3.0), st.integers(300, 700), st.integers(6000, 20000))
def test_a_short_prompt_moves_the_learned_ratio_less_than_a_long_one(settle_ratio, sample, short, long):
    """The ratio swung on short prompts (each growth sample weighed alike, half the ratio): now a
    sample weighs by its size, so a prompt of a few dozen tokens moves it less than a long tool
    output reported at the same ratio, and far less than halfway."""
    small, large = _move(settle_ratio, sample, short), _move(settle_ratio, sample, long)
    gap = abs(sample - settle_ratio)
    assume(gap > 0.1)  # nearer, the reports' rounding to whole tokens is all that moves it
    assert small < large and small < 0.2 * gap

"""The one wording of trim banners shared by the TUI, print mode and exports."""

from __future__ import annotations

from co_tui.governance.events import HistoryTrimmed
from co_tui.session.banner import banner_details, banner_line
from co_tui.text import format_tokens


def test_format_tokens() -> None:
    assert [format_tokens(n) for n in (12, 1000, 12_900, 1_250_000)] == ["12", "1k", "12.9k", "1.25M"]


def test_turn_trim_line_and_plurals() -> None:
    event = HistoryTrimmed(
        reason="token_budget",
        strategy="turn_trim",
        dropped_messages=14,
        dropped_turns=3,
        kept_turns=1,
        tokens_before=41_200,
        tokens_after=12_900,
        budget_tokens=20_000,
    )
    assert banner_line(event) == "✂ History trimmed · 14 messages (3 turns) · 41.2k → 12.9k tokens · token budget"
    one = HistoryTrimmed(reason="token_budget", strategy="turn_trim", dropped_messages=1, dropped_turns=1, kept_turns=1)
    assert "1 message (1 turn)" in banner_line(one)
    assert dict(banner_details(one))["removed"] == "1 message, 1 turn"


def test_large_counts_have_the_thousands_separator_the_log_uses() -> None:
    """The banner said `1234 messages` where the chat log and the inspector say `1,234`."""
    event = HistoryTrimmed(
        reason="clear", strategy="turn_trim", dropped_messages=1234, dropped_turns=1001, kept_turns=1200
    )
    assert "1,234 messages (1,001 turns)" in banner_line(event)
    details = dict(banner_details(event))
    assert details["removed"] == "1,234 messages, 1,001 turns"
    assert details["kept"] == "1,200 turns"


def test_titles_for_compact_clear_and_summary() -> None:
    compact = HistoryTrimmed(reason="manual_compact", strategy="compact", dropped_messages=8, summary="s")
    clear = HistoryTrimmed(reason="clear", strategy="turn_trim", dropped_messages=8)
    summary = HistoryTrimmed(reason="message_count", strategy="summary", dropped_messages=8, summary="recap")
    assert banner_line(compact).startswith("✂ Conversation compacted")
    assert banner_line(clear).startswith("✂ Conversation cleared")
    assert banner_line(summary).startswith("✂ History summarised")
    assert banner_details(summary)[-1] == ("summary", "recap")


def test_a_narrow_banner_is_shortened_at_segment_boundaries() -> None:
    """At 80×24 a banner was cut mid-word (`· t`, `messag`)."""
    event = HistoryTrimmed(
        reason="message_count", strategy="turn_trim", dropped_messages=4, dropped_turns=1, kept_turns=2,
        tokens_before=816, tokens_after=544,
    )  # fmt: skip
    full = banner_line(event)
    assert banner_line(event, len(full)) == full
    assert banner_line(event, 72) == "✂ History trimmed · 4 messages (1 turn) · 816 → 544 tokens · …"
    assert banner_line(event, 50) == "✂ History trimmed · 4 messages (1 turn) · …"
    for width in range(8, len(full)):
        line = banner_line(event, width)
        assert len(line) <= width
        # Every segment shown is whole: a prefix of the full line's segments, then perhaps `…`.
        shown = line.split(" · ")
        whole = [s for s in shown if s != "…"]
        assert whole == full.split(" · ")[: len(whole)] or (len(shown) == 1 and line.endswith("…"))


def test_fit_words_never_cuts_a_word() -> None:
    from co_tui.text import fit_words

    assert fit_words("History trimmed here", 100) == "History trimmed here"
    assert fit_words("History trimmed here", 17) == "History trimmed…"
    assert fit_words("History trimmed here", 10) == "History…"


def test_the_strategy_says_what_an_eviction_and_a_clear_removed() -> None:
    """An evicted turn from the middle read "oldest turns removed" in its details and on the Trims tab."""

    def strategy(reason: str, kind: str) -> str:
        event = HistoryTrimmed(reason=reason, strategy=kind, dropped_messages=4, dropped_turns=1)  # type: ignore[arg-type]
        return dict(banner_details(event))["strategy"]

    assert strategy("manual_evict", "turn_trim") == "an older turn removed"
    assert strategy("manual_evict", "tool_output_trim") == "a tool output removed"
    assert strategy("clear", "turn_trim") == "every turn removed"
    assert strategy("token_budget", "turn_trim") == "oldest turns removed"


def test_a_long_segment_gives_way_and_the_figures_still_show() -> None:
    """Issue 43 item 13: `▸ ✂ Removed from the context · …` at 100 columns, the eviction's long
    description crowding out the figures. It is skipped where it cannot fit; the figures stay."""
    from co_tui.text import fit_segments

    parts = [
        "✂ Removed from the context",
        'tool output of read_file(path="docs/architecture.md", offset=0, limit=400) (41.2k chars)',
        "41.2k → 12.9k tokens",
        "manual evict",
    ]
    assert fit_segments(parts, 98) == "✂ Removed from the context · … · 41.2k → 12.9k tokens · manual evict"
    assert fit_segments(parts, 40) == "✂ Removed from the context · …"
    short = ["✂ History trimmed", "14 messages (3 turns)", "41.2k → 12.9k tokens", "token budget"]
    assert fit_segments(short, 60) == "✂ History trimmed · 14 messages (3 turns) · …", (
        "a part that could fit ends the line"
    )


def test_one_old_tool_output_is_singular() -> None:
    from co_tui.governance.trim import _outputs_note

    assert _outputs_note(1, 200, True) == "1 old tool output cleared to a note naming its recall"
    assert _outputs_note(3, 200, False, of_kept_turns=True) == "3 old tool outputs of the kept turns cut to 200 chars"

"""The one wording of trim banners shared by the TUI, print mode and exports."""

from __future__ import annotations

from co_tui.governance.events import HistoryTrimmed
from co_tui.session.banner import banner_details, banner_line, format_tokens


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


def test_titles_for_compact_clear_and_summary() -> None:
    compact = HistoryTrimmed(reason="manual_compact", strategy="compact", dropped_messages=8, summary="s")
    clear = HistoryTrimmed(reason="clear", strategy="turn_trim", dropped_messages=8)
    summary = HistoryTrimmed(reason="message_count", strategy="summary", dropped_messages=8, summary="recap")
    assert banner_line(compact).startswith("✂ Conversation compacted")
    assert banner_line(clear).startswith("✂ Conversation cleared")
    assert banner_line(summary).startswith("✂ History summarised")
    assert banner_details(summary)[-1] == ("summary", "recap")

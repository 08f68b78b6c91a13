"""`MendText`'s stream side: a held first half joins the next delta of its part, or becomes U+FFFD
when the part ends first (issue 40, item 3; the wire test is tests/providers/test_surrogates_wire.py)."""

from __future__ import annotations

from typing import Any

from pydantic_ai.messages import PartDeltaEvent, PartEndEvent, PartStartEvent, TextPart, TextPartDelta, ToolCallPart

from co_tui.agent.mend_text import MendText, mended


async def _through(events: list[Any]) -> str:
    async def stream():
        for event in events:
            yield event

    out = [e async for e in MendText().wrap_run_event_stream(None, stream=stream())]
    text = ""
    for event in out:
        if isinstance(event, PartStartEvent):
            text += event.part.content
        elif isinstance(event, PartDeltaEvent):
            text += event.delta.content_delta
    return text


async def test_a_pair_split_across_start_and_delta_is_joined() -> None:
    events = [
        PartStartEvent(index=0, part=TextPart("smile \ud83d")),
        PartDeltaEvent(index=0, delta=TextPartDelta("\ude00 end")),
    ]
    assert await _through(events) == "smile 😀 end"


async def test_a_held_half_whose_part_ends_is_a_replacement_character() -> None:
    events = [
        PartStartEvent(index=0, part=TextPart("a")),
        PartDeltaEvent(index=0, delta=TextPartDelta("b\ud83d")),
        PartEndEvent(index=0, part=TextPart("ab\ud83d")),
    ]
    assert await _through(events) == "ab\ufffd"


def test_mended_rebuilds_only_what_changed() -> None:
    call = ToolCallPart("write_file", {"path": "a", "content": ["x\udc80", "ok"]})
    fixed = mended(call)
    assert fixed.args == {"path": "a", "content": ["x\ufffd", "ok"]}
    clean = ToolCallPart("read_file", {"path": "a"})
    assert mended(clean) is clean

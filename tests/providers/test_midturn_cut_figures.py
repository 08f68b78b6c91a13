"""A cut in the middle of a turn (the policy runs before every request, also the ones after tool
calls) reports the meter's figures: over the real OpenAI client and the loopback server, the banner's
"after" is the figure the meter shows for the request the cut leaves
(governance/metered_cuts.py)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from support.turns import collect

from .harness import session
from .loopback import LoopbackServer, Reply, ToolCallSpec
from .scripted_session import SUMMARY, is_summary_request, write_files


def one_file_per_request(files: list[list[str]]) -> Any:
    """The scripted model reads the turn's files one per request, then answers; it summarises when asked."""

    def respond(request: Any) -> Reply:
        messages = request.body["messages"]
        if is_summary_request(request.body):
            return Reply(SUMMARY)
        prompt_at = max(i for i, m in enumerate(messages) if m["role"] == "user")
        content = messages[prompt_at]["content"]
        turn = int(re.search(r"turn (\d+)", content if isinstance(content, str) else json.dumps(content)).group(1))
        done = sum(1 for m in messages[prompt_at:] if m["role"] == "tool")
        if done == len(files[turn]):
            return Reply("Read them all.")
        return Reply(tool_calls=(ToolCallSpec("read_file", {"path": files[turn][done]}, f"call_{turn}_{done}"),))

    return respond


def announcement_tokens() -> int:
    """What the meter counts for pydantic-ai's `ToolAvailabilityDeltaPart` naming `recall`."""
    from pydantic_ai.messages import ModelRequest, ToolAvailabilityDeltaPart, UserPromptPart

    from co_tui.governance.tokens import estimate_tokens

    plain = ModelRequest(parts=[UserPromptPart("hi")])
    announced = ModelRequest(parts=[UserPromptPart("hi"), ToolAvailabilityDeltaPart(tools_added=["recall"])])
    return estimate_tokens([announced]) - estimate_tokens([plain])


@pytest.mark.parametrize("strategy", ["trim", "summarize"])
async def test_a_cut_mid_turn_reports_the_meters_figure(env: LoopbackServer, tmp_path: Path, strategy: str) -> None:
    loopback = env
    files = write_files(tmp_path, turns=2, files_per_turn=8, seed=3, min_kb=3, max_kb=6)
    loopback.responder = one_file_per_request(files)
    chat = session(tmp_path, context_budget_tokens=6000, context_strategy=strategy, max_history_messages=0)

    mid_turn_cuts = 0
    for turn, names in enumerate(files):
        events = await collect(chat.run_turn(f"turn {turn}: please read {', '.join(names)}"))
        assert events[-1].type == "done" and not events[-1].failed
        for i, event in enumerate(events):
            if event.type != "history_trimmed":
                continue
            mid_turn_cuts += any(e.type == "tool_result" for e in events[:i])
            shown_before = [e for e in events[:i] if e.type == "usage"]
            if events[i - 1].type != "history_trimmed" and shown_before:
                # A pass's "before" is the meter's figure for the uncut request: the newest report plus
                # the calibrated estimate of what came since, so at least what the meter last showed.
                assert event.tokens_before >= shown_before[-1].context_tokens
            following = events[i + 1]
            if following.type == "history_trimmed":
                # One pass's events chain: the next starts where this one ended.
                assert following.tokens_before == event.tokens_after
                continue
            # The pass's last banner: the meter shows, for the request the cut leaves, its "after" —
            # plus, when the cut left the first note `recall` can follow, the line pydantic-ai adds to
            # that request to say the tool is now offered (governance/recall_offer.py), as the meter
            # counts it (its calibrated estimate: one token of rounding either way).
            assert following.type == "usage", [e.type for e in events[i : i + 3]]
            assert 0 <= following.context_tokens - event.tokens_after <= announcement_tokens() + 1
            assert following.exactness == "estimated"  # the cut rewrote what the last report measured
    assert mid_turn_cuts >= 2, "the turns are long enough to be cut between their tool calls"

"""`Metering`: what a session's meter says — the `usage` event, the look-ahead to the next cut, the
`/context` breakdown — computed over its `History` and its `AgentBinding` (which owns the meter).

The one place a `usage` event is built; the breakdown adds up to it (docs/context-governance.md,
"The meter").
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from pydantic_ai.messages import ModelMessage, ModelResponse

from co_tui.agent.factory import agent_instructions, tool_schema_costs, tool_schema_tokens
from co_tui.agent.mcp_servers import mcp_tool_definitions_by_server
from co_tui.agent.recall_tool import RECALL_TOOLSET
from co_tui.governance.lookahead import turn_growth, turns_until_cut
from co_tui.governance.markers import separate_markers
from co_tui.governance.oversize import oversized_turn_tokens
from co_tui.governance.pins import pinned_tokens, turn_key
from co_tui.governance.recall_offer import carries_cut_notes
from co_tui.session.events import UsageUpdate

if TYPE_CHECKING:
    from co_tui.governance.meter import TokenMeter
    from co_tui.session.agent_binding import AgentBinding
    from co_tui.session.context_breakdown import ContextBreakdown
    from co_tui.session.gauge import Gauge
    from co_tui.session.history import History

__all__ = ["Metering", "anchor_meter"]


class Metering:
    """The meter's figures for one agent's `history`, by its `binding`'s meter and policy."""

    def __init__(self, binding: AgentBinding, history: History) -> None:
        self.binding = binding
        self.history = history

    def gauge(self) -> Gauge:
        """What the planners read besides the history (`Gauge`)."""
        from co_tui.session.gauge import Gauge  # a planner's: a meter reading plans nothing

        binding = self.binding
        return Gauge(
            meter=binding.meter,
            governor=binding.governor,
            budget_tokens=binding.policy.budget_tokens,
            max_messages=binding.policy.max_history_messages,
            overhead_tokens=binding.overhead,
        )

    def reading(self) -> UsageUpdate:
        """The meter's current figure for the context (what the model will be sent next)."""
        return self.usage(self.history.context, next_prompt=True)

    def usage(
        self, messages: Sequence[ModelMessage], *, new_response: Any = None, next_prompt: bool = False
    ) -> UsageUpdate:
        """The `usage` event for `messages` (the context, or a running turn's messages): the meter's
        figure, whether governance cuts before the next request, the newest report's cache counts,
        the session's cost so far (`new_response`: a response not in the transcript yet) and the
        look-ahead to the next cut (`next_prompt`: judged for the request the next prompt makes)."""
        binding, policy, transcript = self.binding, self.binding.policy, self.history.transcript
        trim_pending = binding.compact_mode != "off" and binding.governor.over_limits(
            messages, overhead_tokens=binding.overhead, next_prompt=next_prompt
        )
        reading = binding.meter.reading(messages)
        growth = turn_growth(messages)
        turns_to_trim = (
            None
            if growth is None or trim_pending or binding.compact_mode == "off"  # off: no cut will come
            else turns_until_cut(
                tokens=reading.tokens,
                budget_tokens=policy.budget_tokens,
                tokens_per_turn=growth.tokens * reading.ratio,  # in the meter's (calibrated) tokens
                messages=growth.turn_messages,
                max_messages=policy.max_history_messages,
                messages_per_turn=growth.messages,
            )
        )
        pending = (
            [new_response] if new_response is not None and not any(m is new_response for m in transcript[-4:]) else []
        )
        return UsageUpdate(
            input_tokens=reading.input_tokens,
            output_tokens=reading.output_tokens,
            context_tokens=reading.tokens,
            budget_tokens=policy.budget_tokens,
            messages=len(separate_markers(messages)),  # as the history inspector counts
            max_messages=policy.max_history_messages,
            exactness=reading.exactness,
            window_is_guess=policy.window_is_guess,
            trim_pending=trim_pending,
            asks_first=trim_pending and binding.compact_mode == "ask",
            cuts_off=binding.compact_mode == "off",
            cache_read_tokens=reading.cache_read_tokens,
            cache_write_tokens=reading.cache_write_tokens,
            cost_usd=self.history.cost(pending),
            turns_to_trim=turns_to_trim,
            forecast_kind=None if turns_to_trim is None else self._forecast_kind(),
            trim_kind=self._cut_kind(messages) if trim_pending else None,
            pinned_tokens=pinned_tokens(messages, binding.governor.pins) if binding.governor.pins else 0,
            oversized_turn=not next_prompt
            and oversized_turn_tokens(messages, policy.budget_tokens, binding.overhead) is not None,
            mcp_starting=len(binding.resources.mcp.starting()) if binding.resources.mcp else 0,
            window_tokens=binding.context_window,
            overhead_tokens=binding.overhead,
            overhead_excess=binding.governor.overhead_excess(binding.overhead),
        )

    def _forecast_kind(self) -> str:
        """The cut the next trigger makes: a summary under the summarize strategy (not cooling down
        after a failed one), else whole turns trimmed."""
        binding = self.binding
        summarizes = binding.policy.strategy == "summarize" and not binding.governor.cooling_down()
        return "summary" if summarizes else "turn_trim"

    def _cut_kind(self, messages: Sequence[ModelMessage]) -> str | None:
        """The strategy of the cut the meter announces (`trims on next send` says which kind)."""
        from co_tui.session.eviction import plan_next_cut  # a cut pending: a reading with none needs no plan

        cut = plan_next_cut(self.history, self.gauge(), messages)
        return cut.kind if cut is not None else None

    # --- the /context breakdown ------------------------------------------------------------------

    def breakdown(self) -> ContextBreakdown:
        """What the next request holds by category: the context, the instructions, the instruction
        files and the schemas of the agent's toolsets, fitted to the meter (adds up to `reading()`)."""
        from co_tui.session.context_breakdown import compute_breakdown, overhead_parts  # /context's

        binding, context = self.binding, self.history.context
        s = binding.settings
        own = agent_instructions(binding.resources.workspace, allow_shell=s.allow_shell, allow_edits=s.allow_edits)
        # An MCP server's tool list is known once it runs: one row per server (`known_tool_defs` sees
        # only the workspace's function tools).
        # `recall` rides in a request only once its context carries a cut note (governance/recall_offer.py).
        offered = carries_cut_notes(context)
        tool_costs = [c for c in tool_schema_costs(binding.agent.toolsets) if offered or c[0] != RECALL_TOOLSET] + [
            (f"mcp: {name}", tool_schema_tokens(defs), len(defs))
            for name, defs in mcp_tool_definitions_by_server(binding.resources.mcp or None).items()
            if defs
        ]
        memory = binding.resources.memory
        sent = memory.files if memory.enabled else ()  # the notes ride with the instructions, never cut
        parts = overhead_parts(own, binding.resources.instruction_files, tool_costs, sent)
        reading = binding.meter.reading(context)
        meter = self.reading()
        breakdown = compute_breakdown(
            context,
            parts,
            is_pinned=self._pinned_predicate(),
            meter_tokens=meter.context_tokens,
            overhead_tokens=binding.meter.overhead,
            ratio=reading.ratio,
            budget_tokens=binding.policy.budget_tokens,
            window_tokens=binding.context_window,
            exactness=reading.exactness,
            window_is_guess=binding.policy.window_is_guess,
        )
        return replace(
            breakdown, cut_pending=meter.trim_pending, overhead_excess=meter.overhead_excess, cuts_off=meter.cuts_off
        )

    def _pinned_predicate(self) -> Callable[[ModelMessage], bool] | None:
        """Whether a context message belongs to a pinned turn (None: nothing is pinned). It follows the
        turns as `classify_messages` walks the context in order: a turn's first prompt says whether
        the messages up to the next turn are pinned."""
        pins = self.binding.governor.pins
        if not pins:
            return None
        inside = False

        def is_pinned(message: ModelMessage) -> bool:
            nonlocal inside
            key = turn_key(message)
            if key is not None:
                inside = key in pins
            return inside

        return is_pinned

    # --- a resumed session -----------------------------------------------------------------------

    def anchor_on_saved_usage(self) -> None:
        """Re-anchor the meter on the newest saved response's provider usage, so a resumed session's
        meter is as exact at first paint as it was when saved (`anchor_meter`)."""
        history = self.history
        anchor_meter(self.binding.meter, history.context, history.ledger_positions, history.transcript)


def anchor_meter(
    meter: TokenMeter, context: Sequence[ModelMessage], positions: Sequence[int], transcript: Sequence[ModelMessage]
) -> None:
    """Anchor `meter` on the newest response of `context` with provider usage — only while that
    report still describes the context: after a cut, eviction or undo made since that response (a
    ledger event at or after its transcript position, `positions`) the report counts what is gone,
    and the meter estimates instead, as the live session's meter did. A resume, a rewind and a
    branch switch anchor this way, so the meter reads as it did then."""
    for i in range(len(context) - 1, -1, -1):
        message = context[i]
        if isinstance(message, ModelResponse):
            if message.usage.input_tokens and not _cut_since(message, positions, transcript):
                meter.observe_response(message.usage, context[: i + 1])
            return


def _cut_since(response: ModelMessage, positions: Sequence[int], transcript: Sequence[ModelMessage]) -> bool:
    """Whether a ledger event rewrote the context after `response` was received (or it is not
    among the transcript's newest messages, where a saved context's newest response sits)."""
    if not positions:
        return False
    newest_cut = max(positions)
    # Only the transcript's tail can hold it unrewritten (decoded at resume for the first screen).
    for j in range(len(transcript) - 1, max(newest_cut, len(transcript) - 64) - 1, -1):
        if transcript[j] is response:
            return False
    return True

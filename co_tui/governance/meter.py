"""`TokenMeter`: the context figure the UI shows, anchored on what the provider reported.

After each response the provider tells us exactly how big the request was (input tokens) and what
it produced (output tokens). Their sum is the context as of that response: the meter shows it as
*exact*. When messages are added after it (the next prompt, tool results), the meter adds a
calibrated estimate of just those: *anchored*. When no report applies — a fresh or resumed session,
or a history governance has rewritten since the report — it shows the calibrated estimate of the
whole history: *estimated*.

Calibration: the ratio of reported to estimated tokens. Growth between two consecutive reports over
an unchanged prefix gives the cleanest ratio (instructions and tool schemas cancel out); until two
such reports exist, the level ratio of the last request is used, shrunk toward a per-provider prior
while the history is small (where the fixed overhead dominates). Always clamped to 0.5–3. A model
change resets it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from co_tui.governance.tokens import estimate_tokens

__all__ = ["TokenMeter", "MeterReading", "PROVIDER_PRIORS"]

Exactness = Literal["exact", "anchored", "estimated"]

# Reported/estimated ratios by provider before any report (the estimator is fitted to OpenAI's
# cl100k/o200k; Anthropic's tokenizer produces more tokens for the same text).
PROVIDER_PRIORS: dict[str, float] = {"anthropic": 1.2, "openai": 1.0, "google": 1.05, "offline": 1.0}
DEFAULT_PRIOR = 1.05
_MIN_RATIO, _MAX_RATIO = 0.5, 3.0
_SHRINK_TOKENS = 3000  # level-ratio weight = est / (est + this)
_MIN_GROWTH = 50  # estimated tokens of growth needed for an incremental ratio
# How many estimated tokens of growth the learned ratio rests on, at most: each new growth sample
# moves it by its size over (its size + what the ratio already rests on), so a short prompt (a few
# tokens, where a tokenizer's rounding is a large share) barely moves it and a growth this large
# moves it halfway (docs/context-governance.md, "The meter").
_SETTLED_TOKENS = 2000


def _clamp(ratio: float) -> float:
    return min(_MAX_RATIO, max(_MIN_RATIO, ratio))


@dataclass(frozen=True)
class MeterReading:
    """One meter figure. `tokens` is what the UI shows; `exactness` says how it was obtained."""

    tokens: int
    exactness: Exactness
    messages: int
    ratio: float
    anchor_tokens: int | None = None  # the provider-reported part (exact / anchored)
    estimated_tokens: int = 0  # the calibrated-estimate part
    input_tokens: int = 0  # last reported request
    output_tokens: int = 0
    cache_read_tokens: int = 0  # of that request's input, read from / written to the provider's prompt cache
    cache_write_tokens: int = 0


class TokenMeter:
    """Anchored, calibrated context meter. Not thread-safe; one per session."""

    def __init__(self, *, provider: str | None = None, model_name: str | None = None, overhead_tokens: int = 0) -> None:
        """`overhead_tokens`: estimated instructions + tool schemas, used until a report shows the real figure."""
        self.overhead_hint = overhead_tokens
        self.reset(provider=provider, model_name=model_name)

    def reset(self, *, provider: str | None = None, model_name: str | None = None) -> None:
        """Forget anchor and calibration (e.g. the model changed)."""
        self.provider = provider
        self.model_name = model_name
        self.prior = PROVIDER_PRIORS.get((provider or "").split("-")[0], DEFAULT_PRIOR)
        self.ratio = self.prior
        self._incremental: float | None = None
        self._incremental_tokens = 0  # the estimated growth the incremental ratio rests on (capped)
        self._anchor_index: int | None = None
        self._anchor_ids: tuple[int, ...] = ()
        self._anchor_total = 0
        self._last_input = 0
        self._last_output = 0
        self._last_cache = (0, 0)  # (read, written) of the last reported request
        self._last_estimated_input = 0
        # Reported input the messages do not explain (instructions, tool schemas); a hint until reported.
        self._overhead = self.overhead_hint

    def set_overhead_hint(self, tokens: int) -> None:
        """The fixed part of every request changed (the project instructions were reloaded): shift
        the overhead estimate by the difference. An anchored figure keeps the provider's report
        until the next one shows the new size."""
        self._overhead = max(0, self._overhead + tokens - self.overhead_hint)
        self.overhead_hint = tokens

    @property
    def overhead(self) -> int:
        """Tokens of each request the messages do not explain (instructions, tool schemas): the
        last report's remainder, or the hint before any report."""
        return self._overhead

    def observe_response(
        self,
        usage: Any,
        messages: Sequence[Any],
        *,
        model_name: str | None = None,
        provider: str | None = None,
    ) -> None:
        """Record the provider's report for the newest response in `messages`.

        `messages` is the context as the model saw it followed by its response (the newest
        `ModelResponse` in it is the anchor). `usage` is that response's `RequestUsage` (or
        anything with `input_tokens`/`output_tokens`, optionally `cache_read_tokens`/
        `cache_write_tokens`); None reads it from the response.
        A different `model_name`/`provider` than before resets calibration first.
        """
        if (model_name and self.model_name and model_name != self.model_name) or (
            provider and self.provider and provider != self.provider
        ):
            self.reset(provider=provider, model_name=model_name)
        self.model_name = model_name or self.model_name
        if provider and not self.provider:
            self.reset(provider=provider, model_name=self.model_name)
        index = next(
            (i for i in range(len(messages) - 1, -1, -1) if getattr(messages[i], "kind", "") == "response"), None
        )
        if index is None:
            return
        if usage is None:
            usage = getattr(messages[index], "usage", None)
        input_tokens = int(getattr(usage, "input_tokens", 0) or 0)
        output_tokens = int(getattr(usage, "output_tokens", 0) or 0)
        if input_tokens <= 0:
            return  # a provider that reports nothing gives nothing to anchor on
        sent = messages[:index]
        estimated = estimate_tokens(sent)
        # Growth since the previous report, over an unchanged prefix: overhead cancels out.
        if self._anchor_index is not None and self._prefix_intact(sent):
            grown_est = estimated - self._last_estimated_input
            grown_rep = input_tokens - self._last_input
            if grown_est >= _MIN_GROWTH and grown_rep > 0:
                sample = _clamp(grown_rep / grown_est)
                # Weighted by size: the first sample against the level ratio (resting on little).
                base, held = (
                    (self.ratio, _MIN_GROWTH)
                    if self._incremental is None
                    else (
                        self._incremental,
                        self._incremental_tokens,
                    )
                )
                self._incremental = _clamp(base + grown_est / (grown_est + held) * (sample - base))
                self._incremental_tokens = min(_SETTLED_TOKENS, held + grown_est)
        if self._incremental is not None:
            self.ratio = self._incremental
        elif estimated > 0:
            # Level ratio: the report minus the overhead hint, over our estimate of the messages.
            level = _clamp(max(1, input_tokens - self.overhead_hint) / estimated)
            weight = estimated / (estimated + _SHRINK_TOKENS)
            self.ratio = _clamp(self.prior + weight * (level - self.prior))
        self._anchor_index = index
        self._anchor_ids = tuple(map(id, messages[: index + 1]))
        self._anchor_total = input_tokens + output_tokens
        self._last_input = input_tokens
        self._last_output = output_tokens
        self._last_cache = (
            int(getattr(usage, "cache_read_tokens", 0) or 0),
            int(getattr(usage, "cache_write_tokens", 0) or 0),
        )
        self._last_estimated_input = estimated
        self._overhead = max(0, round(input_tokens - self.ratio * estimated))

    def _prefix_intact(self, messages: Sequence[Any]) -> bool:
        n = len(self._anchor_ids)
        return len(messages) >= n and tuple(map(id, messages[:n])) == self._anchor_ids

    def reading(self, messages: Sequence[Any]) -> MeterReading:
        """The figure for `messages` (the current context view)."""
        if self._anchor_index is not None and self._prefix_intact(messages):
            rest = messages[self._anchor_index + 1 :]
            extra = round(self.ratio * estimate_tokens(rest)) if rest else 0
            return MeterReading(
                tokens=self._anchor_total + extra,
                exactness="anchored" if rest else "exact",
                messages=len(messages),
                ratio=self.ratio,
                anchor_tokens=self._anchor_total,
                estimated_tokens=extra,
                input_tokens=self._last_input,
                output_tokens=self._last_output,
                cache_read_tokens=self._last_cache[0],
                cache_write_tokens=self._last_cache[1],
            )
        # No report applies (new session, or governance rewrote the history): the calibrated estimate
        # plus the overhead the last report showed on top of its messages (with no messages yet the
        # request is that overhead alone: the meter shows it, as /context does).
        estimated = round(self.ratio * estimate_tokens(messages)) + self._overhead
        return MeterReading(
            tokens=estimated,
            exactness="estimated",
            messages=len(messages),
            ratio=self.ratio,
            estimated_tokens=estimated,
            input_tokens=self._last_input,
            output_tokens=self._last_output,
            cache_read_tokens=self._last_cache[0],
            cache_write_tokens=self._last_cache[1],
        )

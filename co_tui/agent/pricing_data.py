"""genai-prices' bundled price table, loaded when the first answer needs it rather than when a
model is built.

pydantic-ai's `Model.__init__` loads the whole table (`genai_prices.data`, a 1.6 MB module:
0.2-0.45 s of CPU in `benchmarks/tui.py`, a third of the session's start-up after the pydantic-ai
import) so that pricing the first response does not stall the event loop. The offline model (it
has no price) is built with `deferred()` in `agent.models.resolve_model`; the TUI then loads the
table with `preload()` in a thread once the ready session is on screen (docs/architecture.md,
"Start-up"), and print mode at its first answer. Provider models read their context window from
the table while they are built, so they load it there as before.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

_lock = threading.RLock()  # two threads building models at once restore the same original


@contextmanager
def deferred() -> Iterator[None]:
    """Models built inside do not load the price table (pydantic-ai's `preload_pricing_data` hook
    does nothing meanwhile). Without that hook (another pydantic-ai), models are built as usual."""
    import pydantic_ai.models as models

    original = getattr(models, "preload_pricing_data", None)
    if original is None:
        yield
        return
    with _lock:
        models.preload_pricing_data = _skip
        try:
            yield
        finally:
            models.preload_pricing_data = original


def preload() -> None:
    """Load the price table now (cached by genai-prices: later calls cost nothing)."""
    from genai_prices.data_snapshot import get_snapshot

    get_snapshot()


def _skip() -> None:
    return None

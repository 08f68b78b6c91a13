"""Full garbage collections wait while an answer streams, so they never stall a key press.

A streamed answer allocates widgets, layout results and rendered lines at a high rate, and
CPython then runs a full (generation 2) collection every fraction of a second; each walks the
whole heap and took 30 → 400 ms in `benchmarks/tui.py` as a 20,000-token answer grew — the
worst key-press latencies of the stream. Textual pauses the collector for smooth scrolling
(`App.PAUSE_GC_ON_SCROLL`) for the same reason.

While paused, young collections (generations 0 and 1) still run, so short-lived cycles are freed
as usual; only the full pass waits, and runs once when the turn is over and the user is not typing
(`collection_due`): after a 20,000-token answer that one pass takes about half a second.

At start-up the collector is off altogether until the session is ready
(`hold_collections_for_start_up`): importing Textual, pydantic and pydantic-ai allocates hundreds
of thousands of long-lived objects (classes, schemas, widgets) and the collector would walk them
again and again while they pile up, for no garbage; ~10% of the CPU time to ready
(benchmarks/tui.py). What start-up built is then frozen (`gc.freeze`), so later full collections
skip it.

Unlike the key clock and the frame budget (one per app: input_clock.py, frame_budget.py), what
this module holds stays process-wide, on purpose: it is the collector's own setting as it was
before a pause (`_saved_threshold`) and whether start-up turned the collector off
(`_held_for_start_up`), and the collector is one per interpreter. Were each app to save "the"
threshold, a second app pausing while the first is paused would save the paused value and
restore it, leaving full collections off for good. So this module is their one owner: the pause
and the start-up hold are idempotent, and each is undone by its counterpart
(`resume_full_collections`, `release_collections_after_start_up`), which an app always reaches
(its unmount, `run_app`'s end) so the next app in the process (a test) starts from the
collector as it found it. When to run the held collection is the app's own question
(`collection_due`, asked with its key clock).
"""

from __future__ import annotations

import gc
from time import monotonic

IDLE_S = 0.5  # no key press in the prompt for this long: the user has paused
MAX_DEFER_S = 10.0  # a user who never pauses still gets the collection this long after the turn
_FULL_NEVER = 1 << 30  # gen-1 collections before a full one: never, in practice
_saved_threshold: int | None = None  # the collector's gen-2 threshold before the pause
_held_for_start_up = False  # hold_collections_for_start_up turned the collector off


def pause_full_collections() -> None:
    """Stop automatic full collections until `resume_full_collections()` (idempotent)."""
    global _saved_threshold
    if _saved_threshold is None:
        t0, t1, t2 = gc.get_threshold()
        _saved_threshold = t2
        gc.set_threshold(t0, t1, _FULL_NEVER)


def resume_full_collections(*, collect: bool = True) -> None:
    """Restore automatic full collections; with `collect`, run the one that waited now."""
    global _saved_threshold
    if _saved_threshold is None:
        return
    t0, t1, _ = gc.get_threshold()
    gc.set_threshold(t0, t1, _saved_threshold)
    _saved_threshold = None
    if collect:
        gc.collect()


def collection_due(turn_ended_at: float, since_input: float) -> bool:
    """Whether the full collection held back since `turn_ended_at` (a `monotonic()` time) should run
    now, `since_input` seconds after the user's last key (the app's `KeyClock.since_input()`): the
    user has not typed for `IDLE_S`, or it has waited `MAX_DEFER_S`."""
    return since_input >= IDLE_S or monotonic() - turn_ended_at >= MAX_DEFER_S


def hold_collections_for_start_up() -> None:
    """Turn the collector off until `release_collections_after_start_up()` (the TUI's start-up)."""
    global _held_for_start_up
    if gc.isenabled():
        gc.disable()
        _held_for_start_up = True


def release_collections_after_start_up() -> None:
    """Freeze what start-up built (never collected again: modules, classes, the session) and turn
    the collector back on. Does nothing unless `hold_collections_for_start_up` turned it off."""
    global _held_for_start_up
    if _held_for_start_up:
        _held_for_start_up = False
        gc.freeze()
        gc.enable()

"""A key typed while the answer's layout is due paints first; the layout follows on the next frame."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from types import SimpleNamespace
from typing import Any

import pytest
from pilot_helpers import wait_until

from co_tui.tui import input_clock
from co_tui.tui.input_clock import KeyClock


def _spy_frames(app, screen, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    calls: list[str] = []
    layout = screen._refresh_layout

    def refresh_layout(*args, **kwargs) -> None:
        calls.append("layout")
        layout(*args, **kwargs)

    display = app._display

    def show(target, update) -> None:
        calls.append("paint")
        display(target, update)

    monkeypatch.setattr(screen, "_refresh_layout", refresh_layout)
    monkeypatch.setattr(app, "_display", show)
    return calls


async def settle(pilot, app, focused) -> None:
    """Wait until `focused` has the focus and the key footer has been rebuilt for it. A focus change
    rebuilds the footer after the next refresh, a recompose that holds a batch of updates across
    awaits: a frame run by hand, or a key typed, inside it paints nothing of its own. The frames
    these tests drive start from here (no await after it)."""
    from co_tui.tui.widgets.key_footer import KeyFooter

    footer = app.screen.query_one(KeyFooter)
    await wait_until(
        pilot,
        lambda: (
            focused.has_focus
            and footer._composed == footer._keys()  # a later bindings signal finds nothing to rebuild
            and not footer._rebuild_due
            and not app._batch_count
        ),
        what="focus settled, the footer rebuilt, no batch open",
    )


@asynccontextmanager
async def focused_prompt(
    make_app, monkeypatch: pytest.MonkeyPatch
) -> AsyncIterator[tuple[Any, Any, Any, Any, list[str]]]:
    """A chat app running at 100x30 with its prompt focused and settled: (app, pilot, screen,
    prompt, the frames spied from here on)."""
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        screen = app.screen
        prompt = screen.prompt
        prompt.focus()
        await settle(pilot, app, prompt)
        yield app, pilot, screen, prompt, _spy_frames(app, screen, monkeypatch)


async def test_a_key_paints_before_the_layout_the_stream_asked_for(make_app, monkeypatch) -> None:
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        screen = app.screen
        prompt = screen.prompt
        prompt.focus()
        await pilot.press("x")
        await wait_until(pilot, lambda: prompt.text == "x" and not app.key_clock.unpainted, what="x painted")
        calls = _spy_frames(app, screen, monkeypatch)
        # One frame owes both: the answer grew (a layout) and a key changed the prompt (a repaint).
        # Set synchronously, so no frame of Textual's own runs in between.
        app.key_clock.note_input()
        prompt.insert("y")
        screen._layout_required = True
        screen._dirty_widgets.add(prompt)
        screen._on_timer_update()
        assert calls == ["paint"], "the key's repaint went out alone"
        assert not app.key_clock.unpainted
        assert screen._layout_required, "the layout is still owed"
        screen._on_timer_update()
        assert calls[1] == "layout", "the next frame lays out"
        assert not screen._layout_required


async def test_a_prompt_that_changes_size_waits_for_its_own_layout(make_app, monkeypatch) -> None:
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        screen = app.screen
        prompt = screen.prompt
        await settle(pilot, app, prompt)
        calls = _spy_frames(app, screen, monkeypatch)
        app.key_clock.note_input()
        prompt.refresh(layout=True)  # a new line: the prompt grows
        screen._layout_required = True
        screen._dirty_widgets.add(prompt)
        screen._on_timer_update()
        assert calls and calls[0] == "layout", "the frame ran whole: the key's paint needs the layout"
        assert not app.key_clock.unpainted


class _Clock:
    """A monotonic clock the test moves by hand (KeyClock and KeyEcho read it)."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> _Clock:
    from co_tui.tui import key_echo

    fake = _Clock()
    monkeypatch.setattr(input_clock, "monotonic", fake)
    monkeypatch.setattr(key_echo, "monotonic", fake)
    return fake


async def test_a_layout_waits_for_a_key_read_but_not_yet_handled(make_app, monkeypatch, clock) -> None:
    async with focused_prompt(make_app, monkeypatch) as (app, pilot, screen, prompt, calls):
        # The driver's thread read a key; the App and the prompt have not handled it yet, and the
        # answer grew meanwhile (a layout is owed).
        app.key_clock.note_key_arrived()
        screen._layout_required = True
        screen._on_timer_update()
        clock.now += 0.01
        screen._on_timer_update()
        assert calls == [], "no layout frame ran ahead of the key"
        assert screen._layout_required
        # The prompt handles the key: the next frame paints it alone, and the key is no longer in flight.
        app.key_clock.note_input()
        prompt.insert("y")
        screen._dirty_widgets.add(prompt)
        screen._on_timer_update()
        assert calls == ["paint"], "the key's repaint went out alone"
        assert app.key_clock.key_in_flight() is None
        screen._on_timer_update()
        assert calls[1] == "layout", "the held layout runs on the next frame"


async def test_a_key_that_never_reaches_the_prompt_holds_the_layout_once_and_briefly(
    make_app, monkeypatch, clock
) -> None:
    from co_tui.tui.key_echo import KEY_HOLD_S

    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        screen = app.screen
        screen.prompt.focus()
        await settle(pilot, app, screen.prompt)
        calls = _spy_frames(app, screen, monkeypatch)
        app.key_clock.note_key_arrived()  # a binding, say: the prompt never repaints for it
        screen._layout_required = True
        screen._on_timer_update()
        assert calls == []
        clock.now += KEY_HOLD_S * 1.01
        screen._on_timer_update()
        assert calls and calls[0] == "layout", "held no longer than KEY_HOLD_S"
        calls.clear()
        screen._layout_required = True
        screen._on_timer_update()
        assert calls and calls[0] == "layout", "the same key does not hold a second layout"


async def test_no_key_in_flight_or_an_unfocused_prompt_holds_nothing(make_app, monkeypatch, clock) -> None:
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        screen = app.screen
        await settle(pilot, app, screen.prompt)
        calls = _spy_frames(app, screen, monkeypatch)
        screen._layout_required = True
        screen._on_timer_update()
        assert calls and calls[0] == "layout", "no key: the frame runs"
        calls.clear()
        screen.log_view.focus()
        await settle(pilot, app, screen.log_view)
        calls.clear()
        app.key_clock.note_key_arrived()  # the key goes to the focused log (a scroll), not the prompt
        screen._layout_required = True
        screen._on_timer_update()
        assert calls and calls[0] == "layout", "the prompt does not have the focus: nothing to wait for"


def test_the_driver_notes_each_key_as_its_thread_reads_it(clock) -> None:
    from textual import events

    from co_tui.tui.key_arrival import noting_keys

    class Driver:  # stands for Textual's platform driver
        def __init__(self, app: object) -> None:
            self._app = app  # as Textual's Driver keeps its app
            self.sent: list[object] = []

        def process_message(self, message: object) -> None:
            self.sent.append(message)

    app = SimpleNamespace(key_clock=KeyClock())
    driver = noting_keys(Driver)(app)
    resize = events.Resize(size=(80, 24), virtual_size=(80, 24))  # type: ignore[arg-type]
    driver.process_message(resize)
    assert app.key_clock.key_in_flight() is None, "only keys count"
    key = events.Key("a", "a")
    driver.process_message(key)
    assert app.key_clock.key_in_flight() == clock.now
    assert driver.sent == [resize, key], "every message still goes on, in order"
    assert noting_keys(Driver) is noting_keys(Driver), "one subclass per driver class"


def test_the_app_runs_on_the_platform_driver_noting_keys(make_app) -> None:
    from textual.app import App

    app = make_app()
    platform = App.get_driver_class(app)
    assert issubclass(app.driver_class, platform) and app.driver_class is not platform


async def test_two_apps_keep_their_own_key_clocks_and_frame_budgets(make_app, monkeypatch, clock) -> None:
    """Each app owns its key timings and each chat screen its layout budget: a key read, typed or
    held in one app, or a layout frame it timed, changes nothing in another in the same process."""
    first, second = make_app(), make_app()
    async with first.run_test(size=(100, 30)) as pilot:
        prompt = first.screen.prompt
        prompt.focus()
        await pilot.press("x")
        await wait_until(pilot, lambda: prompt.text == "x" and not first.key_clock.unpainted, what="x painted")
        first_budget = first.chat.frame_budget
        await wait_until(pilot, lambda: first_budget.layout_cost() > 0, what="a layout frame timed")
    # Then another key on its way, later than the painted `x` (on this test's stopped clock a key
    # read at the time `x` was painted counts as painted), noted once the app stopped: a key in
    # flight on a stopped clock holds every layout frame for good.
    clock.now += 1.0
    first.key_clock.note_key_arrived()
    assert first.key_clock.key_in_flight() == clock.now
    assert second.key_clock.key_in_flight() is None, "the other app's key is not in flight here"
    assert second.key_clock.since_input() == float("inf"), "nothing was typed in this app"

    async with second.run_test(size=(100, 30)) as pilot:
        screen = second.screen
        screen.prompt.focus()
        await settle(pilot, second, screen.prompt)
        assert screen.frame_budget is not first_budget and screen.frame_budget.since_append() == float("inf")
        calls = _spy_frames(second, screen, monkeypatch)
        first.key_clock.note_key_arrived()  # a key read in the first app, while this one streams
        first.key_clock.note_input()
        screen._layout_required = True
        screen._on_timer_update()
        assert calls and calls[0] == "layout", "a key in flight in another app holds no frame here"
        assert not second.key_clock.unpainted


async def test_a_typed_key_paints_as_the_prompt_handles_it_not_on_a_later_frame(make_app, monkeypatch, clock) -> None:
    """The prompt's repaint goes out in the callback that handled the key, before any frame, and
    the layout the answer owes is left for the next frame. On the stopped test clock the key in
    flight holds the pilot's own frames until the prompt handled it (on a real clock a host at
    load ~6 took longer than `KEY_HOLD_S` to get there, and the pilot's frame laid out first)."""
    async with focused_prompt(make_app, monkeypatch) as (app, pilot, screen, prompt, calls):
        echo = screen.key_echo
        paint_typed_key = echo.paint_typed_key

        def spied(screen_, prompt_) -> bool:
            painted = paint_typed_key(screen_, prompt_)
            calls.append(f"echo {prompt_.text!r} painted={painted} layout owed={screen_._layout_required}")
            return painted

        monkeypatch.setattr(echo, "paint_typed_key", spied)
        # No frame until the key is handled: the screen's idle handler resumes a paused update timer
        # when a layout is owed, and on a loaded host that frame ran before the key was handled.
        screen._update_timer.pause()
        monkeypatch.setattr(screen._update_timer, "resume", lambda: None)
        screen._layout_required = True  # the answer grew meanwhile
        await pilot.press("q")
        await wait_until(pilot, lambda: prompt.text == "q" and not app.key_clock.unpainted, what="q painted")
        assert calls[:2] == ["paint", "echo 'q' painted=True layout owed=True"], (
            "the key went out alone as it was handled, the layout still owed"
        )


async def test_a_key_that_grows_the_prompt_waits_for_the_frame(make_app, monkeypatch) -> None:
    """A new line changes the prompt's size: its paint needs the layout, so it is not painted alone."""
    async with focused_prompt(make_app, monkeypatch) as (app, pilot, screen, prompt, calls):
        app.key_clock.note_input()
        prompt.refresh(layout=True)  # as a new line does
        assert not screen.key_echo.paint_typed_key(screen, prompt)
        assert calls == [] and app.key_clock.unpainted, "left to the frame, which lays out first"

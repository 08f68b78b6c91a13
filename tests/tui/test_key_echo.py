"""A key typed while the answer's layout is due paints first; the layout follows on the next frame."""

from __future__ import annotations

import pytest
from pilot_helpers import wait_until

from co_tui.tui import input_clock


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


async def test_a_key_paints_before_the_layout_the_stream_asked_for(make_app, monkeypatch) -> None:
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        screen = app.screen
        prompt = screen.prompt
        prompt.focus()
        await pilot.press("x")
        await wait_until(pilot, lambda: prompt.text == "x" and not input_clock.input_unpainted(), what="x painted")
        calls = _spy_frames(app, screen, monkeypatch)
        # One frame owes both: the answer grew (a layout) and a key changed the prompt (a repaint).
        # Set synchronously, so no frame of Textual's own runs in between.
        input_clock.note_input()
        prompt.insert("y")
        screen._layout_required = True
        screen._dirty_widgets.add(prompt)
        screen._on_timer_update()
        assert calls == ["paint"], "the key's repaint went out alone"
        assert not input_clock.input_unpainted()
        assert screen._layout_required, "the layout is still owed"
        screen._on_timer_update()
        assert calls[1] == "layout", "the next frame lays out"
        assert not screen._layout_required


async def test_a_prompt_that_changes_size_waits_for_its_own_layout(make_app, monkeypatch) -> None:
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        screen = app.screen
        prompt = screen.prompt
        await pilot.pause()
        calls = _spy_frames(app, screen, monkeypatch)
        input_clock.note_input()
        prompt.refresh(layout=True)  # a new line: the prompt grows
        screen._layout_required = True
        screen._dirty_widgets.add(prompt)
        screen._on_timer_update()
        assert calls and calls[0] == "layout", "the frame ran whole: the key's paint needs the layout"
        assert not input_clock.input_unpainted()

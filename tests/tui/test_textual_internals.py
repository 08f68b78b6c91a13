"""The private parts of Textual co-tui relies on still exist, with the shapes it uses.

The driver that outlives its terminal (tui/terminal_loss.py), the key echo (tui/key_echo.py), the chat screen's frame hooks (tui/screens/chat.py), the chat
log's layout requests (tui/widgets/chat_log.py), the
finished segments of a streaming answer (tui/widgets/rendered_lines.py) and the containers that keep
their lines as they grow (tui/widgets/kept_lines.py) reach past Textual's public API. A Textual release may rename or reshape any of these without notice; pyproject.toml pins
Textual to the minor version tested, and this test fails loudly, naming the attribute, when an
upgrade breaks one (rather than keys painting late or a stream drawing nothing).
"""

from __future__ import annotations

import inspect

from textual.app import App, ComposeResult
from textual.driver import Driver
from textual.geometry import Size
from textual.screen import Screen
from textual.strip import Strip
from textual.timer import Timer
from textual.widget import Widget
from textual.widgets import Static, TextArea


def parameters(function: object) -> list[str]:
    return [name for name in inspect.signature(function).parameters if name != "self"]  # type: ignore[arg-type]


def test_the_screen_hooks_the_chat_screen_overrides() -> None:
    # screens/chat.py overrides both and calls super() with these arguments.
    assert parameters(Screen._on_timer_update) == []
    assert parameters(Screen._refresh_layout) == ["size", "scroll"]
    assert inspect.signature(Screen._refresh_layout).parameters["scroll"].default is False
    assert parameters(Screen._compositor_refresh) == []


def test_the_driver_hands_keys_on_through_process_message() -> None:
    # key_arrival.py subclasses the driver and notes each key in process_message.
    assert parameters(Driver.process_message) == ["message"]


async def test_a_driver_keeps_its_app() -> None:
    # key_arrival.py notes each key on the app's clock, reached as the driver's `_app`.
    from textual.drivers.headless_driver import HeadlessDriver

    app: App[None] = App()
    assert HeadlessDriver(app)._app is app


class _Host(App[None]):
    def compose(self) -> ComposeResult:
        yield TextArea("x", id="prompt")
        yield Static("a\n\n**b**", id="segment")


async def test_the_screen_and_app_attributes_key_echo_reads() -> None:
    async with _Host().run_test(size=(40, 10)) as pilot:
        app, screen = pilot.app, pilot.app.screen
        prompt = screen.query_one("#prompt", TextArea)
        await pilot.pause()
        assert isinstance(app._batch_count, int)
        assert isinstance(screen._layout_required, bool)
        assert isinstance(screen._repaint_required, bool)
        assert isinstance(prompt._layout_required, bool)
        assert isinstance(screen._dirty_widgets, set)
        timer = screen._update_timer
        assert isinstance(timer, Timer)
        assert callable(timer.pause) and callable(timer.resume)
        # The update frame calls the screen's _on_timer_update: the chat screen's override is the hook.
        assert timer._callback == screen._on_timer_update
        compositor = screen._compositor
        assert parameters(compositor.update_widgets) == ["widgets"]
        # The sequence paint_key_first runs: paint one widget now, the rest at the next frame.
        timer.pause()
        screen._dirty_widgets.add(prompt)
        screen._dirty_widgets.discard(prompt)
        compositor.update_widgets({prompt})
        screen._compositor_refresh()
        timer.resume()


async def test_a_private_compositor_renders_a_subtree() -> None:
    # rendered_lines.render_subtree: a Compositor of its own, reflowed on one widget.
    from textual._compositor import Compositor

    async with _Host().run_test(size=(40, 10)) as pilot:
        await pilot.pause()
        segment = pilot.app.screen.query_one("#segment", Widget)
        width = segment.region.width
        height = segment.get_content_height(segment.container_size, pilot.app.size, width)
        compositor = Compositor()
        compositor.reflow(segment, Size(width, height))
        assert segment in compositor.full_map
        assert compositor.full_map[segment].region.size == Size(width, height)
        strips = compositor.render_strips()
        assert isinstance(strips, list) and strips and all(isinstance(strip, Strip) for strip in strips)
        assert parameters(pilot.app.screen._compositor.render_full_update) == ["simplify"]


async def test_the_size_hook_kept_lines_overrides() -> None:
    # widgets/kept_lines.py overrides Widget._size_updated, calls it with layout=False, and reads
    # _size, _border_title and _border_subtitle.
    assert parameters(Widget._size_updated) == ["size", "virtual_size", "container_size", "layout"]
    assert inspect.signature(Widget._size_updated).parameters["layout"].default is True
    async with _Host().run_test(size=(40, 10)) as pilot:
        await pilot.pause()
        segment = pilot.app.screen.query_one("#segment", Widget)
        assert isinstance(segment._size, Size) and segment._size == segment.size
        assert segment._border_title is None and segment._border_subtitle is None
        segment.border_title = "t"
        assert segment._border_title is not None


async def test_the_layout_requests_the_chat_log_completes() -> None:
    # widgets/chat_log.py: the stream layout calls pre_layout before it reads the screen's
    # _layout_widgets (widget -> the children of it noted as asking for a layout), which the log's
    # pre_layout completes.
    from textual.layouts.stream import StreamLayout

    source = inspect.getsource(StreamLayout.arrange)
    assert source.index("pre_layout") < source.index("_layout_widgets")
    assert parameters(Widget.pre_layout) == ["layout"]
    async with _Host().run_test(size=(40, 10)) as pilot:
        await pilot.pause()
        assert isinstance(pilot.app.screen._layout_widgets, dict)


def test_the_anchor_the_chat_log_keeps() -> None:
    # widgets/chat_log.py: Textual releases the anchor through release_anchor() (the flag
    # _anchor_released) and scroll_to_region takes `immediate`; the log overrides both.
    assert parameters(Widget.release_anchor) == []
    assert "immediate" in parameters(Widget.scroll_to_region)
    assert hasattr(Widget(), "_anchor_released")


async def test_the_linux_driver_parts_terminal_loss_replaces() -> None:
    # terminal_loss.py wraps the driver's output file `_file` (what its WriterThread writes to),
    # overrides the SIGTSTP/SIGCONT handlers (checking `_auto_restart` as they do) and hands work to
    # the driver's `_loop`.
    import signal
    import sys

    from textual.drivers import linux_driver
    from textual.drivers._writer_thread import WriterThread

    assert parameters(WriterThread.__init__) == ["file"]
    assert linux_driver.WriterThread is WriterThread
    for name in ("_sigtstp_application", "_sigcont_application"):
        assert callable(getattr(linux_driver.LinuxDriver, name)), name
    saved = signal.getsignal(signal.SIGTSTP), signal.getsignal(signal.SIGCONT)
    app: App[None] = App()
    driver = linux_driver.LinuxDriver(app)  # sets its own SIGTSTP and SIGCONT handlers
    try:
        assert driver._file is sys.__stderr__ and driver._auto_restart is True and driver._loop is not None
    finally:
        signal.signal(signal.SIGTSTP, saved[0])
        signal.signal(signal.SIGCONT, saved[1])


def test_alt_enter_as_tmux_sends_it_is_a_key_of_its_own() -> None:
    """ESC CR (Alt+Enter in tmux and most terminals) reads as `alt+enter`, which the prompt binds to
    a new line; Textual alone reads it as `enter`, which sends (tui/alt_enter.py)."""
    from textual._xterm_parser import XTermParser

    from co_tui.tui import alt_enter

    alt_enter.install()
    parser = XTermParser()
    keys = [getattr(event, "key", None) for event in [*parser.feed("\x1b\r"), *parser.feed("")]]
    assert keys == ["alt+enter"]
    parser = XTermParser()
    keys = [getattr(event, "key", None) for event in [*parser.feed("\x1b[13;2u"), *parser.feed("")]]
    assert keys == ["shift+enter"], "the kitty protocol's Shift+Enter, bound to a new line too"

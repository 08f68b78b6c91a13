"""`CoTuiApp` is assembled from mixins (session_opening, turn_jobs, app_actions, slash_interceptor).

What that relies on: Textual finds `on_*` handlers, `action_*` methods and `@work` methods on plain
mixin bases of an App (it walks the class's MRO), and no two parts define the same name (Textual
would call every `on_*` handler of that name; any other name would silently shadow the other).
The behaviour of each handler is tested through the real app elsewhere.
"""

from __future__ import annotations

from dataclasses import dataclass

from textual import work
from textual.app import App
from textual.message import Message

from co_tui.tui.app import CoTuiApp
from co_tui.tui.app_actions import AppActions
from co_tui.tui.session_opening import SessionOpening
from co_tui.tui.slash_interceptor import SlashInterceptor
from co_tui.tui.turn_jobs import TurnJobs

PARTS = (SessionOpening, TurnJobs, AppActions, SlashInterceptor)


@dataclass
class Ping(Message):
    text: str


class PingPart:
    """A plain mixin, as the app's parts are: a handler, an action and a worker."""

    def on_ping(self, message: Ping) -> None:
        self.seen.append(f"handler {message.text}")

    def action_poke(self, arg: str = "") -> None:
        self.seen.append(f"action {arg}")
        self.job()

    @work(exit_on_error=False)
    async def job(self) -> None:
        self.seen.append("worker")


class PingApp(PingPart, App[None]):
    def __init__(self) -> None:
        super().__init__()
        self.seen: list[str] = []


async def test_textual_finds_handlers_actions_and_workers_on_a_mixin() -> None:
    app = PingApp()
    async with app.run_test() as pilot:
        app.post_message(Ping("hi"))
        await pilot.pause()
        await app.run_action("poke('x')")
        await app.workers.wait_for_complete()
        await pilot.pause()
    assert app.seen == ["handler hi", "action x", "worker"]


def _own_names(cls: type) -> set[str]:
    return {name for name in vars(cls) if not (name.startswith("__") and name.endswith("__"))}


def test_the_parts_define_disjoint_names_and_shadow_nothing_of_app() -> None:
    owners: dict[str, str] = {}
    for cls in (CoTuiApp, *PARTS):
        for name in _own_names(cls):
            assert name not in owners, f"{name} is defined by both {owners[name]} and {cls.__name__}"
            owners[name] = cls.__name__
    # The parts add to Textual's App; none overrides it (CoTuiApp itself does, on purpose).
    for part in PARTS:
        assert not (_own_names(part) & set(dir(App))), part.__name__


def test_the_parts_come_before_app_in_the_mro() -> None:
    """CoTuiApp's handlers used to be found before App's; the parts' still are."""
    mro = CoTuiApp.__mro__
    assert all(mro.index(part) < mro.index(App) for part in PARTS)


def test_meter_text_without_a_message_limit() -> None:
    """`max_history_messages = 0` turns the message limit off: the meter counts messages, no '/0'."""
    from co_tui.session.events import UsageUpdate
    from co_tui.tui.widgets.context_meter import meter_text

    reading = dict(input_tokens=0, output_tokens=0, context_tokens=18_200, budget_tokens=100_000, messages=23)
    assert meter_text(UsageUpdate(**reading, max_messages=40)).startswith("23/40 msgs · ")
    assert meter_text(UsageUpdate(**reading, max_messages=0)).startswith("23 msgs · ")

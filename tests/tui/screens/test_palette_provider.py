"""The command-palette provider: every registry command, found by name or summary, run via run_slash."""

from __future__ import annotations

from screen_host import TERMINAL, ScreenHost, screen_env, until  # (fixtures)
from textual.command import CommandList, CommandPalette

from co_tui.tui.commands import COMMANDS
from co_tui.tui.palette import SlashCommandProvider


class PaletteHost(ScreenHost):
    COMMANDS = {SlashCommandProvider}


class ActionsOnlyHost(PaletteHost):
    """A host without `run_slash`: the provider falls back to the command's action."""

    run_slash = None  # type: ignore[assignment]

    def __init__(self) -> None:
        super().__init__()
        self.actions: list[str] = []

    def action_show_help(self) -> None:
        self.actions.append("show_help")


async def _hits(app, query: str | None):
    provider = SlashCommandProvider(app.screen)
    await provider.startup()
    source = provider.discover() if query is None else provider.search(query)
    return [hit async for hit in source]


async def test_discover_lists_every_registry_command_in_order():
    app = PaletteHost()
    async with app.run_test(size=TERMINAL):
        hits = await _hits(app, None)
    assert [hit.text for hit in hits] == [spec.slash for spec in COMMANDS]
    assert all(spec.summary in hit.help for hit, spec in zip(hits, COMMANDS, strict=False))


async def test_search_ranks_the_name_match_first():
    app = PaletteHost()
    async with app.run_test(size=TERMINAL):
        for query, expected in (("hist", "/history"), ("/comp", "/compact"), ("sess", "/sessions"), ("exp", "/export")):
            hits = sorted(await _hits(app, query), key=lambda hit: hit.score, reverse=True)
            assert hits and hits[0].text == expected, (query, [h.text for h in hits])


async def test_search_finds_commands_by_their_summary():
    app = PaletteHost()
    async with app.run_test(size=TERMINAL):
        texts = {hit.text for hit in await _hits(app, "transcript")}
        assert "/history" in texts
        assert not await _hits(app, "zzzzqqq")


async def test_choosing_a_hit_in_the_palette_runs_the_slash_command(until):
    app = PaletteHost()
    async with app.run_test(size=TERMINAL) as pilot:
        app.action_command_palette()
        await until(pilot, lambda: isinstance(app.screen, CommandPalette))
        await pilot.press(*"compa")
        results = app.screen.query_one(CommandList)

        def names() -> list[str]:
            return [str(results.get_option_at_index(i).prompt).split("\n")[0] for i in range(results.option_count)]

        await until(pilot, lambda: names() == ["/compact", "/compact-mode"])  # the first is highlighted
        await pilot.press("down", "enter")
        await until(pilot, lambda: app.slash_lines == ["/compact-mode"])
        assert not isinstance(app.screen, CommandPalette)


async def test_a_host_without_run_slash_gets_the_action(until):
    app = ActionsOnlyHost()
    async with app.run_test(size=TERMINAL) as pilot:
        hits = await _hits(app, "help")
        help_hit = next(hit for hit in hits if hit.text == "/help")
        await help_hit.command()
        await until(pilot, lambda: app.actions == ["show_help"])

"""The command-palette view of the registry: every slash command, searchable, run like typed.

Registered by the app with `COMMANDS = App.COMMANDS | {SlashCommandProvider}`. Choosing a hit
calls `app.run_slash("/name")` — the same dispatch as typing the command — so the palette can never
behave differently from the prompt.
"""

from __future__ import annotations

from functools import partial
from inspect import isawaitable

from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.content import Content

from co_tui.tui.commands import COMMANDS, CommandSpec
from co_tui.tui.key_label import key_label


def _help_text(spec: CommandSpec) -> str:
    key = f"  ({key_label(spec.key)})" if spec.key else ""
    return f"{spec.summary}{key}"


class SlashCommandProvider(Provider):
    """Palette hits for every command in `co_tui.tui.commands.COMMANDS`."""

    async def _run(self, spec: CommandSpec) -> None:
        run_slash = getattr(self.app, "run_slash", None)
        if run_slash is None:
            # A host without the slash interceptor still gets the command's action.
            await self.app.run_action(spec.action)
            return
        handled = run_slash(spec.slash)
        if isawaitable(handled):
            await handled

    async def discover(self) -> Hits:
        """All commands, in registry order, before the user types anything."""
        for spec in COMMANDS:
            yield DiscoveryHit(spec.slash, partial(self._run, spec), text=spec.slash, help=_help_text(spec))

    async def search(self, query: str) -> Hits:
        """Commands whose name (or, weaker, whose summary) fuzzily matches `query`.

        A bare `/` (what a user of the prompt types first) lists every command.
        """
        name_query = query.strip().lstrip("/")
        if not name_query:
            for rank, spec in enumerate(COMMANDS):  # falling scores keep the registry's order
                yield Hit(
                    1.0 - rank / 100,
                    Content(spec.slash),
                    partial(self._run, spec),
                    text=spec.slash,
                    help=_help_text(spec),
                )
            return
        matcher = self.matcher(name_query)
        for spec in COMMANDS:
            name_score = matcher.match(spec.name)
            summary_score = matcher.match(spec.summary) * 0.5
            score = max(name_score, summary_score)
            if score <= 0:
                continue
            display = (
                Content("/") + matcher.highlight(spec.name) if name_score >= summary_score else Content(spec.slash)
            )
            yield Hit(score, display, partial(self._run, spec), text=spec.slash, help=_help_text(spec))

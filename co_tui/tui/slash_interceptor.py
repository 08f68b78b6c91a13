"""The slash interceptor: a prompt line starting with `/` runs a command instead of a turn.

`SlashInterceptor` is one part of `CoTuiApp` (see `co_tui/tui/app.py`). The prompt posts
`RunSlash`; the line is looked up in the command registry (`co_tui/tui/commands.py`) and runs the
same action a key or the palette runs.
"""

from __future__ import annotations

from co_tui.tui.commands import closest_command, find_command
from co_tui.tui.messages import RunSlash


class SlashInterceptor:
    """The part of `CoTuiApp` that handles `RunSlash` and offers `run_slash(line)`.

    A mixin: it holds no state. It uses `chat` (`CoTuiApp`), the actions that take an argument
    (`action_compact`, `action_export`, `action_model` of `AppActions`) and Textual's `run_action`
    for the rest. Textual finds `on_run_slash` by walking the app's MRO.
    """

    async def on_run_slash(self, message: RunSlash) -> None:
        await self.run_slash(message.line)

    async def run_slash(self, line: str) -> bool:
        """Run a slash command line. Returns False when `line` is not a slash command at all.

        Unknown commands are handled too: an inline hint names the closest match.
        """
        line = line.strip()
        if not line.startswith("/") or line.startswith("//"):
            return False
        name, _, arg = line[1:].partition(" ")
        arg = arg.strip()
        spec = find_command(name)
        chat = self.chat
        chat.clear_hint()
        if spec is None:
            near = closest_command(name)
            tip = f" — did you mean /{near}?" if near else " — /help lists the commands"
            chat.show_hint(f"unknown command /{name}{tip}")
            return True
        if spec.name == "compact":
            self.action_compact(arg or None)
        elif spec.name == "export":
            await self.action_export(arg)
        elif spec.name == "model":
            await self.action_model(arg)
        else:
            await self.run_action(spec.action)
        return True

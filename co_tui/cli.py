"""The `co-tui` command: parse arguments, load settings, hand over to a front end.

No logic of its own (DESIGN §1): the TUI lives in `co_tui.tui`, print mode in `co_tui.print_mode`,
session commands in `co_tui.session.commands`. Exit codes: 0 ok, 1 model/provider error, 2 bad
usage or settings, 130 interrupted.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

from co_tui import __version__

if TYPE_CHECKING:
    from co_tui.config import Settings

EXIT_OK, EXIT_MODEL_ERROR, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:  # one line, exit 2 (argparse's default prints usage too)
        self.exit(EXIT_USAGE, f"co-tui: {message} (see co-tui --help)\n")


def build_parser() -> argparse.ArgumentParser:
    """The argument parser; `--help` is generated from it, so it is the reference for flags."""
    p = _Parser(
        prog="co-tui",
        description="A terminal chat for an LLM agent that never cuts its context silently.",
        epilog="Settings also come from CO_TUI_* environment variables and config.toml; see docs/configuration.md.",
    )
    p.add_argument("--version", action="version", version=f"co-tui {__version__}")
    p.add_argument("-p", "--print", dest="prompt", metavar="PROMPT", help="run one turn, print the answer, exit")
    p.add_argument("--output-format", choices=("text", "jsonl"), default="text",
                   help="print mode output: the answer as text, or every event as a JSON line")
    p.add_argument("--model", help="model: 'offline' (default) or a pydantic-ai model string, e.g. anthropic:claude-sonnet-4-5")
    p.add_argument("--continue", dest="continue_latest", action="store_true",
                   help="continue the latest session in this workspace")
    p.add_argument("--resume", nargs="?", const="", metavar="ID",
                   help="resume a session by id (or unique prefix); without ID, pick one")
    p.add_argument("--list-sessions", action="store_true", help="list saved sessions and exit")
    p.add_argument("--export", metavar="ID", help="export a session and exit")
    p.add_argument("--format", dest="export_format", choices=("md", "json"), default="md",
                   help="format for --export (default md)")
    p.add_argument("--yes", action="store_true", help="print mode: approve every run_shell call (needs allow_shell)")
    p.add_argument("--allow-shell", action="store_true", default=None, help="offer the run_shell tool")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of `co-tui`; returns the process exit code.

    A bad setting prints one line naming it and its source and exits 2, in every mode. The TUI
    loads settings itself, after its first frame (pydantic-settings alone costs ~150 ms), and
    prints that line once the terminal is restored.
    """
    args = build_parser().parse_args(argv)
    workspace = Path.cwd()
    if not (args.list_sessions or args.export or args.prompt is not None):
        from co_tui.tui.app import run_app

        return run_app(_settings_loader(args), workspace, resume_id=args.resume,
                       continue_latest=args.continue_latest)

    from co_tui.config import SettingsError, load_settings

    try:
        settings = load_settings(model=args.model, allow_shell=args.allow_shell)
    except SettingsError as exc:
        print(f"co-tui: {exc}", file=sys.stderr)
        return EXIT_USAGE

    if args.list_sessions or args.export:
        from co_tui.session.commands import export_session, list_sessions

        if args.list_sessions:
            return list_sessions(settings, workspace)
        return export_session(settings, args.export, args.export_format)

    from co_tui.print_mode import run_print_mode

    return run_print_mode(
        settings,
        workspace,
        args.prompt,
        output_format=args.output_format,
        assume_yes=args.yes,
        resume_id=args.resume,
        continue_latest=args.continue_latest,
    )


def _settings_loader(args: argparse.Namespace) -> Callable[[], Settings]:
    """`load_settings` with the command line's overrides, imported only when called (the TUI calls
    it in a worker after its first paint). Raises `SettingsError`."""

    def load() -> Settings:
        from co_tui.config import load_settings

        return load_settings(model=args.model, allow_shell=args.allow_shell)

    return load

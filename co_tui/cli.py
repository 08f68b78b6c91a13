"""The `co-tui` command: parse arguments, load settings, hand over to a front end.

No logic of its own (docs/architecture.md): the TUI lives in `co_tui.tui`, print mode in `co_tui.print_mode`,
opening sessions in `co_tui.session` (its public face), the session commands in `co_tui.cli_sessions`, print mode's prompt from `-p` and stdin in
`co_tui.print_input`. Exit codes: 0 ok, 1 model/provider error, 2 bad usage or settings, 130
interrupted, 141 output pipe closed by its reader.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

from co_tui import __version__
from co_tui.print_input import BARE_P

if TYPE_CHECKING:
    import argparse

    from co_tui.config import Settings

EXIT_OK, EXIT_MODEL_ERROR, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130
EXIT_BROKEN_PIPE = 141  # co_tui.broken_pipe.EXIT_BROKEN_PIPE (128 + SIGPIPE), without importing signal here


def build_parser() -> argparse.ArgumentParser:
    """The argument parser; `--help` is generated from it, so it is the reference for flags.
    argparse is imported here, by the paths that parse: plain `co-tui` builds no parser."""
    import argparse

    class _Parser(argparse.ArgumentParser):
        def error(self, message: str) -> NoReturn:  # one line, exit 2 (argparse's default prints usage too)
            self.exit(EXIT_USAGE, f"co-tui: {message} (see co-tui --help)\n")

    p = _Parser(
        prog="co-tui",
        description="A terminal chat for an LLM agent that never cuts its context silently.",
        epilog="Settings also come from CO_TUI_* environment variables and config.toml; see docs/configuration.md. "
        "`co-tui acp` serves the Agent Client Protocol on stdio for editors (Zed, JetBrains, neovim): docs/acp.md.",
    )
    p.add_argument("--version", action="version", version=f"co-tui {__version__}")
    mode = p.add_mutually_exclusive_group()
    mode.add_argument(
        "-p",
        "--print",
        dest="prompt",
        metavar="PROMPT",
        nargs="?",
        const=BARE_P,
        help="run one turn, print the answer, exit; with no PROMPT (or -), stdin is the "
        "prompt; with both, stdin is attached before the prompt",
    )
    p.add_argument(
        "--output-format",
        choices=("text", "jsonl"),
        default=None,
        help="print mode output: the answer as text (default), or every event as a JSON line",
    )
    p.add_argument(
        "--model", help="model: 'offline' (default) or a pydantic-ai model string, e.g. anthropic:claude-sonnet-4-5"
    )
    which = p.add_mutually_exclusive_group()
    which.add_argument(
        "--continue", dest="continue_latest", action="store_true", help="continue the latest session in this workspace"
    )
    which.add_argument(
        "--resume",
        nargs="?",
        const="",
        metavar="ID",
        help="resume a session by id (or unique prefix), or read a rescued-*.json / --format json export back in "
        "as a new session; without ID, pick one (in the TUI)",
    )
    p.add_argument(
        "--fork-session",
        action="store_true",
        help="with --continue or --resume ID: go on in a new session copied from that one (which stays as it is)",
    )
    p.add_argument(
        "--at",
        dest="at_turn",
        type=int,
        metavar="TURN",
        help="with --resume ID and -p: send the prompt from just before that earlier turn, on a new branch",
    )
    mode.add_argument("--list-sessions", action="store_true", help="list saved sessions and exit")
    p.add_argument(
        "--search",
        nargs="+",
        metavar="WORDS",
        help="with --list-sessions: only sessions whose title or saved text has every word (a bare word "
        'matches as a prefix, "a phrase" as a phrase), each with a line around its newest hit',
    )
    mode.add_argument("--export", metavar="ID", help="export a session to stdout and exit")
    p.add_argument(
        "--format", dest="export_format", choices=("md", "json"), default=None, help="format for --export (default md)"
    )
    p.add_argument(
        "--yes",
        action="store_true",
        help="print mode: approve every call that asks first: run_shell (needs allow_shell), file edits and MCP tools that need approval",
    )
    p.add_argument("--allow-shell", action="store_true", default=None, help="offer the run_shell tool")
    p.add_argument(
        "--no-compact",
        dest="no_compact",
        action="store_true",
        help="never cut the context automatically for this run (compact_mode = off; overflow recovery still runs)",
    )
    return p


def usage_problem(args: argparse.Namespace) -> str | None:
    """The one-line complaint about flags that do nothing in the mode asked for (argparse itself
    refuses two modes at once), or None. Checked before anything is drawn or run."""
    printing = args.prompt is not None
    if args.output_format is not None and not printing:
        return "--output-format applies to print mode: add -p"
    if args.yes and not printing:
        return "--yes applies to print mode: add -p"
    if args.export_format is not None and not args.export:
        return "--format applies to --export ID"
    if args.fork_session and not (args.continue_latest or args.resume):
        return "--fork-session applies to --continue or --resume ID"
    if args.at_turn is not None and not (printing and args.resume):
        return "--at TURN applies to --resume ID with -p"
    if args.at_turn is not None and args.at_turn < 1:
        return "--at TURN takes a turn number from 1"
    if args.search is not None and not args.list_sessions:
        return "--search applies to --list-sessions"
    if (args.list_sessions or args.export) and (args.resume is not None or args.continue_latest):
        flag = "--resume" if args.resume is not None else "--continue"
        return f"{flag} cannot be combined with {'--list-sessions' if args.list_sessions else '--export'}"
    if (args.list_sessions or args.export) and (args.model is not None or args.allow_shell or args.no_compact):
        flag = "--model" if args.model is not None else "--allow-shell" if args.allow_shell else "--no-compact"
        return (
            f"{flag} applies to a chat (the TUI or -p), not {'--list-sessions' if args.list_sessions else '--export'}"
        )
    return None


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of `co-tui`; returns the process exit code.

    A bad setting prints one line naming it and its source and exits 2, in every mode; so does
    misuse of the flags, before anything is drawn. A reader that closes the output early
    (`| head`) ends the program quietly with status 141 (`co_tui.broken_pipe`). Ctrl+C before a
    turn runs (waiting for stdin, loading) is one line and status 130, not a traceback.
    """
    from co_tui.terminal_echo import echo_off

    restore_echo = echo_off()  # first thing: keys typed while co-tui starts are not printed on the shell
    try:
        code = _main(argv)
        sys.stdout.flush()  # inside the guard: a closed pipe shows here, not at interpreter exit
    except KeyboardInterrupt:  # a running turn handles Ctrl+C itself (print_mode, the TUI)
        print("co-tui: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        from co_tui.broken_pipe import discard_stdout

        return discard_stdout()
    finally:
        restore_echo()
    if code == EXIT_BROKEN_PIPE:
        from co_tui.broken_pipe import discard_stdout

        discard_stdout()
    return code


def _main(argv: Sequence[str] | None) -> int:
    """`main` without the closed-pipe guard. The TUI loads settings itself, after its first frame
    (pydantic-settings alone costs ~150 ms), and prints a bad setting's line once the terminal is
    restored. `--resume ID` and `--continue` look the session up first, to refuse one that is not
    there before the screen is drawn, in the data dir read without the settings
    (`paths.data_dir_without_settings`; the settings are built first only when that is unclear)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv:  # `co-tui` alone: the chat, nothing overridden; no parser is built before its first frame
        return _run_tui(_settings_loader(None), Path.cwd())
    parser = build_parser()
    if argv[:1] == ["acp"]:  # `co-tui acp`: the Agent Client Protocol on stdio (docs/acp.md)
        return _run_acp(parser, argv[1:])
    args = parser.parse_args(argv)
    problem = usage_problem(args)
    if problem:
        parser.error(problem)
    workspace = Path.cwd()
    printing = args.prompt is not None
    prompt, title = "", None
    if printing:
        from co_tui.print_input import PromptUsageError, build_prompt, stdin_is_tty

        stdin = getattr(sys.stdin, "buffer", None)
        try:
            prompt, title = build_prompt(args.prompt, stdin, is_tty=stdin_is_tty(stdin), warn=_warn)
        except PromptUsageError as exc:
            parser.error(str(exc))
    tui = not (args.list_sessions or args.export or printing)
    if tui and args.resume is None and not args.continue_latest:  # a bare --resume ("") opens the picker
        return _run_tui(_settings_loader(args), workspace)
    if tui:
        from co_tui.paths import data_dir_without_settings

        data_dir = data_dir_without_settings()
        if data_dir is not None:  # else the settings are built first: their error names the bad value
            resume_id = _check_resumable(data_dir, workspace, args)
            if resume_id is None:
                return EXIT_USAGE
            return _run_tui(_settings_loader(args), workspace, resume_id)

    from co_tui.config import SettingsError, load_settings

    try:
        settings = load_settings(**_cli_settings(args))
    except SettingsError as exc:
        print(f"co-tui: {exc}", file=sys.stderr)
        return EXIT_USAGE

    if tui:
        resume_id = _check_resumable(settings.resolved_data_dir, workspace, args)
        if resume_id is None:
            return EXIT_USAGE
        return _run_tui(settings, workspace, resume_id)

    if args.list_sessions or args.export:
        from co_tui.cli_sessions import export_session, list_sessions

        if args.list_sessions:
            return list_sessions(settings, workspace, search=None if args.search is None else " ".join(args.search))
        return export_session(settings, args.export, args.export_format or "md")

    from co_tui.print_mode import run_print_mode

    return run_print_mode(
        settings,
        workspace,
        prompt,
        output_format=args.output_format or "text",
        assume_yes=args.yes,
        resume_id=args.resume,
        continue_latest=args.continue_latest,
        title=title,
        fork=args.fork_session,
        at_turn=args.at_turn,
    )


def _run_acp(parser: argparse.ArgumentParser, argv: list[str]) -> int:
    """`co-tui acp [--model M] [--allow-shell] [--no-compact]`: serve ACP until the client closes stdin."""
    args = parser.parse_args(argv)
    chat_only = (
        args.prompt is not None
        or args.list_sessions
        or args.export
        or args.resume is not None
        or args.continue_latest
        or args.yes
    )
    if chat_only:
        parser.error("co-tui acp takes --model, --allow-shell and --no-compact (the client opens sessions)")
    from co_tui.config import SettingsError, load_settings

    try:
        settings = load_settings(**_cli_settings(args))
    except SettingsError as exc:
        print(f"co-tui: {exc}", file=sys.stderr)
        return EXIT_USAGE
    from co_tui.acp import run_acp

    return run_acp(settings)


def _run_tui(settings: Settings | Callable[[], Settings], workspace: Path, resume_id: str | None = None) -> int:
    """`tui.app.run_app`, with the garbage collector off from before Textual is imported until the
    session is ready (`run_app` turns it back on, at the latest when the app ends; docs/architecture.md)."""
    problem = _no_terminal()
    if problem:
        print(f"co-tui: {problem}", file=sys.stderr)
        return EXIT_USAGE
    from co_tui.tui.gc_pause import hold_collections_for_start_up

    hold_collections_for_start_up()
    from co_tui.tui.app import run_app

    return run_app(settings, workspace, resume_id=resume_id)


def _no_terminal() -> str | None:
    """Why the full-screen chat cannot run here (stdin or stdout is not a terminal), or None.
    Without this, `co-tui < /dev/null` or `co-tui | less` drew into the pipe and spun a core on
    stdin's end of file until killed; the line points at print mode (README.md, "Exit status")."""
    for name, stream in (("stdin", sys.stdin), ("stdout", sys.stdout)):
        try:
            if stream is not None and os.isatty(stream.fileno()):
                continue
        except (OSError, ValueError):
            pass
        return f"the full-screen chat needs a terminal and {name} is not one: for one turn without it, use -p"
    return None


def _check_resumable(data_dir: Path, workspace: Path, args: argparse.Namespace) -> str | None:
    """The full id of the session `--resume ID` / `--continue` names in the store under `data_dir`,
    or None after printing the one line that says why there is none. A bare `--resume` returns ""
    (the TUI's picker)."""
    if args.resume == "":
        return ""
    from co_tui.session import OpenSessionError, StoreError, open_store_at, resolve_session_id

    try:
        store = open_store_at(data_dir)
    except OpenSessionError as exc:
        _warn(str(exc))
        return None
    try:
        found = resolve_session_id(store, workspace, resume_id=args.resume, continue_latest=args.continue_latest)
        if found and args.fork_session:  # a new session copied from it; the TUI resumes that one
            from co_tui.session import fork_saved

            return fork_saved(store, found)
        return found
    except (OpenSessionError, StoreError) as exc:
        _warn(str(exc))
        return None
    finally:
        store.close()


def _warn(line: str) -> None:
    print(f"co-tui: {line}", file=sys.stderr)


def _settings_loader(args: argparse.Namespace | None) -> Callable[[], Settings]:
    """`load_settings` with the command line's overrides (None: no arguments, none), imported only
    when called (the TUI calls it in a worker after its first paint). Raises `SettingsError`."""

    def load() -> Settings:
        from co_tui.config import load_settings

        return load_settings(**(_cli_settings(args) if args is not None else {}))

    return load


def _cli_settings(args: argparse.Namespace) -> dict[str, object]:
    """The settings the command line overrides (None: not given, the other sources decide)."""
    return {
        "model": args.model,
        "allow_shell": args.allow_shell,
        "compact_mode": "off" if args.no_compact else None,
    }

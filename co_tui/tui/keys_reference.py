"""The keys-and-commands reference, generated from the registry (one registry, three views).

The help screen renders `reference_markdown()`; `docs/keys-and-commands.md` holds the same text
between two markers and a test keeps them equal, so neither can drift from `commands.py`.
Regenerate the doc with `python -m co_tui.tui.keys_reference --write`.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
from pathlib import Path

from textual.binding import Binding

from co_tui.tui.commands import COMMANDS, KEYS, PROMPT_FORMS
from co_tui.tui.key_label import key_label

DOC_PATH = Path(__file__).resolve().parents[2] / "docs" / "keys-and-commands.md"
BEGIN_MARK = "<!-- BEGIN GENERATED: python -m co_tui.tui.keys_reference --write -->"
END_MARK = "<!-- END GENERATED -->"


GOVERNANCE_EXPLAINER = """\
## Context governance: what you are looking at

co-tui never lets the conversation silently outgrow the model's context window, and it never cuts
what the model sees without telling you (and the model).

- **The meter** under the chat, e.g. `23/500 msgs · ~18.2k/100k tokens (18%)`: messages the model
  will be sent against `max_history_messages`, and tokens against the budget. A `~` means the
  figure is partly estimated (no provider report covers the newest messages yet); without `~` it
  equals what the provider last reported. The bar is green below 60 %, amber below 85 % and red
  from 85 %; the bar spans the model's window, its tick marks the budget. `trims on next send` means the
  context is past a limit (the token budget or the message limit) as governance counts it (it
  happens right after a long answer) and will be cut before the next request goes out, with a
  banner; it says which kind of cut: `summarises on next send`, `trims on next send` (whole turns)
  or `shortens outputs on next send`. The history inspector marks the rows that cut would remove
  or summarise `next to go` (none in `compact_mode` off: no automatic cut comes). Past half the budget,
  `≈3 turns to trim` (`≈3 turns to summary` under the summarize strategy) says roughly how many
  more turns fit before that cut, from the largest of the recent turns, tool outputs included. `over: the newest turn alone, sent whole` explains a figure over 100 %: the turn
  being answered (a prompt and its tool results) is never cut, and it alone is over the budget; the
  log says so too, with a `⚠ over budget` line. `over: instructions + tools take 6.2k` explains it
  when the instructions and tool schemas take more than half the budget: the conversation keeps
  the other half for itself, so requests go over the budget before a cut comes; a `⚠ over budget`
  line says so once as the conversation starts. The meter counts them before the first message,
  as `/context` does. A prompt alone over the model's context window is
  not sent at all (`✗ context overflow  not sent: …`) and comes back into the prompt.
  `$0.42 · 81% cached` is the session's cost at list prices (priced models only)
  and the share of the last request the provider read back from its prompt cache.
  `MCP tools not counted yet`: an MCP server is still starting, and its tool schemas join the
  figure once it has listed them. On a narrow terminal the bar shortens first, then the wording.
- **Banners** in the chat mark every change to what the model sees, at the point of the cut:
  `✂ History trimmed · 14 messages (3 turns) · 41.2k → 12.9k tokens · token budget`. Click one, or
  press Shift+Tab in the prompt to focus the newest banner or tool row (Tab / Shift+Tab move between
  them; the focused row is highlighted), and press Enter to open it: the reason, the strategy, the
  budget and, for summaries, the summary text. Typing goes back to the prompt: every key reaches
  it, the first one too, in the order typed. A row's own letter (`r` below) acts only when
  pressed on its own, not as the first letter of typed text.
- **Following the chat**: the chat stays at its end as output arrives. Scroll up (the wheel, the
  scrollbar, PgUp or Ctrl+Home from the prompt) and it stays where you are, with `↓ new output
  below` under it; `Ctrl+End`, PgDn to the end or a click on that line goes back to the end, and so
  does sending a prompt. A row opened with Enter stays in
  view until the next item arrives.
  `/compact` and `/clear` leave their own banners (`Conversation compacted`, `Conversation cleared`).
  `/compact` (and `Ctrl+K`) first shows what it will summarise and the estimated size after:
  Enter compacts, Esc keeps the conversation; `Ctrl+K` pressed twice compacts without the question.
- **Asked first** (`compact_mode = "ask"`, `/compact-mode ask`): a send that would cut stops before
  anything is sent and shows the planned cut — what goes, what stays, the request's tokens before
  and after against the budget and the window, and what it costs the prompt cache (the meter says
  `asks before next send`). `c` cuts as planned and sends; `k` compacts with the focus typed in the
  dialog's field (Enter there too), then sends; `i` opens the history inspector to pin or evict, and
  the question comes back with the new figures; `o` sends over the budget once, and a line in the chat
  says so with the figures (refused in one line past the model's window); its answers arm as an
  approval's do; `Esc` (or `Ctrl+C`) cancels the send and puts the prompt back in the input. Inside a
  turn nothing is cut unless a request would pass the model's window (one line says so).
  After a summary or compaction the banner's details list what the summary kept and lost of the
  paths, names and numbers it covers (`kept 14 of 16 paths; lost: src/a.py, docs/b.md`); `r` on
  that banner brings a lost item back: the lines around its mentions in the summarised messages,
  verbatim, as one short message at the end of the context (`/undo` takes it out again).
- **Markers** are what the model reads in place of what was cut: a breadcrumb
  `[Earlier conversation trimmed — N messages (K turns) removed …]` listing the turns it removed, a
  `[Summary of N earlier messages] — turns 2-9: recall(turns="2-9")`, or an old tool output cut to
  `tool_output_trim_chars` and ending in `[…truncated, N chars total — its call; recall("r12") …]`.
  Each names the exact `recall(…)` call that returns the original verbatim: the model's read-only
  `recall` tool (offered once something was cut) reads this session's transcript, so nothing cut
  is out of reach. Its tool row says what came back, from which turn. A tool row badged `preview`
  was too big to send whole (over `tool_output_preview_chars`): the model got its head and tail and
  the handle to read the rest; the transcript keeps it whole.
- **What each request holds**: `/context` breaks the next request down by category — co-tui's
  instructions, your project instructions (AGENTS.md / CLAUDE.md, one row per file), the tool
  schemas (per source), the conversation's messages, markers and summaries — with a bar across the
  model's window showing the free space before the trigger (`┃`) and the reserve above it (`·`).
  The rows add up to the meter's figure.
- **Rewind and branches**: `Esc Esc` on an empty prompt while nothing runs, or `/rewind`, lists the
  earlier prompts of this branch, newest first (turn, age, first line, context size then). Enter
  goes back to just before the chosen prompt: the context, the cuts in effect, the pins and the
  meter come back exactly as the model had them then, and the prompt's text returns to the input to
  edit and send. When the agent edited files after it (`write_file`, `edit_file`), you choose what
  to put back: conversation and code, conversation only, or code only; a file changed on disk since
  is left as it is. Changes made by `run_shell` or MCP tools cannot be put back. Esc leaves
  everything as it was. Nothing is deleted: the turns after the rewind point stay as a branch, and
  `/branches` lists the tree (where each branch was rewound, its turns, last prompt, age); Enter
  switches to one, exactly as it was left. A `⎇` banner marks each rewind and switch. Refused with
  one line while a turn runs.
- **Subagents**: when the model hands a task to a subagent (the `delegate` tool), the chat shows
  the child as a live block instead of a tool row: its agent and task, its own meter (messages and
  tokens against its own budget), the tool it runs now, its own cuts, its elapsed time and cost.
  None of its text or tool rows enter the main chat. Enter (or a click) opens its transcript as it
  streams, while it runs too; Esc returns to the chat and the child goes on. When it ends the block
  says how (done, failed, timed out, cancelled, stopped at a limit), what it returned (size and the
  `recall` handle that reads its whole transcript) and what it cost. Esc in the chat stops the
  whole turn, children included. `F2`'s Subagents tab lists every child with its figures and cuts.
- **Nothing is lost**: the transcript keeps every message. The history inspector (`F2`) shows
  what the model sees now next to the whole transcript, with every message's status (in context,
  dropped, summarised, output truncated), the ledger of every cut, and the usage of every request
  (input, cached, written to the cache, output, cost).
"""


def _command_for_action(action: str) -> str:
    return next((spec.slash for spec in COMMANDS if spec.action == action), "")


def _cell(text: str) -> str:
    """Markdown-table-safe text (a `|` would end the cell)."""
    return text.replace("|", "\\|")


def keys_table() -> str:
    """The app-wide keys (registry `KEYS`) as a Markdown table."""
    rows = ["| Key | What it does | Command |", "|---|---|---|"]
    for spec in KEYS:
        command = _command_for_action(spec.action)
        rows.append(f"| `{key_label(spec.key)}` | {_cell(spec.description)} | {f'`{command}`' if command else ''} |")
    return "\n".join(rows)


def commands_table() -> str:
    """Every slash command (registry `COMMANDS`) as a Markdown table.

    Columns as in every table here: what you press or type, what it does, the other way to do it
    (the help screen gives the middle column the room that is left and wraps only there).
    """
    rows = ["| Command | What it does | Key |", "|---|---|---|"]
    for spec in COMMANDS:
        key = f"`{key_label(spec.key)}`" if spec.key else ""
        rows.append(f"| `{_cell(spec.usage or spec.slash)}` | {_cell(spec.summary)} | {key} |")
    return "\n".join(rows)


def prompt_forms_table() -> str:
    """What the prompt does with the text typed in it (registry `PROMPT_FORMS`) as a Markdown table."""
    rows = ["| Type | What it does |", "|---|---|"]
    rows += [f"| `{_cell(spec.form)}` | {_cell(spec.description)} |" for spec in PROMPT_FORMS]
    return "\n".join(rows)


def bindings_table(bindings: Iterable[Binding | tuple[str, ...]]) -> str:
    """A screen's own `BINDINGS` (Binding objects or tuples) as a Markdown table."""
    rows = ["| Key | What it does |", "|---|---|"]
    for binding in bindings:
        key, description = (
            (binding.key, binding.description)
            if isinstance(binding, Binding)
            else (binding[0], binding[2] if len(binding) > 2 else binding[1])
        )
        rows.append(f"| `{key_label(key)}` | {_cell(description)} |")
    return "\n".join(rows)


def _screen_sections() -> list[tuple[str, str]]:
    # Lazy: only the full reference needs the screens (and their widgets) loaded.
    from co_tui.tui.screens.approval import ApprovalDialog
    from co_tui.tui.screens.context import ContextScreen
    from co_tui.tui.screens.history import HistoryScreen
    from co_tui.tui.screens.permissions import PermissionsScreen
    from co_tui.tui.screens.sessions import SessionsScreen
    from co_tui.tui.screens.subagent import SubagentScreen

    # The tables' own keys: `u` on the Trims tab, `p` and `d` on the context and transcript tabs.
    steering = [
        ("d", "evict", "Evict — on a message: its tool output, or its whole older turn, leaves the context"),
        ("u", "undo_cut", "Undo cut — on the Trims tab: the selected cut and every cut after it"),
        ("p", "pin_turn", "Pin turn — on a message: its turn is never cut; again: unpin"),
        ("enter", "open_child", "Open transcript — on the Subagents tab: the selected child's whole transcript"),
    ]
    return [
        ("In the history inspector", bindings_table([*HistoryScreen.BINDINGS, *steering])),
        ("In the context breakdown", bindings_table(ContextScreen.BINDINGS)),
        ("In the sessions picker", bindings_table(SessionsScreen.BINDINGS)),
        ("On a banner in the chat (Shift+Tab from the prompt)", _banner_table()),
        (
            "On a subagent's block in the chat (Shift+Tab from the prompt)",
            bindings_table(
                [("enter", "open", "Open its transcript — live while the child runs; a click opens it too")]
            ),
        ),
        ("In a subagent's transcript", bindings_table(SubagentScreen.BINDINGS)),
        (
            "In an approval dialog (a shell command, an MCP tool call, a file edit)",
            _approval_table(ApprovalDialog.BINDINGS),
        ),
        ("In the permissions list (/permissions)", bindings_table(PermissionsScreen.BINDINGS)),
    ]


def _approval_table(bindings: Iterable[Binding | tuple[str, ...]]) -> str:
    from co_tui.tui.screens.arming import ARMING_S

    arming = (
        f"Its answers arm {ARMING_S:g} s after it appears (the buttons are dimmed and show no key until"
        " then), so a key meant for the prompt cannot answer it: text typed meanwhile goes to the prompt,"
        " and each key starts the wait again. Armed, a letter that is none of its answers, or one typed"
        f" within {ARMING_S:g} s of the letter before it (`hello` typed on), still goes to the prompt and"
        " starts the wait again: a key pressed on its own answers. The /clear and delete-session"
        " confirmations and the ask dialog of `compact_mode` ask arm the same way; /compact's does not"
        " (`/undo` takes a compaction back, and `Ctrl+K` twice is its quick path)."
    )
    # The six scroll keys share one action and one row.
    own = [b for b in bindings if isinstance(b, Binding)]
    answers = [b for b in own if not b.action.startswith("scroll_box")]
    scroll = [b for b in own if b.action.startswith("scroll_box")]
    rows: list[Binding | tuple[str, ...]] = [*answers]
    if scroll:
        rows.append((",".join(b.key for b in scroll), "scroll_box", scroll[0].description))
    return f"{arming}\n\n{bindings_table(rows)}"


def _banner_table() -> str:
    from co_tui.tui.widgets.trim_banner import RECOVER_KEY

    return bindings_table(
        [
            ("enter", "toggle", "Open or close its details"),
            (
                RECOVER_KEY,
                "recover",
                "Recover a lost item — on a summary whose check lost items: pick one (Enter); a verbatim "
                "excerpt of it goes at the end of the context",
            ),
        ]
    )


def offline_triggers_section() -> str:
    """What the built-in offline model reacts to (its `TRIGGERS`), as a Markdown section."""
    # offline_intents is pure Python: listing the phrases does not load pydantic-ai.
    from co_tui.session import TRIGGERS

    rows = [
        "## The offline model",
        "",
        "With `--model offline` (the default) co-tui needs no network and no API key: the answers are",
        "deterministic, and these prompts make it call the workspace tools, so every feature can be",
        'tried without a real model. Several requests can be joined with "and", "then" or ";".',
        "",
    ]
    # A list, not a table: the example prompts stay on one line each.
    rows += [f"- `{example}` — {effect}" for example, effect in TRIGGERS]
    return "\n".join(rows)


def reference_markdown() -> str:
    """The whole reference: keys, slash commands, per-screen keys, governance explainer, offline model."""
    parts = [
        "## Keys",
        "",
        keys_table(),
        "",
        "## Slash commands",
        "",
        "Type them in the prompt (a popup completes them after `/`), or pick them from the",
        "command palette (`Ctrl+P`). An unknown command gets a hint with the closest match.",
        "",
        commands_table(),
        "",
        "## In the prompt",
        "",
        "Enter sends; `Ctrl+J`, `Alt+Enter` or `Shift+Enter` starts a new line; ↑ and ↓ on the first and",
        "last line bring back earlier prompts. `Ctrl+J` works in every terminal. `Alt+Enter` works where",
        "the terminal sends it as ESC CR: tmux, xterm, GNOME Terminal, Konsole, Windows Terminal, iTerm2",
        "(Option as Meta), and the kitty-protocol terminals. `Shift+Enter` works in the terminals with the",
        "kitty keyboard protocol (kitty, WezTerm, foot, Ghostty); elsewhere it sends what Enter sends, and",
        "sends the prompt.",
        "",
        prompt_forms_table(),
        "",
    ]
    for title, table in _screen_sections():
        parts += [f"## {title}", "", table, ""]
    parts += [GOVERNANCE_EXPLAINER, offline_triggers_section(), ""]
    return "\n".join(parts).rstrip() + "\n"


def generated_block(text: str) -> str | None:
    """The text between the markers of a doc, or None when the markers are missing."""
    start, end = text.find(BEGIN_MARK), text.find(END_MARK)
    if start < 0 or end < start:
        return None
    return text[start + len(BEGIN_MARK) : end].strip("\n") + "\n"


def write_doc(path: Path = DOC_PATH) -> None:
    """Rewrite the generated block of the doc at `path` (the text around the markers stays)."""
    text = path.read_text(encoding="utf-8")
    start, end = text.find(BEGIN_MARK), text.find(END_MARK)
    if start < 0 or end < start:
        raise SystemExit(f"{path}: the generated-block markers are missing")
    new = text[:start] + BEGIN_MARK + "\n\n" + reference_markdown() + "\n" + text[end:]
    path.write_text(new, encoding="utf-8")


if __name__ == "__main__":
    if sys.argv[1:] == ["--write"]:
        write_doc()
    else:
        sys.stdout.write(reference_markdown())

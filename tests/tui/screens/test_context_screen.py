"""The /context screen: the bar and rows of a breakdown, opened from the chat, and its snapshots."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path

import pytest
from pilot_helpers import wait_idle, wait_ready
from pydantic_ai.messages import ModelRequest, ModelResponse, TextPart, UserPromptPart
from screen_host import make_host, screen_env, until  # noqa: F401 (fixtures)
from textual.widgets import Static

from co_tui.governance import estimate_tokens
from co_tui.governance.markers import make_summary_marker
from co_tui.session.context_breakdown import ContextBreakdown, OverheadPart, compute_breakdown
from co_tui.text import format_tokens
from co_tui.tui.screens.context import ContextRows, ContextScreen, bar_cells, row_lines, summary_line


def _conversation(turns: int, words: int = 400) -> list:
    out: list = [make_summary_marker(12, 3, "The user set up the parser; tests pass. " * 20)]
    for i in range(turns):
        out.append(ModelRequest(parts=[UserPromptPart(f"question {i} " + "about the parser " * (words // 4))]))
        out.append(ModelResponse(parts=[TextPart(f"answer {i} " + "the parser reads tokens " * (words // 4))]))
    return out


PARTS = [
    OverheadPart("instructions", "co-tui", 420),
    OverheadPart("project_instructions", "AGENTS.md", 610),
    OverheadPart("project_instructions", "~/.config/co-tui/AGENTS.md", 180),
    OverheadPart("tool_schemas", "workspace", 330, 3),
    OverheadPart("tool_schemas", "github", 2400, 26),
]


@dataclass
class Stub:
    """A session as the screen sees it: `turns` of conversation under the fixed parts, the meter
    `extra` tokens above their estimate (as a provider's report would put it)."""

    turns: int = 14
    extra: int = 700
    parts: list[OverheadPart] = field(default_factory=lambda: PARTS)

    def context_breakdown(self) -> ContextBreakdown:
        messages = _conversation(self.turns)
        breakdown = compute_breakdown(
            messages,
            self.parts,
            meter_tokens=estimate_tokens(messages) + sum(p.tokens for p in self.parts) + self.extra,
            overhead_tokens=sum(p.tokens for p in self.parts),
            ratio=1.0,
            budget_tokens=25_600,
            window_tokens=32_000,
            exactness="anchored",
        )
        # Past the trigger with small fixed parts, the session's governance cuts on the next send.
        return replace(breakdown, cut_pending=breakdown.over_tokens > 0)


def test_the_bar_is_the_window_to_scale() -> None:
    breakdown = Stub().context_breakdown()
    for width in (20, 57, 98):
        runs = bar_cells(breakdown, width)
        assert sum(cells for _, cells in runs) == width
        names = [name for name, _ in runs]
        assert names.count("mark") == 1 and names.index("mark") == names.index("free") + 1
        assert names[-1] == "reserve" and names[0] in ("instructions", "project_instructions", "tool_schemas")
    assert bar_cells(breakdown, 98)[0][0] == "instructions", "wide enough, every part shows"
    held = sum(cells for name, cells in bar_cells(breakdown, 99) if name not in ("free", "mark", "reserve"))
    assert held == round(98 * breakdown.total_tokens / breakdown.window_tokens)


def test_rows_name_every_part_and_the_room() -> None:
    breakdown = Stub().context_breakdown()
    text = "\n".join(line.plain for line in row_lines(breakdown))
    for expected in (
        "Instructions",
        "co-tui",
        "Project instructions",
        "AGENTS.md",
        "github (26 tools)",
        "Conversation messages",
        "28 messages",
        "Markers and summaries",
        "1 message",
        "Free before the trigger",
        "Reserve above the trigger",
        "Next request",
        "Next request",
    ):
        assert expected in text, expected
    assert "Pinned" not in text, "no pinned turns, no row"
    pct = round(100 * breakdown.total_tokens / 25_600)
    assert summary_line(breakdown).startswith(
        f"~{format_tokens(breakdown.total_tokens)}/25.6k tokens to the trigger ({pct}%)"
    )
    assert 40 < pct < 80


def test_past_the_trigger_the_screen_says_so() -> None:
    breakdown = Stub(turns=33).context_breakdown()
    assert breakdown.over_tokens > 0
    runs = bar_cells(breakdown, 81)
    mark = sum(cells for _, cells in runs[: [name for name, _ in runs].index("mark")])
    assert mark == round(80 * 25_600 / (breakdown.total_tokens + breakdown.reserve_tokens)), (
        "the trigger stays where the budget ends"
    )
    assert runs[[name for name, _ in runs].index("mark") + 1][0] == "messages", "the messages go past it"
    text = "\n".join(line.plain for line in row_lines(breakdown))
    assert "Over the trigger" in text and format_tokens(breakdown.over_tokens) in text and "trims on next send" in text
    assert "Free before" not in text
    # Over the trigger with no cut coming (the instructions take more than half the budget): it
    # said `trims on next send` all the same, and the send made no cut (issue 32, item 1).
    uncut = "\n".join(line.plain for line in row_lines(replace(breakdown, cut_pending=False, overhead_excess=900)))
    assert "trims on next send" not in uncut and "no cut yet: instructions over half" in uncut


async def test_refresh_reads_the_breakdown_again(make_host) -> None:
    stub = Stub()
    app = make_host(lambda: ContextScreen(stub))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        before = str(app.screen.query_one("#context-figures", Static).render())
        stub.turns = 33
        await pilot.press("r")
        after = str(app.screen.query_one("#context-figures", Static).render())
        assert after != before and after.startswith(f"~{format_tokens(stub.context_breakdown().total_tokens)}/")
        await pilot.press("escape")
        assert app.results == [None]


async def test_at_60_columns_the_window_column_stays_on_screen(make_host) -> None:
    """At 60 columns the rows were laid out 62 cells wide: the window share was cut to `…`."""
    stub = Stub()
    app = make_host(lambda: ContextScreen(stub))
    async with app.run_test(size=(60, 30)) as pilot:
        await pilot.pause()
        rows = app.screen.query_one("#context-rows", ContextRows)
        width = rows.content_size.width
        lines = [line.plain for line in rows.render().split("\n")]
        assert 0 < width < 60 and all(len(line) <= width for line in lines), (width, lines)
        assert lines[0].endswith("window") and lines[-1].rstrip().endswith("%")
        stub.turns = 33
        await pilot.press("r")  # the rows are read again too
        await pilot.pause()
        again = [line.plain for line in rows.render().split("\n")]
        assert any("Over the trigger" in line for line in again)


def test_context_snapshot(snap_compare, make_host) -> None:
    assert snap_compare(make_host(lambda: ContextScreen(Stub())), terminal_size=(100, 30))


def test_context_over_the_trigger_snapshot_80x24(snap_compare, make_host) -> None:
    assert snap_compare(make_host(lambda: ContextScreen(Stub(turns=33))), terminal_size=(80, 24))


@pytest.fixture
def workspace_files() -> dict[str, str | bytes]:
    return {"README.md": "# Demo\n", "AGENTS.md": "Answer briefly.\n"}


async def test_slash_context_opens_the_real_sessions_breakdown(workspace: Path) -> None:
    from co_tui.config import load_settings
    from co_tui.tui.app import CoTuiApp
    from co_tui.tui.widgets.error_block import ErrorBlock
    from co_tui.tui.widgets.notice_line import NoticeLine

    (Path(__import__("os").environ["CO_TUI_CONFIG_FILE"]).parent / "AGENTS.md").write_bytes(b"\xff bad\n")
    app = CoTuiApp(load_settings(), workspace)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_ready(pilot)
        await wait_idle(pilot)
        notices = [w.text for w in app.chat.log_view.query(NoticeLine)]
        assert any(n.startswith("Project instructions: AGENTS.md") for n in notices), notices
        (error,) = app.chat.log_view.query(ErrorBlock)
        assert "instructions skipped" in error.message and "not UTF-8" in error.message
        await pilot.press(*"read README.md", "enter")
        await wait_idle(pilot)
        await pilot.press(*"/context", "enter")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, ContextScreen)
        breakdown = screen.breakdown
        assert breakdown.total_tokens == app.session.meter_reading().context_tokens
        labels = [row.label for row in breakdown.rows]
        assert labels[:3] == ["co-tui", "AGENTS.md", "workspace"]


async def test_in_compact_mode_off_the_note_says_nothing_is_cut_at_the_trigger(make_host) -> None:
    """It said governance cuts at the trigger, with compact_mode off (no automatic cut comes)."""

    @dataclass
    class Off(Stub):
        off: bool = True

        def context_breakdown(self) -> ContextBreakdown:
            return replace(super().context_breakdown(), cuts_off=self.off)

    stub = Off()
    app = make_host(lambda: ContextScreen(stub))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        text = str(app.screen.query_one("#context-note", Static).render())
        assert "compact_mode is off: nothing is cut automatically at the trigger" in text
        assert "governance cuts" not in text
        stub.off = False
        await pilot.press("r")
        assert "governance cuts" in str(app.screen.query_one("#context-note", Static).render())


MEMORY_PARTS = [
    *PARTS[:3],
    OverheadPart("memory", "~/.config/co-tui/memory.md", 90, 2),
    OverheadPart("memory", ".co-tui/memory.md", 140, 3),
    *PARTS[3:],
]


def with_memory() -> Stub:
    """`Stub` with both memory files sent: the longest labels the rows have."""
    return Stub(parts=MEMORY_PARTS)


def _row_labels(lines: list[str]) -> list[str]:
    """The "what it is" column of the rows, a wrapped label put together again."""
    start, end = 2 + 23, lines[0].index("tokens") - 1  # the category column, then the tokens'
    labels: list[str] = []
    for line in lines[1:]:
        if line.startswith("■ "):
            labels.append(line[start:end].rstrip())
        elif line.strip() and not line[:start].strip() and labels:  # a label's next line
            labels[-1] += ("" if labels[-1].endswith("/") else " ") + line[start:].strip()
    return labels


@pytest.mark.parametrize("columns", [60, 70, 80, 100])
async def test_memory_rows_keep_their_whole_label_at_any_width(make_host, columns: int) -> None:
    """At 60–80 columns the memory row read `…-tui/memory.md (2 notes)` (its label cut from the
    left, and at 100 columns too); now the label column takes the room there is and a longer label
    wraps onto a line of its own, and the window column stays on screen."""
    app = make_host(lambda: ContextScreen(with_memory()))
    async with app.run_test(size=(columns, 30)) as pilot:
        await pilot.pause()
        rows = app.screen.query_one("#context-rows", ContextRows)
        width = rows.content_size.width
        lines = [line.plain for line in rows.render().split("\n")]
        assert all(len(line) <= width for line in lines), (width, lines)
        assert not any("…" in line for line in lines), lines
        labels = _row_labels(lines)
        for label in (
            "~/.config/co-tui/memory.md (2 notes)",
            ".co-tui/memory.md (3 notes)",
            "~/.config/co-tui/AGENTS.md",
        ):
            assert label in labels, (label, lines)
        memory = next(i for i, line in enumerate(lines) if line.startswith("■ Memory"))
        assert lines[memory].rstrip().endswith("%"), "the tokens and share stay on the row's first line"
        if columns >= 80:
            assert "~/.config/co-tui/memory.md (2 notes)" in lines[memory], "room enough: one line"


def test_context_with_memory_snapshot_60x24(snap_compare, make_host) -> None:
    assert snap_compare(make_host(lambda: ContextScreen(with_memory())), terminal_size=(60, 24))

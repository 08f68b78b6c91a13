"""Issue 43 item 15: after a cut, the offline model says which file and which part its recall read,
and its quotes keep the spaces around inline code. The real session, governance and recall tool."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.turns import run_turn

from co_tui.agent.extractive import inline_code_safe
from co_tui.config import load_settings
from co_tui.session.chat import ChatSession

FILLER = "The quick brown fox jumps over the lazy dog while the budget keeps its figures. "


def _write(workspace: Path) -> None:
    readme = ["# A project", ""]
    readme += [FILLER * 3 for _ in range(40)]
    readme.insert(20, "Set `CO_TUI_WORKERS=0` runs it in one process; figures in docs/perf.md) with the `ci` profile.")
    (workspace / "README.md").write_text("\n".join(readme) + "\n")
    (workspace / "docs").mkdir()
    guide = ["# Guide", ""] + [f"## Part {n}\n\n{FILLER * 4}\n" for n in range(120)]
    (workspace / "docs" / "guide.md").write_text("\n".join(guide))
    (workspace / "docs" / "perf.md").write_text("# Performance\n\nNever read in the session.\n")


@pytest.fixture
def session(tmp_path: Path) -> ChatSession:
    _write(tmp_path)
    settings = load_settings(context_budget_tokens=5000, context_strategy="trim")
    return ChatSession(settings, workspace=tmp_path, model="offline")


async def _cut_away(session: ChatSession) -> None:
    for prompt in ("read README.md", "read docs/guide.md", "list .", "search fox", "list docs"):
        await run_turn(session, prompt)
    assert session.ledger, "the small budget cut the reads from view"


async def test_a_search_recall_says_whose_output_each_hit_is_in(session: ChatSession) -> None:
    await _cut_away(session)
    events = await run_turn(session, "what did docs/perf.md say?")
    [call] = [e for e in events if e.type == "tool_call"]
    assert call.tool_name == "recall" and '"search"' in str(call.args)
    answer = events[-1].output
    assert "None is in an output of docs/perf.md itself" in answer, answer
    assert 'the output of read_file(path="README.md")' in answer, answer
    # The quote keeps its words apart: no lone backtick left to pair with `ci`'s.
    assert "S=0 runs it" in answer and answer.count("`") % 2 == 0, answer


async def test_a_page_of_a_recalled_read_is_said_to_be_a_page(session: ChatSession) -> None:
    await _cut_away(session)
    events = await run_turn(session, "what did docs/guide.md say?")
    [call] = [e for e in events if e.type == "tool_call"]
    assert call.tool_name == "recall" and '"handle"' in str(call.args)
    answer = events[-1].output
    assert 'the output of read_file(path="docs/guide.md")' in answer, answer
    assert "(one page; recall(" in answer and "this page holds lines 1-" in answer, answer
    assert "I read lines" not in answer, answer  # a page is not the whole read


def test_a_piece_cut_inside_inline_code_loses_its_stray_backticks() -> None:
    assert (
        inline_code_safe("…S=0` runs it with the `ci` profile (`HYPOT…") == "…S=0 runs it with the `ci` profile (HYPOT…"
    )
    assert inline_code_safe("run `make test` now") == "run `make test` now"
    assert inline_code_safe("set `CO_TUI_X…") == "set CO_TUI_X…"
    assert inline_code_safe("…(`a` and `b`)") == "…(`a` and `b`)"

"""The user's compaction hooks (`[hooks]` in config.toml) as real subprocesses: what they read on
stdin, `pre_compact`'s output in the summariser's instructions, its veto of an automatic cut, and a
hook that fails, hangs or is missing: one line each, and the cut goes on."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from pydantic_ai import Agent
from support.builders import chat_turn

from co_tui.config import SettingsError, load_settings
from co_tui.governance import ContextGovernance, GovernancePolicy, estimate_tokens
from co_tui.governance.capability import GovernanceNoticeEvent, HistoryTrimmedEvent, HookVetoEvent
from co_tui.session.compact_hooks import compact_hooks_of, run_hook
from co_tui.session.wording import veto_line

from .models import ScriptedModel
from .synthetic import make_text


def _script(tmp_path: Path, name: str, body: str) -> list[str]:
    """A hook: a small Python script that first saves its stdin to `<name>.json`, then runs `body`."""
    path = tmp_path / f"{name}.py"
    saved = tmp_path / f"{name}.json"
    path.write_text(f"import sys, time\nopen({str(saved)!r}, 'w').write(sys.stdin.read())\n{body}\n")
    return [sys.executable, str(path)]


def _read(tmp_path: Path, name: str) -> dict:
    return json.loads((tmp_path / f"{name}.json").read_text())


def _history():
    return [m for t in range(10) for m in chat_turn(f"q{t}", make_text("prose", 2000, t))]


async def _run(hooks: dict, history, model: ScriptedModel, window: int | None = None):
    """One turn through a real `Agent` with the hooks `hooks` configures; (trims, notices)."""
    settings = load_settings(hooks=hooks)
    cap = ContextGovernance(
        GovernancePolicy(budget_tokens=estimate_tokens(history) // 2, strategy="summarize"),
        hooks=compact_hooks_of(settings),
        session_id=lambda: "s-123",
        window_tokens=window,
    )
    agent = Agent(model.model(), capabilities=[cap])
    cap.begin_run(len(history))
    trims, notices = [], []
    async with agent.run_stream_events("next", message_history=history) as stream:
        async for ev in stream:
            if isinstance(ev, HistoryTrimmedEvent):
                trims.append(ev.trimmed)
            elif isinstance(ev, GovernanceNoticeEvent):
                notices.append(ev.message)
            elif isinstance(ev, HookVetoEvent):  # a fact: the session words it
                notices.append(veto_line(ev.honoured))
    return trims, notices


@pytest.mark.slow
async def test_pre_compact_reads_the_cut_and_adds_to_the_instructions_post_gets_the_summary(tmp_path):
    model = ScriptedModel(summary="SUMMARY: the tasks so far.")
    hooks = {
        "pre_compact": _script(tmp_path, "pre", "print('Keep every PR number.')"),
        "post_compact": _script(tmp_path, "post", "print('ignored')"),
    }
    history = _history()
    trims, notices = await _run(hooks, history, model)
    assert notices == []
    [(_, info)] = model.summary_calls
    assert info.instructions.endswith("Keep every PR number.")
    [summary] = [e for e in trims if e.strategy == "summary"]
    assert summary.summary_instructions == ["co-tui", "pre_compact hook"]
    pre = _read(tmp_path, "pre")
    assert pre["hook"] == "pre_compact" and pre["trigger"] == "auto" and pre["session_id"] == "s-123"
    assert pre["strategy"] == "summarize" and pre["budget_tokens"] == estimate_tokens(history) // 2
    assert pre["messages"] == len(history) + 1 and pre["tokens_before"] > pre["budget_tokens"]
    assert pre["preview"]["reason"] == "token_budget" and pre["preview"]["summarised_messages"] > 0
    post = _read(tmp_path, "post")
    assert post["hook"] == "post_compact" and post["trigger"] == "auto"
    assert post["summary"] == summary.summary and post["summary"].startswith("SUMMARY: the tasks so far.")
    assert [e["strategy"] for e in post["events"]] == [e.strategy for e in trims]


@pytest.mark.slow
async def test_exit_2_vetoes_an_automatic_cut_and_says_so(tmp_path):
    model = ScriptedModel()
    history = _history()
    trims, notices = await _run({"pre_compact": _script(tmp_path, "pre", "sys.exit(2)")}, history, model)
    assert trims == [] and model.summary_calls == []
    assert [n for n in notices if "vetoed the automatic cut" in n] == [notices[0]] and len(notices) == 1
    assert estimate_tokens(model.chat_calls[-1]) > estimate_tokens(history) // 2  # sent over the budget


@pytest.mark.slow
async def test_a_veto_never_sends_past_the_models_window(tmp_path):
    model = ScriptedModel()
    history = _history()
    window = estimate_tokens(history) * 3 // 4  # over the budget and past the window
    trims, notices = await _run({"pre_compact": _script(tmp_path, "pre", "sys.exit(2)")}, history, model, window)
    assert notices == ["pre_compact hook's veto not honoured: the request would exceed the model's window; cutting"]
    assert trims and estimate_tokens(model.chat_calls[-1]) <= window


@pytest.mark.slow
@pytest.mark.parametrize(
    ("body", "timeout_s", "said"),
    [
        # A limit no start-up reaches, even on a loaded host: under 0.5 s, a Python that had not yet
        # started was reported "timed out" instead of its exit status.
        ("sys.exit(3)", 600, "pre_compact hook failed (exit 3); the cut goes on"),
        ("time.sleep(120)", 0.5, "pre_compact hook timed out after 0.5s (killed); the cut goes on"),
    ],
)
async def test_a_failing_or_slow_hook_is_one_line_and_the_cut_goes_on(tmp_path, body, timeout_s, said):
    model = ScriptedModel()
    hooks = {"pre_compact": _script(tmp_path, "pre", body), "timeout_s": timeout_s}
    trims, notices = await _run(hooks, _history(), model)
    assert notices == [said]
    assert [e.strategy for e in trims if e.strategy == "summary"] == ["summary"]
    [(_, info)] = model.summary_calls
    assert "pre_compact hook" not in info.instructions


async def test_a_missing_hook_is_one_line_and_the_cut_goes_on(tmp_path):
    model = ScriptedModel()
    missing = str(tmp_path / "no-such-hook")
    trims, notices = await _run({"pre_compact": [missing], "post_compact": [missing]}, _history(), model)
    assert len(notices) == 2 and all("hook not run" in n and "\n" not in n for n in notices)
    assert notices[0].startswith("pre_compact") and notices[1].startswith("post_compact")
    assert trims and model.summary_calls


@pytest.mark.slow
async def test_stdout_is_capped_and_a_hook_that_ignores_stdin_still_runs(tmp_path):
    path = tmp_path / "loud.py"
    path.write_text("import sys\nsys.stdout.write('x' * 1_000_000)\n")
    run = await run_hook("pre_compact", [sys.executable, str(path)], {"big": "y" * 1_000_000}, 30)
    assert run.status == "ok" and 0 < len(run.stdout) <= 8_000


def test_no_hooks_unless_configured_and_a_bad_table_is_one_line(monkeypatch, tmp_path):
    assert compact_hooks_of(load_settings()) is None
    with pytest.raises(SettingsError, match=r"unknown setting 'hooks.pre_compat'"):
        load_settings(hooks={"pre_compat": ["x"]})

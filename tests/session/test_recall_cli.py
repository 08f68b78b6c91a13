"""`recall` and big outputs in print mode's jsonl, as a user runs it: the `co-tui` command once per
turn (called in-process: each run opens the session afresh from the store, as a new process does),
the offline model, a session continued with `--continue` (issue 29 item 6)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from cli_process import call_co_tui


def turn(prompt: str, *, cwd: Path, data_dir: Path, more: tuple[str, ...] = ()) -> list[dict]:
    done: subprocess.CompletedProcess[str] = call_co_tui(
        *more,
        "-p",
        prompt,
        "--output-format",
        "jsonl",
        cwd=cwd,
        env={
            "CO_TUI_DATA_DIR": str(data_dir),
            "CO_TUI_CONTEXT_BUDGET_TOKENS": "6000",
            "CO_TUI_CONTEXT_STRATEGY": "trim",
        },
    )
    assert done.returncode == 0, done.stderr
    return [json.loads(line) for line in done.stdout.splitlines()]


def test_a_recall_is_a_tool_call_and_a_tool_result_in_jsonl(data_dir: Path, tmp_path: Path) -> None:
    (tmp_path / "README.md").write_text("# Zephyr project\n\nThe secret word is zephyr.\n" + "Some prose line.\n" * 200)
    for i in range(2):  # two reads of ~2k tokens each push the README's turn out of the 6k budget
        (tmp_path / f"f{i}.py").write_text(f"def f{i}():\n    return {i}\n" * 200)
    events = turn("read README.md", cwd=tmp_path, data_dir=data_dir)
    assert [e["tool_name"] for e in events if e["type"] == "tool_call"] == ["read_file"]
    trims = []
    for i in range(2):
        events = turn(f"read f{i}.py", cwd=tmp_path, data_dir=data_dir, more=("--continue",))
        trims += [e for e in events if e["type"] == "history_trimmed"]
    assert any(t["strategy"] == "turn_trim" for t in trims)

    events = turn("what did README.md say?", cwd=tmp_path, data_dir=data_dir, more=("--continue",))
    [call] = [e for e in events if e["type"] == "tool_call"]
    [result] = [e for e in events if e["type"] == "tool_result"]
    assert call["tool_name"] == result["tool_name"] == "recall" and result["tool_call_id"] == call["tool_call_id"]
    handle = json.loads(call["args"])["handle"]
    assert result["content"].startswith(f'[recall("{handle}"): the output of read_file(path="README.md")')
    assert "The secret word is zephyr." in result["content"] and not result["is_error"]
    assert result["chars"] == len(result["content"])
    assert events[-1]["type"] == "done" and "zephyr" in events[-1]["output"].lower()


def test_a_big_output_s_tool_result_line_is_its_preview_with_the_whole_size(data_dir: Path, tmp_path: Path) -> None:
    lines = [f"line {i:05d} " + "abcdefghij" * 19 for i in range(1500)]
    (tmp_path / "big.log").write_text("\n".join(lines) + "\n")
    done = call_co_tui(
        "-p", "read big.log", "--output-format", "jsonl", cwd=tmp_path, env={"CO_TUI_DATA_DIR": str(data_dir)}
    )
    assert done.returncode == 0, done.stderr
    events = [json.loads(line) for line in done.stdout.splitlines()]
    [result] = [e for e in events if e["type"] == "tool_result"]
    assert result["chars"] > 80_000 and len(result["content"]) < 3_500  # 400 lines of ~200 chars, previewed
    assert result["content"].startswith("big.log: lines 1-400 of 1,500")
    assert f"[…output too big to show whole: {result['chars']:,} chars" in result["content"]
    assert max(len(line) for line in done.stdout.splitlines()) < 5_000

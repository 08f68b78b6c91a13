"""`write_file` and `edit_file` as the model sees them: the offline agent asks for them in plain
words, the approver gets the diff, the result says what changed (agent/tools.py, file_edits.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from co_tui.agent.checkpoints import MemoryCheckpoints
from co_tui.agent.file_edits import FileEdits
from co_tui.config import load_settings


def edit_agent(workspace: Path, approver: Any, edits: FileEdits | None = None) -> Any:
    from co_tui.agent.factory import build_agent
    from co_tui.agent.models import resolve_model

    settings = load_settings()
    return build_agent(
        settings, workspace=workspace, model=resolve_model("offline", settings), approver=approver, file_edits=edits
    )


class Approver:
    """Records what it is asked; answers `answer`."""

    def __init__(self, answer: bool = True) -> None:
        self.answer = answer
        self.asked: list[tuple[str, str, str | None]] = []

    async def __call__(self, text: str, *, tool: str = "run_shell", path: str | None = None, **_: Any) -> bool:
        self.asked.append((text, tool, path))
        return self.answer


async def test_write_then_replace_in_plain_words_with_the_diff_approved(run_turn, workspace: Path) -> None:
    approver, edits = Approver(), FileEdits()
    agent = edit_agent(workspace, approver, edits)
    turn = await run_turn(agent, "write hello to notes.txt")
    [result] = turn.tool_results
    assert result.tool_name == "write_file" and result.outcome == "success"
    assert (workspace / "notes.txt").read_text() == "hello\n"
    [(diff, tool, path)] = approver.asked
    assert (tool, path) == ("write_file", "notes.txt")
    assert diff == "--- /dev/null\n+++ b/notes.txt\n@@ -0,0 +1 @@\n+hello\n"
    assert turn.output == "Done: wrote notes.txt: a new file, 1 line, 6 bytes."

    turn = await run_turn(agent, "replace hello with bye in notes.txt", turn.messages)
    [result] = turn.tool_results
    assert result.tool_name == "edit_file" and result.outcome == "success"
    assert (workspace / "notes.txt").read_text() == "bye\n"
    assert approver.asked[1][0] == "--- a/notes.txt\n+++ b/notes.txt\n@@ -1 +1 @@\n-hello\n+bye\n"
    assert result.content.startswith("edited notes.txt: replaced 1 occurrence at line 1 (1 line → 1 line)\n")
    assert isinstance(edits.sink, MemoryCheckpoints)
    assert [(c.path, c.before, c.tool) for c in edits.sink.kept] == [
        ("notes.txt", None, "write_file"),
        ("notes.txt", b"hello\n", "edit_file"),
    ]
    assert all(c.tool_call_id.startswith("offline-") for c in edits.sink.kept)  # tied to the call


async def test_a_declined_edit_writes_nothing_and_the_model_is_told(run_turn, workspace: Path) -> None:
    edits = FileEdits()
    turn = await run_turn(edit_agent(workspace, Approver(False), edits), "write hello to notes.txt")
    [result] = turn.tool_results
    assert result.outcome == "denied" and "declined the change to notes.txt" in result.content
    assert not (workspace / "notes.txt").exists() and edits.sink.kept == []  # type: ignore[attr-defined]


async def test_without_an_approver_edits_are_refused(run_turn, workspace: Path) -> None:
    turn = await run_turn(edit_agent(workspace, None), "write hello to notes.txt")
    [result] = turn.tool_results
    assert result.outcome == "denied" and "no one can approve file edits" in result.content
    assert not (workspace / "notes.txt").exists()


async def test_refusals_are_failed_results_before_anyone_is_asked(run_turn, workspace: Path, outside: Path) -> None:
    approver = Approver()
    agent = edit_agent(workspace, approver)
    (workspace / "twice.txt").write_text("ab ab\n")
    for prompt, says in [
        ("write x to ../outside/secret.txt", "outside the workspace"),
        ("replace ab with cd in twice.txt", "occurs 2 times"),
        ("replace zz with cd in twice.txt", "is not in twice.txt"),
        ("write x to README.md", "have not read it"),
    ]:
        turn = await run_turn(agent, prompt)
        [result] = turn.tool_results
        assert result.outcome == "failed" and says in result.content, prompt
    assert approver.asked == []
    assert (outside / "secret.txt").read_text() == "TOP SECRET\n"


async def test_reading_a_file_lets_the_model_replace_it_until_it_changes_on_disk(run_turn, workspace: Path) -> None:
    agent = edit_agent(workspace, Approver())
    turn = await run_turn(agent, "read README.md")
    turn = await run_turn(agent, "write new readme to README.md", turn.messages)
    assert turn.tool_results[0].outcome == "success"
    assert (workspace / "README.md").read_text() == "new readme\n"
    (workspace / "README.md").write_text("the user's own change\n")
    turn = await run_turn(agent, "replace new with old in README.md", turn.messages)
    [result] = turn.tool_results
    assert result.outcome == "failed" and "changed on disk since you last read or wrote it" in result.content
    assert (workspace / "README.md").read_text() == "the user's own change\n"

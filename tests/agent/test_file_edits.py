"""File edits (agent/file_edits.py) on a real directory: confinement, uniqueness, staleness,
checkpoints before every write, atomic replacement."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from co_tui.agent.checkpoints import MemoryCheckpoints, sha256
from co_tui.agent.file_edits import (
    EDIT_MAX_BYTES,
    FileEdits,
    apply_edit,
    plan_edit,
    plan_write,
    room_for,
)
from co_tui.agent.workspace import Workspace, WorkspaceError


@pytest.fixture
def ws(tmp_path: Path) -> Workspace:
    root = tmp_path / "ws"
    root.mkdir()
    return Workspace(root)


def write(ws: Workspace, edits: FileEdits, path: str, content: str) -> str:
    return apply_edit(ws, edits, plan_write(ws, edits.views, path, content), tool_call_id="call-1")


def edit(ws: Workspace, edits: FileEdits, path: str, old: str, new: str) -> str:
    return apply_edit(ws, edits, plan_edit(ws, edits.views, path, old, new))


def test_write_creates_a_file_with_its_directories_and_checkpoints_that_it_was_new(ws: Workspace) -> None:
    edits = FileEdits()
    result = write(ws, edits, "docs/notes.txt", "hello\n")
    assert (ws.root / "docs" / "notes.txt").read_text() == "hello\n"
    assert result.splitlines()[0] == "wrote docs/notes.txt: a new file, 1 line, 6 bytes"
    assert "+hello" in result and "--- /dev/null" in result
    assert isinstance(edits.sink, MemoryCheckpoints)
    [checkpoint] = edits.sink.kept
    assert (checkpoint.path, checkpoint.before, checkpoint.tool, checkpoint.tool_call_id) == (
        "docs/notes.txt",
        None,
        "write_file",
        "call-1",
    )
    assert checkpoint.after_sha256 == sha256(b"hello\n")


def test_edit_replaces_the_one_occurrence_and_says_where(ws: Workspace) -> None:
    (ws.root / "a.py").write_text("x = 1\ny = 2\nz = 3\n")
    edits = FileEdits()
    result = edit(ws, edits, "a.py", "y = 2", "y = 20\ny2 = 4")
    assert (ws.root / "a.py").read_text() == "x = 1\ny = 20\ny2 = 4\nz = 3\n"
    assert result.splitlines()[0] == "edited a.py: replaced 1 occurrence at line 2 (1 line → 2 lines)"
    assert "-y = 2\n+y = 20\n+y2 = 4" in result
    assert edits.sink.kept[0].before == b"x = 1\ny = 2\nz = 3\n"  # type: ignore[attr-defined]


def test_edit_refuses_an_old_string_that_is_not_unique_or_absent(ws: Workspace) -> None:
    (ws.root / "a.txt").write_text("ab\nab\ncd\n")
    edits = FileEdits()
    with pytest.raises(WorkspaceError, match=r"old_string occurs 2 times in a.txt \(lines 1, 2\)"):
        plan_edit(ws, edits.views, "a.txt", "ab", "x")
    with pytest.raises(WorkspaceError, match="old_string is not in a.txt"):
        plan_edit(ws, edits.views, "a.txt", "zz", "x")
    with pytest.raises(WorkspaceError, match="non-empty old_string"):
        plan_edit(ws, edits.views, "a.txt", "", "x")
    with pytest.raises(WorkspaceError, match="the same"):
        plan_edit(ws, edits.views, "a.txt", "cd", "cd")
    assert (ws.root / "a.txt").read_text() == "ab\nab\ncd\n"


def test_line_endings_and_other_bytes_are_kept(ws: Workspace) -> None:
    (ws.root / "w.txt").write_bytes(b"one\r\ntwo\r\n")
    edit(ws, FileEdits(), "w.txt", "two", "2")
    assert (ws.root / "w.txt").read_bytes() == b"one\r\n2\r\n"


@pytest.mark.parametrize(
    "path",
    # `.Git` and `.GIT` were writable (issue 40, item 14): on macOS and Windows they are `.git`.
    [
        "../outside.txt",
        "/etc/passwd",
        ".git/hooks/pre-commit",
        "sub/.git/config",
        ".Git/hooks/pre-commit",
        ".GIT/config",
    ],
)
def test_paths_outside_or_in_version_control_are_refused(ws: Workspace, path: str) -> None:
    with pytest.raises(WorkspaceError, match="refused"):
        plan_write(ws, FileEdits().views, path, "x")


def test_a_symlink_leading_out_is_refused_and_its_target_untouched(ws: Workspace, tmp_path: Path) -> None:
    target = tmp_path / "secret.txt"
    target.write_text("keep\n")
    (ws.root / "link.txt").symlink_to(target)
    (ws.root / "dir").symlink_to(tmp_path)
    for path in ("link.txt", "dir/new.txt"):
        with pytest.raises(WorkspaceError, match="symlink that leads outside"):
            plan_write(ws, FileEdits().views, path, "x")
    assert target.read_text() == "keep\n" and not (tmp_path / "new.txt").exists()


def test_write_over_a_file_the_model_never_read_is_refused(ws: Workspace) -> None:
    (ws.root / "notes.txt").write_text("mine\n")
    edits = FileEdits()
    with pytest.raises(WorkspaceError, match="exists and you have not read it"):
        plan_write(ws, edits.views, "notes.txt", "theirs\n")
    edits.views.saw(ws.resolve("notes.txt"))  # read_file records this
    write(ws, edits, "notes.txt", "theirs\n")
    assert (ws.root / "notes.txt").read_text() == "theirs\n"


def test_an_edit_of_a_file_changed_on_disk_since_the_model_saw_it_is_refused(ws: Workspace) -> None:
    edits = FileEdits()
    write(ws, edits, "notes.txt", "hello\n")
    (ws.root / "notes.txt").write_text("hello, edited by the user in the editor\n")
    with pytest.raises(WorkspaceError, match="changed on disk since you last read or wrote it"):
        plan_edit(ws, edits.views, "notes.txt", "hello", "bye")
    with pytest.raises(WorkspaceError, match="changed on disk since"):
        plan_write(ws, edits.views, "notes.txt", "bye\n")
    assert (ws.root / "notes.txt").read_text() == "hello, edited by the user in the editor\n"


def test_a_change_while_the_approval_waits_is_not_overwritten(ws: Workspace) -> None:
    edits = FileEdits()
    write(ws, edits, "notes.txt", "hello\n")
    plan = plan_edit(ws, edits.views, "notes.txt", "hello", "bye")
    (ws.root / "notes.txt").write_text("hello there\n")  # while the dialog is open
    with pytest.raises(WorkspaceError, match="changed on disk while the edit waited for approval"):
        apply_edit(ws, edits, plan)
    assert (ws.root / "notes.txt").read_text() == "hello there\n"
    assert len(edits.sink.kept) == 1  # type: ignore[attr-defined]  # no checkpoint for an edit not made


def test_past_the_checkpoint_cap_an_edit_is_refused_before_and_after_approval(ws: Workspace) -> None:
    (ws.root / "big.txt").write_text("a" * 900 + "\n")
    edits = FileEdits(sink=MemoryCheckpoints(max_bytes=1000))
    edit(ws, edits, "big.txt", "a" * 900, "b" * 900)  # 901 bytes kept
    plan = plan_edit(ws, edits.views, "big.txt", "b" * 900, "c")
    with pytest.raises(WorkspaceError, match=r"over checkpoint_max_bytes \(1,000\)"):
        room_for(ws, edits, plan)
    with pytest.raises(WorkspaceError, match="not written: keeping big.txt's previous content"):
        apply_edit(ws, edits, plan)
    assert (ws.root / "big.txt").read_text() == "b" * 900 + "\n"


def test_a_failed_checkpoint_save_writes_nothing(ws: Workspace) -> None:
    class Broken(MemoryCheckpoints):
        def save(self, checkpoint):  # type: ignore[no-untyped-def]
            raise OSError("disk full")

    edits = FileEdits(sink=Broken())
    with pytest.raises(WorkspaceError, match=r"checkpoint could not be saved \(disk full\)"):
        write(ws, edits, "n.txt", "x\n")
    assert not (ws.root / "n.txt").exists()


def test_binary_large_and_non_utf8_files_are_refused(ws: Workspace) -> None:
    (ws.root / "img.png").write_bytes(b"\x89PNG\r\n\x1a\n" + b"\x00" * 10)
    (ws.root / "latin.txt").write_bytes("café\n".encode("latin-1"))
    (ws.root / "huge.txt").write_text("x" * (EDIT_MAX_BYTES + 1))
    views = FileEdits().views
    with pytest.raises(WorkspaceError, match="not a text file"):
        plan_edit(ws, views, "img.png", "PNG", "x")
    with pytest.raises(WorkspaceError, match="not UTF-8"):
        plan_edit(ws, views, "latin.txt", "caf", "x")
    with pytest.raises(WorkspaceError, match="edits files up to"):
        plan_edit(ws, views, "huge.txt", "x", "y")
    with pytest.raises(WorkspaceError, match="over the"):
        plan_write(ws, views, "new.txt", "x" * (EDIT_MAX_BYTES + 1))


def test_the_replacement_keeps_the_permissions_and_leaves_no_temporary_file(ws: Workspace) -> None:
    script = ws.root / "run.sh"
    script.write_text("echo hi\n")
    script.chmod(0o750)
    edit(ws, FileEdits(), "run.sh", "hi", "bye")
    assert stat.S_IMODE(script.stat().st_mode) == 0o750
    assert sorted(os.listdir(ws.root)) == ["run.sh"]


def test_writing_the_same_content_is_refused_as_nothing_to_do(ws: Workspace) -> None:
    edits = FileEdits()
    write(ws, edits, "n.txt", "x\n")
    with pytest.raises(WorkspaceError, match="nothing to write"):
        plan_write(ws, edits.views, "n.txt", "x\n")

"""Loading AGENTS.md / CLAUDE.md: which file, from where, the cap and its notice, failures, changes."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from co_tui.agent.project_instructions import (
    MAX_CHARS,
    ProjectInstructions,
    default_global_dir,
    describe_files,
    file_signature,
)


@pytest.fixture
def dirs(tmp_path: Path) -> tuple[Path, Path]:
    workspace, config = tmp_path / "ws", tmp_path / "config"
    workspace.mkdir()
    config.mkdir()
    return workspace, config


def test_agents_md_of_the_workspace_is_loaded(dirs: tuple[Path, Path]) -> None:
    workspace, config = dirs
    (workspace / "AGENTS.md").write_text("Run make test before saying it works.\n")
    (workspace / "CLAUDE.md").write_text("Not me: AGENTS.md wins.\n")
    project = ProjectInstructions(workspace, global_dir=config)
    assert [(f.scope, f.path.name) for f in project.files] == [("project", "AGENTS.md")]
    text = project.text
    assert text is not None and "Run make test before saying it works." in text
    assert "AGENTS.md wins" not in text
    assert project.summary() == "instructions: AGENTS.md"


def test_claude_md_is_the_fallback(dirs: tuple[Path, Path]) -> None:
    workspace, config = dirs
    (workspace / "CLAUDE.md").write_text("Use tabs.\n")
    project = ProjectInstructions(workspace, global_dir=config)
    assert [f.path.name for f in project.files] == ["CLAUDE.md"]
    assert "Use tabs." in (project.text or "")


def test_the_global_file_comes_first(dirs: tuple[Path, Path]) -> None:
    workspace, config = dirs
    (config / "AGENTS.md").write_text("GLOBAL RULE\n")
    (workspace / "AGENTS.md").write_text("PROJECT RULE\n")
    project = ProjectInstructions(workspace, global_dir=config)
    assert [f.scope for f in project.files] == ["global", "project"]
    text = project.text or ""
    assert text.index("GLOBAL RULE") < text.index("PROJECT RULE")
    assert "for every project" in text and "from the workspace root" in text


def test_the_global_dir_is_beside_the_config_file(isolated_env: Path) -> None:
    assert default_global_dir() == Path(os.environ["CO_TUI_CONFIG_FILE"]).parent


def test_no_file_no_text(dirs: tuple[Path, Path]) -> None:
    project = ProjectInstructions(*dirs[:1], global_dir=dirs[1])
    assert project.files == () and project.text is None and project.summary() is None


def test_a_long_file_is_cut_with_a_notice(dirs: tuple[Path, Path]) -> None:
    workspace, config = dirs
    body = "x" * (MAX_CHARS + 5000)
    (workspace / "AGENTS.md").write_text(body + "THE TAIL")
    project = ProjectInstructions(workspace, global_dir=config)
    (file,) = project.files
    assert file.cut and file.chars == MAX_CHARS + 5000 + len("THE TAIL")
    assert "THE TAIL" not in file.text
    assert file.text.startswith("x" * MAX_CHARS)
    assert "AGENTS.md was cut here by co-tui" in file.text and f"first {MAX_CHARS:,}" in file.text
    assert "cut at 40,000 of 45,008 chars" in (project.summary() or "")


def test_a_file_of_exactly_the_cap_is_not_cut(dirs: tuple[Path, Path]) -> None:
    workspace, config = dirs
    (workspace / "AGENTS.md").write_text("y" * MAX_CHARS)
    (file,) = ProjectInstructions(workspace, global_dir=config).files
    assert not file.cut and "cut here" not in file.text


def test_a_file_that_is_not_utf8_is_skipped_with_one_line(dirs: tuple[Path, Path]) -> None:
    workspace, config = dirs
    (workspace / "AGENTS.md").write_bytes(b"caf\xe9 au lait\n")
    (config / "AGENTS.md").write_text("GLOBAL RULE\n")
    project = ProjectInstructions(workspace, global_dir=config)
    (error,) = project.errors
    assert "AGENTS.md" in error and "not UTF-8" in error and "\n" not in error
    assert "GLOBAL RULE" in (project.text or ""), "the rest still works"
    assert describe_files(project.files) == f"instructions: {project.files[0].label}"


def test_an_unreadable_file_is_skipped_with_one_line(dirs: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    workspace, config = dirs
    path = workspace / "AGENTS.md"
    path.write_text("secret\n")
    real_open = os.open

    def refusing_open(name, flags, *args):  # chmod 0 does not stop root, who runs these tests in CI
        if Path(name) == path.resolve():
            raise PermissionError(13, "Permission denied", str(name))
        return real_open(name, flags, *args)

    monkeypatch.setattr(os, "open", refusing_open)
    project = ProjectInstructions(workspace, global_dir=config)
    (error,) = project.errors
    assert error == f"{path}: cannot be read (Permission denied)"
    assert project.text is None


def test_a_change_is_picked_up_by_refresh(dirs: tuple[Path, Path]) -> None:
    workspace, config = dirs
    path = workspace / "AGENTS.md"
    path.write_text("first version\n")
    project = ProjectInstructions(workspace, global_dir=config)
    assert not project.refresh(), "nothing changed"
    path.write_text("second version, longer\n")
    assert project.refresh()
    assert "second version" in (project.text or "") and "first version" not in (project.text or "")
    path.unlink()
    (workspace / "CLAUDE.md").write_text("now the fallback\n")
    assert project.refresh() and "now the fallback" in (project.text or "")
    (workspace / "CLAUDE.md").unlink()
    assert project.refresh() and project.text is None


def test_a_touch_without_a_change_of_text_is_not_a_change(dirs: tuple[Path, Path]) -> None:
    workspace, config = dirs
    path = workspace / "AGENTS.md"
    path.write_text("same\n")
    project = ProjectInstructions(workspace, global_dir=config)
    os.utime(path, ns=(1, 1))
    assert not project.refresh(), "the files were read again, but the model's text is the same"


def test_memory_files_follow_the_same_reread_rule(dirs: tuple[Path, Path]) -> None:
    """One rule for both (`reread_if_changed` over `file_signature`): a memory file that appears,
    changes or goes is read again before the turn; a touch with the same text is not a change."""
    from co_tui.agent.memory_file import MemoryFiles

    workspace, config = dirs
    memory = MemoryFiles(workspace, global_dir=config)
    path = workspace / ".co-tui" / "memory.md"
    assert memory.signature() == file_signature([config / "memory.md", path]) == ()
    assert not memory.refresh(), "nothing there, nothing changed"
    path.parent.mkdir()
    path.write_text("- use tabs\n")
    assert memory.signature() == file_signature([path]) != ()
    assert memory.refresh() and "use tabs" in (memory.text or "")
    os.utime(path, ns=(1, 1))
    assert not memory.refresh(), "read again, but the model's text is the same"
    path.unlink()
    assert memory.refresh() and memory.text is None


def test_turned_off_reads_nothing(dirs: tuple[Path, Path]) -> None:
    workspace, config = dirs
    (workspace / "AGENTS.md").write_text("rule\n")
    project = ProjectInstructions(workspace, global_dir=config, enabled=False)
    assert project.files == () and project.text is None
    (workspace / "AGENTS.md").write_text("changed\n")
    assert not project.refresh() and project.text is None


def test_a_workspace_that_is_the_config_dir_sends_its_file_once(tmp_path: Path) -> None:
    (tmp_path / "AGENTS.md").write_text("rule\n")
    project = ProjectInstructions(tmp_path, global_dir=tmp_path)
    assert [f.scope for f in project.files] == ["project"]


# --- a hostile repository (issue 33.1, 33.10) ---------------------------------------------------


def test_a_symlink_out_of_the_workspace_is_refused_as_read_file_refuses_it(
    dirs: tuple[Path, Path], tmp_path: Path
) -> None:
    workspace, config = dirs
    secret = tmp_path / "outside.txt"
    secret.write_text("DATABASE_URL=postgres://app:hunter2@db/prod\n")
    (workspace / "AGENTS.md").symlink_to(secret)
    project = ProjectInstructions(workspace, global_dir=config)
    assert project.text is None
    (error,) = project.errors
    assert "symlink that leads outside the workspace" in error and "AGENTS.md" in error, error
    assert "\n" not in error and "hunter2" not in error


def test_a_symlink_to_proc_environ_is_refused(dirs: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    workspace, config = dirs
    monkeypatch.setenv("SOME_PASSWORD_HOLDER", "hunter2")
    (workspace / "AGENTS.md").symlink_to("/proc/self/environ")
    project = ProjectInstructions(workspace, global_dir=config)
    assert project.text is None and len(project.errors) == 1
    assert "hunter2" not in repr(project.files)


def test_a_global_file_linked_to_proc_is_refused(dirs: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    workspace, config = dirs
    monkeypatch.setenv("SOME_PASSWORD_HOLDER", "hunter2")
    (config / "AGENTS.md").symlink_to("/proc/self/environ")
    project = ProjectInstructions(workspace, global_dir=config)
    (error,) = project.errors
    assert "a system file" in error and project.text is None


def test_a_symlink_inside_the_workspace_is_followed(dirs: tuple[Path, Path]) -> None:
    workspace, config = dirs
    (workspace / "docs").mkdir()
    (workspace / "docs" / "rules.md").write_text("Use tabs.\n")
    (workspace / "CLAUDE.md").symlink_to("docs/rules.md")
    project = ProjectInstructions(workspace, global_dir=config)
    assert project.errors == [] and "Use tabs." in (project.text or "")


def test_the_global_file_may_be_a_dotfiles_link(dirs: tuple[Path, Path], tmp_path: Path) -> None:
    workspace, config = dirs
    dotfiles = tmp_path / "dotfiles"
    dotfiles.mkdir()
    (dotfiles / "AGENTS.md").write_text("My own rules.\n")
    (config / "AGENTS.md").symlink_to(dotfiles / "AGENTS.md")
    project = ProjectInstructions(workspace, global_dir=config)
    assert project.errors == [] and "My own rules." in (project.text or "")


@pytest.mark.parametrize("kind", ["fifo", "directory"])
def test_only_a_regular_file_is_read(dirs: tuple[Path, Path], kind: str) -> None:
    workspace, config = dirs
    path = workspace / "AGENTS.md"
    if kind == "fifo":
        os.mkfifo(path)  # no writer: a blocking read would hang the start
    else:
        path.mkdir()
    project = ProjectInstructions(workspace, global_dir=config)
    (error,) = project.errors
    assert error == f"{path}: not a regular file; skipped"


def test_a_huge_file_is_not_read_whole(dirs: tuple[Path, Path]) -> None:
    workspace, config = dirs
    path = workspace / "AGENTS.md"
    with path.open("wb") as handle:
        handle.write("é".encode() * (MAX_CHARS * 3))  # 2 bytes a character, longer than what is read
        handle.truncate(500_000_000)  # sparse: the rest is NULs on no disk
    project = ProjectInstructions(workspace, global_dir=config)
    (file,) = project.files
    assert file.error is None and file.cut and file.chars is None and file.size == 500_000_000
    assert file.text.startswith("é" * MAX_CHARS) and "é" * (MAX_CHARS + 1) not in file.text
    assert "it is 500,000,000 bytes long" in file.text
    assert "cut at 40,000 of 500,000,000 bytes" in (project.summary() or "")


def test_a_character_split_at_the_read_limit_is_not_an_encoding_error(dirs: tuple[Path, Path]) -> None:
    workspace, config = dirs
    # 3-byte characters: the 4*MAX_CHARS-byte read ends inside one of them.
    (workspace / "AGENTS.md").write_text("€" * (MAX_CHARS * 2))
    (file,) = ProjectInstructions(workspace, global_dir=config).files
    assert file.error is None and file.cut and file.text.startswith("€" * MAX_CHARS)


def test_a_sparse_file_of_nuls_is_skipped_with_one_line(dirs: tuple[Path, Path]) -> None:
    """A 500 MB sparse AGENTS.md sent 40,000 NUL characters to the model (issue 40, item 14)."""
    workspace, config = dirs
    with (workspace / "AGENTS.md").open("wb") as handle:
        handle.truncate(500_000_000)
    project = ProjectInstructions(workspace, global_dir=config)
    (file,) = project.files
    assert file.error is not None and file.error.endswith("AGENTS.md: binary content (NUL bytes); skipped")
    assert project.text is None


def test_text_before_binary_content_is_sent_without_it(dirs: tuple[Path, Path]) -> None:
    workspace, config = dirs
    with (workspace / "AGENTS.md").open("wb") as handle:
        handle.write(b"Use tabs.\n")
        handle.truncate(10_000_000)
    project = ProjectInstructions(workspace, global_dir=config)
    text = project.text or ""
    assert "Use tabs." in text and "\0" not in text and "binary content (NUL bytes) follows" in text


@pytest.mark.parametrize("scope", ["project", "global"])
def test_a_self_loop_symlink_gets_its_line(dirs: tuple[Path, Path], scope: str) -> None:
    """An AGENTS.md linked to itself was passed over with no line (issue 40, item 14)."""
    workspace, config = dirs
    where = workspace if scope == "project" else config
    (where / "AGENTS.md").symlink_to("AGENTS.md")
    project = ProjectInstructions(workspace, global_dir=config)
    (file,) = project.files
    assert file.error is not None and "symlink loop" in file.error and "\n" not in file.error
    assert project.text is None

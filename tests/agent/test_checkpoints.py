"""Checkpoints and the restore plan a rewind will use (agent/checkpoints.py)."""

from __future__ import annotations

from co_tui.agent.checkpoints import FileCheckpoint, MemoryCheckpoints, restore_plan, sha256


def cp(seq: int, path: str, before: bytes | None, after: bytes) -> FileCheckpoint:
    return FileCheckpoint(path=path, before=before, after_sha256=sha256(after), seq=seq)


def test_restore_writes_back_the_content_before_the_first_edit_and_deletes_created_files() -> None:
    files = {"a.txt": b"v3", "new.txt": b"n2"}
    plan = restore_plan(
        [
            cp(2, "a.txt", b"v2", b"v3"),
            cp(1, "a.txt", b"v1", b"v2"),
            cp(3, "new.txt", None, b"n1"),
            cp(4, "new.txt", b"n1", b"n2"),
        ],
        files.get,
    )
    assert plan.write == {"a.txt": b"v1"}
    assert plan.delete == ("new.txt",)
    assert plan.conflicts == ()


def test_a_file_changed_since_the_last_edit_or_missing_is_a_conflict() -> None:
    files = {"a.txt": b"changed by hand"}
    plan = restore_plan([cp(1, "a.txt", b"v1", b"v2"), cp(2, "gone.txt", b"g", b"g2")], files.get)
    assert plan.conflicts == ("a.txt", "gone.txt")
    assert plan.write == {"a.txt": b"v1", "gone.txt": b"g"}


def test_memory_checkpoints_keep_under_the_cap() -> None:
    sink = MemoryCheckpoints(max_bytes=10)
    first = cp(1, "a", b"12345678", b"x")
    assert sink.room_for(first) is None
    sink.save(first)
    refusal = sink.room_for(cp(2, "b", b"123", b"y"))
    assert refusal is not None and "11 bytes, over checkpoint_max_bytes (10)" in refusal
    assert sink.room_for(cp(3, "c", None, b"z")) is None  # a new file keeps nothing

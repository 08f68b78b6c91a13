"""Export a saved session: readable markdown (with a banner at every cut) or lossless JSON.

`export_markdown` renders the transcript — what happened, not what the model last saw — as user,
assistant and tool blocks, with the banner (`> ✂ History trimmed · …`, the wording of
`banner.py`, shared with the TUI and print mode) where each ledger entry happened.
`export_json` gives meta, the transcript as `ModelMessagesTypeAdapter` JSON (loadable again with
`ModelMessagesTypeAdapter.validate_python(data["transcript"])`) and the ledger with positions.

A session rewound into a tree of branches (docs/context-governance.md, "Rewind and branches"): the
Markdown is the branch in use, with a line where each other branch forked off it; the JSON carries
the tree, each other branch with its own messages and ledger entries after its fork point.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import re
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from co_tui.governance.events import HistoryTrimmed
from co_tui.session.banner import banner_line
from co_tui.session.cost import format_usd
from co_tui.session.events import INTERRUPTED_MESSAGE
from co_tui.session.saved_session import LoadedSession, SessionMeta
from co_tui.store.reader import DAMAGED_KEY
from co_tui.store.session_store import SessionStore
from co_tui.text import escape_controls, mend_surrogates

FORMATS = ("md", "json")  # the names `render_export` knows; /export and --format offer these
JSON_FORMAT_NAME = "co-tui-session"
JSON_FORMAT_VERSION = 1


def trim_banner(event: HistoryTrimmed) -> str:
    """The cut as a markdown quote: the shared banner line (`banner.banner_line`), its note and
    prompt-cache warning, then the summary."""
    line = "> " + banner_line(event)
    if event.note:
        line += f"\n> {event.note}"
    if event.cache_warning:
        line += f"\n> note: {event.cache_warning}"
    if event.summary:
        line += "\n>\n" + "\n".join(f"> {row}" if row else ">" for row in event.summary.splitlines())
    return line


def _fence(text: str, lang: str = "") -> str:
    # A fence longer than any backtick run inside, so content can never close it early.
    longest = max((len(m) for m in re.findall(r"`+", text)), default=0)
    ticks = "`" * max(3, longest + 1)
    return f"{ticks}{lang}\n{text}\n{ticks}"


def _as_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    try:
        return json.dumps(content, indent=2, ensure_ascii=False, default=str)
    except (TypeError, ValueError):
        return str(content)


def _user_content(content: Any) -> str:
    if isinstance(content, str):
        return content
    items = content if isinstance(content, (list, tuple)) else [content]
    out = []
    for item in items:
        if isinstance(item, str):
            out.append(item)
        elif getattr(item, "url", None):
            out.append(f"[{getattr(item, 'kind', 'file')}: {item.url}]")
        else:
            media = getattr(item, "media_type", type(item).__name__)
            size = len(getattr(item, "data", b"") or b"")
            out.append(f"[attachment: {media}, {size:,} bytes]")
    return "\n\n".join(out)


def _call(part: Any) -> str:
    """`name` · `id` of a tool call or result, each on one line whatever the model put in it."""
    return f"`{escape_controls(part.tool_name)}` · `{escape_controls(part.tool_call_id)}`"


def _request_blocks(message: Any) -> list[str]:
    damaged = (getattr(message, "metadata", None) or {}).get(DAMAGED_KEY)
    if damaged:  # a row the store could not decode: said in its place, not shown as a prompt
        return [f"> ⚠ This message could not be read: {damaged}"]
    blocks = []
    for part in message.parts:
        kind = getattr(part, "part_kind", "")
        if kind == "user-prompt":
            blocks.append("## User\n\n" + _user_content(part.content))
        elif kind == "system-prompt":
            blocks.append("## System\n\n" + part.content)
        elif kind == "tool-return":
            blocks.append(f"**Tool result** {_call(part)}\n\n" + _fence(_as_text(part.content)))
            blocks.extend(_child_blocks(part))
        elif kind == "retry-prompt":
            name = f" `{escape_controls(part.tool_name)}`" if getattr(part, "tool_name", None) else ""
            blocks.append(f"**Retry**{name}\n\n" + _fence(_as_text(part.content)))
        elif kind:
            blocks.append(f"**{kind}**\n\n" + _fence(_as_text(getattr(part, "content", ""))))
    return blocks


def _child_blocks(part: Any) -> list[str]:
    """A subagent's transcript at its delegation (docs/subagents.md), quoted under a heading of its
    own; nothing for any other tool result."""
    from co_tui.session.child_record import record_of

    record = record_of(part)
    if record is None:
        return []
    finished = record.finished
    head = f"### Subagent `{escape_controls(finished.agent)}` ({escape_controls(finished.agent_name)})"
    blocks = [f"{head}\n\n{finished.summary}\n\n**Task**\n\n" + _fence(record.task)]
    for message in record.transcript:
        inner = _response_blocks(message) if message.kind == "response" else _request_blocks(message)
        blocks.extend(inner)
    quoted = ["\n".join(f"> {row}" if row else ">" for row in block.splitlines()) for block in blocks[1:]]
    return [blocks[0], *quoted]


def _response_blocks(message: Any) -> list[str]:
    blocks = ["## Assistant"]
    for part in message.parts:
        kind = getattr(part, "part_kind", "")
        if kind == "text":
            blocks.append(part.content)
        elif kind == "thinking":
            blocks.append(
                "\n".join(f"> {row}" if row else ">" for row in ["*Thinking*", "", *part.content.splitlines()])
            )
        elif kind in ("tool-call", "native-tool-call"):
            args = part.args if isinstance(part.args, str) else _as_text(part.args or {})
            blocks.append(f"**Tool call** {_call(part)}\n\n" + _fence(args, "json"))
        elif kind == "native-tool-return":
            blocks.append(f"**Tool result** {_call(part)}\n\n" + _fence(_as_text(part.content)))
        elif kind:
            blocks.append(f"*[{kind}]*")
    return blocks if len(blocks) > 1 else []  # an empty response (cut off before it began): no heading


def _positions(loaded: LoadedSession) -> list[int]:
    # A LoadedSession built in memory may lack positions: those cuts go at the end.
    missing = len(loaded.ledger) - len(loaded.ledger_positions)
    return list(loaded.ledger_positions) + [len(loaded.transcript)] * max(missing, 0)


def _header(meta: SessionMeta) -> str:
    rows = [
        f"# {escape_controls(meta.title) or 'Untitled session'}",
        "",
        f"- Session: `{meta.id}`",
        f"- Model: {escape_controls(meta.model or 'unknown')}",
        f"- Workspace: `{escape_controls(str(meta.workspace))}`",
        f"- Created: {meta.created.isoformat(timespec='seconds')}",
        f"- Updated: {meta.updated.isoformat(timespec='seconds')}",
        f"- Messages: {meta.messages}",
        f"- Cost: {format_usd(meta.cost_usd, unknown='unknown')}",
    ]
    return "\n".join(rows)


def fork_points(loaded: LoadedSession) -> dict[int, list[Any]]:
    """The other branches that part from the branch in use, by the transcript index where they do,
    as (`BranchInfo`, whether it is an ancestor that went on another way from there): a branch
    forked off it, or off an ancestor where the branch in use still shares that ancestor's messages."""
    by_id = {info.id: info for info in loaded.tree}
    shared: dict[int, float] = {loaded.branch: float("inf")}
    child = by_id.get(loaded.branch)
    while child is not None and child.parent is not None:
        shared[child.parent] = min(shared.get(child.parent, float("inf")), child.fork_at)
        child = by_id.get(child.parent)
    points: dict[int, list[Any]] = {}
    for info in loaded.tree:
        if info.id in shared and info.id != loaded.branch:  # an ancestor: it went on another way from there
            points.setdefault(int(shared[info.id]), []).append((info, True))
        elif info.id not in shared and info.parent in shared and info.fork_at <= shared[info.parent]:
            points.setdefault(info.fork_at, []).append((info, False))
    return points


def _fork_line(info: Any, ancestor: bool, figures: dict[int, tuple[int, float, str]]) -> str:
    turns, _updated, last = figures.get(info.id, (0, 0.0, ""))
    said = f", last prompt “{last}”" if last else ""
    where = "goes on another way from here" if ancestor else f"forks here (rewound to turn {info.fork_turn})"
    return f"> ⎇ Branch {info.id} {where}: {turns} turn{'' if turns == 1 else 's'}{said} — /branches switches to it"


def export_markdown(loaded: LoadedSession, figures: dict[int, tuple[int, float, str]] | None = None) -> str:
    """The transcript as markdown, with a trim banner at the position of every ledger entry, and a
    line where each other branch forks off this one (`figures`: `SessionStore.branch_figures`).
    Control characters are escaped (`\\x1b`…; CRLF becomes LF): an export is read with `cat` and
    `less`, where a model's or a tool's escape sequence would be obeyed, not shown."""
    positions = _positions(loaded)
    banners: dict[int, list[str]] = {}
    for at, infos in fork_points(loaded).items():
        banners.setdefault(min(max(at, 0), len(loaded.transcript)), []).extend(
            _fork_line(info, ancestor, figures or {}) for info, ancestor in infos
        )
    for event, at in zip(loaded.ledger, positions, strict=False):
        banners.setdefault(min(max(at, 0), len(loaded.transcript)), []).append(trim_banner(event))
    blocks = [_header(loaded.meta)]
    for index, message in enumerate(loaded.transcript):
        blocks.extend(banners.get(index, []))
        blocks.extend(_response_blocks(message) if message.kind == "response" else _request_blocks(message))
        if getattr(message, "state", None) == "interrupted":  # as the TUI shows it, live and resumed
            blocks.append(f"*⏹ {INTERRUPTED_MESSAGE}*")
    blocks.extend(banners.get(len(loaded.transcript), []))
    return escape_controls("\n\n".join(blocks).replace("\r\n", "\n"), keep_lines=True) + "\n"


def _meta_dict(meta: SessionMeta) -> dict[str, Any]:
    return {
        "id": meta.id,
        "title": meta.title,
        "created": meta.created.isoformat(),
        "updated": meta.updated.isoformat(),
        "model": meta.model,
        "workspace": str(meta.workspace),
        "messages": meta.messages,
        "tokens": meta.tokens,
        "cost_usd": meta.cost_usd,
    }


def export_json(loaded: LoadedSession, others: dict[int, LoadedSession] | None = None) -> str:
    """`{"format", "version", "meta", "transcript", "context", "ledger", "tree"}` as indented JSON;
    `context` is what the model was last sent (markers included), read back by `--resume FILE`
    (`json_import`); ledger entries are `history_trimmed` dicts plus `at_message` (the transcript
    index of their banner). `tree`: the branch in use (`active`) and every branch — `id`, `parent`,
    `fork_at`, `fork_ledger`, `fork_turn`, `created` — each other one (`others`, as the store keeps
    it) with its own `transcript` and `ledger` after its fork point and its `context`."""
    from pydantic_ai.messages import ModelMessagesTypeAdapter

    positions = _positions(loaded)
    branches = []
    for info in loaded.tree or []:
        row: dict[str, Any] = {
            "id": info.id,
            "parent": info.parent,
            "fork_at": info.fork_at,
            "fork_ledger": info.fork_ledger,
            "fork_turn": info.fork_turn,
            "created": info.created,
        }
        other = (others or {}).get(info.id)
        if other is not None:
            own = list(other.transcript)[info.fork_at :]
            row["transcript"] = ModelMessagesTypeAdapter.dump_python(own, mode="json")
            row["context"] = ModelMessagesTypeAdapter.dump_python(list(other.context), mode="json")
            row["ledger"] = [
                {**event.to_dict(), "at_message": at}
                for event, at in list(zip(other.ledger, other.ledger_positions, strict=False))[info.fork_ledger :]
            ]
        branches.append(row)
    document = {
        "format": JSON_FORMAT_NAME,
        "version": JSON_FORMAT_VERSION,
        "meta": _meta_dict(loaded.meta),
        "transcript": ModelMessagesTypeAdapter.dump_python(list(loaded.transcript), mode="json"),
        "context": ModelMessagesTypeAdapter.dump_python(list(loaded.context), mode="json"),
        "ledger": [{**event.to_dict(), "at_message": at} for event, at in zip(loaded.ledger, positions, strict=False)],
        "tree": {"active": loaded.branch, "branches": branches},
    }
    # mended: a lone surrogate in some text must not make the file unwritable (a rescue copy)
    return mend_surrogates(json.dumps(document, indent=2, ensure_ascii=False)) + "\n"


def render_export(loaded: LoadedSession, fmt: str) -> str:
    """`export_markdown` or `export_json` by name (one of `FORMATS`); anything else: ValueError (one line)."""
    render = _RENDERERS.get(fmt)
    if render is None:
        raise ValueError(f"unknown export format {fmt!r} (use {' or '.join(FORMATS)})")
    return render(loaded)


def default_export_path(meta: SessionMeta, fmt: str, directory: Path) -> Path:
    """`<directory>/co-tui-<first 8 of id>.<fmt>` — the name `/export` starts from in a directory."""
    return Path(directory) / f"co-tui-{meta.id[:8]}.{fmt}"


_RENDERERS: dict[str, Callable[[LoadedSession], str]] = {"md": export_markdown, "json": export_json}


_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)

EXPORTS_DIR = "exports"
"""`/export`'s default folder, under the data dir: an export is a copy of the session (secrets
included), so it stays private and out of the workspace the agent searches."""


def render_saved(store: SessionStore, session_id: str, fmt: str) -> tuple[SessionMeta, str, list[str]]:
    """Load saved session `session_id` (a full id) and render it as `fmt` (`render_export`), with
    the problems met (`SessionStore.load_readable`: a damaged row is marked in its place, the rest
    exported). Raises `StoreError` (one line) or `ValueError` (an unknown format). `--export` and `/export`."""
    loaded, problems = store.load_readable(session_id)
    if len(loaded.tree) > 1 and fmt == "json":  # every other branch, as the store keeps it
        others = {info.id: store.load_branch(session_id, info.id) for info in loaded.tree if info.id != loaded.branch}
        return loaded.meta, export_json(loaded, others), problems
    if len(loaded.tree) > 1 and fmt == "md":
        return loaded.meta, export_markdown(loaded, store.branch_figures(session_id)), problems
    return loaded.meta, render_export(loaded, fmt), problems


def export_saved(store: SessionStore, session_id: str, fmt: str, where: Path | None = None) -> Path:
    """`/export`: render saved session `session_id` as `fmt` and write it with `write_export` —
    `where` None means the data dir's exports folder (beside the database). Returns the file.
    Raises `StoreError`, `ValueError` or `OSError`. Blocking."""
    meta, text, _problems = render_saved(store, session_id, fmt)
    exports = store.path.parent / EXPORTS_DIR
    return write_export(text, default_export_path(meta, fmt, exports), where)


def write_export(text: str, default: Path, target: Path | None = None) -> Path:
    """Write `text` to a new file, mode 0600, never over an existing one; returns its path.

    `target` None: `default` (its folder is created private, mode 0700); an existing directory:
    `default`'s name inside it; else the file `target`. A default name that is taken gets `-2`,
    `-3`, … before its suffix; a `target` file that exists raises `FileExistsError` with one line
    (nothing is overwritten). Other `OSError`s (a missing folder, no permission, a full disk)
    propagate. The file appears complete or not at all (written beside it first, then linked to its
    name): a full disk never leaves an empty or cut export.
    """
    if target is None:
        from co_tui.paths import ensure_private_dir

        ensure_private_dir(default.parent)
        path, unique = default, True
    elif target.is_dir():
        path, unique = target / default.name, True
    else:
        path, unique = target, False
    staged = _stage(text, path.parent)  # whole or not at all: a failed write leaves no file behind
    try:
        for n in range(2, 10_000):
            try:
                _publish(staged, path)
            except FileExistsError:
                if not unique:
                    raise FileExistsError(
                        errno.EEXIST, "the file exists; give another path (nothing was overwritten)", str(path)
                    ) from None
                path = path.with_name(f"{default.stem}-{n}{default.suffix}")
                continue
            return path
    finally:
        with contextlib.suppress(OSError):
            os.unlink(staged)
    raise FileExistsError(errno.EEXIST, "no free file name left", str(path))


def _stage(text: str, folder: Path) -> Path:
    """`text` written in full (and flushed to disk) to a new private temporary file in `folder`.
    Raises `OSError` (a full disk: ENOSPC) after removing the partial file. A lone surrogate in
    `text` is written as U+FFFD (`mend_surrogates`): no text makes the file unwritable."""
    data = mend_surrogates(text).encode("utf-8")
    fd, name = tempfile.mkstemp(prefix=".co-tui-", suffix=".part", dir=folder)  # mode 600, O_EXCL
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
        os.fsync(fd)
    except BaseException:
        os.close(fd)
        with contextlib.suppress(OSError):
            os.unlink(name)
        raise
    os.close(fd)
    return Path(name)


def _publish(staged: Path, path: Path) -> None:
    """Give the complete file `staged` the new name `path`; `FileExistsError` when it is taken.

    A hard link never replaces a name, so the check and the create are one step (nothing is
    overwritten even in a race, and a planted symlink counts as taken). Where a file system has no
    hard links, the name is reserved with O_EXCL and the staged file renamed over the reservation."""
    try:
        os.link(staged, path, follow_symlinks=False)
        return
    except FileExistsError:
        raise
    except OSError as exc:
        if exc.errno not in (errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.ENOSYS, errno.EMLINK):
            raise
    os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW, 0o600))
    try:
        os.replace(staged, path)
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(path)
        raise


def write_private(path: Path, text: str) -> Path:
    """Write `text` to a new file named `path` (or `-2`, `-3`… before its suffix when taken),
    readable by its owner only (mode 600, like the database): an export holds the whole
    conversation. Never over an existing file nor through a symlink planted there (`write_export`).
    Returns the file written. Raises `OSError`."""
    return write_export(text, path, path.parent)

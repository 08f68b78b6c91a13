"""A long scripted agent session over the real OpenAI client and the loopback server.

Each turn the user asks to read a few files; the scripted model calls `read_file` once per file
(the real workspace tool reads them), then answers in a sentence. Summarisation requests
(governance's summariser, recognised by its instructions) get a short summary. Every request the
server receives is recorded, so a caller can check what the model was sent request after request:
the append-only test (tests/providers/test_economy_wire.py) and `benchmarks/economy.py` share it.
"""

from __future__ import annotations

import json
import random
import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from .loopback import LoopbackServer, Reply, ToolCallSpec

SUMMARY = "The user had the agent read source files one batch per turn; each was reported read."
_WORDS = (
    "def",
    "return",
    "self",
    "value",
    "config",
    "items",
    "result",
    "if",
    "for",
    "in",
    "None",
    "path",
    "len",
    "data",
    "index",
    "name",
    "error",
    "raise",
    "class",
    "import",
    "yield",
    "async",
    "await",
)


def write_files(
    workspace: Path, turns: int, files_per_turn: int, *, seed: int = 0, min_kb: int = 1, max_kb: int = 15
) -> list[list[str]]:
    """Create `turns` × `files_per_turn` source-like files of `min_kb`–`max_kb` KB; names per turn."""
    rng = random.Random(seed)
    names: list[list[str]] = []
    for t in range(turns):
        batch = []
        for f in range(files_per_turn):
            name = f"src/t{t:02d}_f{f}.py"
            size = int(1024 * rng.uniform(min_kb, max_kb))
            lines, total = [], 0
            while total < size:
                indent = "    " * rng.randint(0, 3)
                line = (
                    indent
                    + " ".join(rng.choice(_WORDS) for _ in range(rng.randint(3, 9)))
                    + f"  # {rng.randint(0, 9999)}"
                )
                lines.append(line)
                total += len(line) + 1
            path = workspace / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text("\n".join(lines) + "\n", encoding="utf-8")
            batch.append(name)
        names.append(batch)
    return names


def is_summary_request(body: dict[str, Any]) -> bool:
    from co_tui.governance.summarize import COMPACT_SENTINEL, SUMMARY_SENTINEL

    first = (body.get("messages") or [{}])[0]
    content = first.get("content") if first.get("role") in ("system", "developer") else None
    text = content if isinstance(content, str) else json.dumps(content)
    return SUMMARY_SENTINEL in text or COMPACT_SENTINEL in text


_RECALLABLE = re.compile(r'recall\("(r\d+(?:\.\d+)?)"\)|→ (r\d+(?:\.\d+)?)')


def responder(files: list[list[str]], *, sequential: bool = False, recall_every: int = 0):  # a loopback responder
    """The scripted model: read the turn's files, then answer; summarise when asked to.

    All of a turn's files in one step (parallel calls), or with `sequential` one call per step, as
    an agent exploring a repository does (a turn of N files is then 2N + 2 messages). With
    `recall_every` N, every N-th turn, after its reads, it reads back the first output a cut note
    names (`recall("r12")`, or a listed turn's `→ r12`) before answering — when it sees one.
    """

    def respond(request: Any) -> Reply:
        body = request.body
        if is_summary_request(body):
            return Reply(SUMMARY)
        messages = body["messages"]
        start = max(i for i, m in enumerate(messages) if m["role"] == "user")  # the turn's prompt
        prompt = messages[start]["content"]
        turn = int(re.search(r"turn (\d+)", prompt if isinstance(prompt, str) else json.dumps(prompt)).group(1))
        results = sum(1 for m in messages[start:] if m["role"] == "tool")
        # pydantic-ai may append a note after the tool results (a tool joining mid-run: `recall`).
        last_role = next(m["role"] for m in reversed(messages) if m["role"] != "system")
        done_reading = last_role == "tool" and (not sequential or results >= len(files[turn]))
        # One recall a turn, whatever came back (a failed one is not retried).
        recalled = any(
            call.get("function", {}).get("name") == "recall"
            for m in messages[start:]
            if m["role"] == "assistant"
            for call in m.get("tool_calls") or ()
        )
        if done_reading and recall_every and turn and turn % recall_every == 0 and not recalled:
            # In the notes the conversation carries, not the instructions (their `recall("r12")` is an example).
            notes = "\n".join(str(m.get("content", "")) for m in messages if m["role"] not in ("system", "developer"))
            found = _RECALLABLE.search(notes)
            if found is not None:
                return Reply(tool_calls=(ToolCallSpec("recall", {"handle": found[1] or found[2]}, f"call_{turn}_r"),))
        if done_reading:
            return Reply("Read them; nothing unusual in these files.")
        batch = list(enumerate(files[turn]))
        batch = batch[results : results + 1] if sequential else batch
        calls = tuple(ToolCallSpec("read_file", {"path": name}, f"call_{turn}_{k}") for k, name in batch)
        return Reply(tool_calls=calls)

    return respond


@dataclass
class SessionRecord:
    """What a scripted session did: per main request its turn and messages; per turn its cuts."""

    requests: list[tuple[int, list[dict[str, Any]]]] = field(default_factory=list)  # (turn, body messages)
    tokens: list[int] = field(default_factory=list)  # per main request, co-tui's estimate of what was sent
    cuts: list[list[Any]] = field(default_factory=list)  # history_trimmed events per turn
    summary_calls: int = 0
    recall_tokens: int = 0  # co-tui's estimate of what `recall` returned to the model
    tools: list[str] = field(default_factory=list)  # per main request, its tool list as sent (JSON)


async def run_session(
    chat: Any,
    server: LoopbackServer,
    files: list[list[str]],
    *,
    report_estimate: bool = False,
    sequential: bool = False,
    recall_every: int = 0,
) -> SessionRecord:
    """Drive `chat` (a ChatSession on `openai-chat:…` pointed at `server`) through one turn per batch.

    `report_estimate`: the server reports input tokens as co-tui estimates the request (so the meter
    and the policy count alike) instead of its chars/4 stand-in. `sequential`: one tool call per
    step (see `responder`). `recall_every`: see `responder`.
    """
    from co_tui.governance.tokens import estimate_text_tokens

    record = SessionRecord()
    respond = responder(files, sequential=sequential, recall_every=recall_every)

    def estimating(request: Any) -> Reply:
        reply = respond(request)
        return replace(reply, input_tokens=estimate_text_tokens(request.text()))

    server.responder = estimating if report_estimate else respond
    for turn in range(len(files)):
        start = len(server.requests)
        events = [e async for e in chat.run_turn(f"turn {turn}: please read {', '.join(files[turn])}")]
        done = events[-1]
        assert done.type == "done" and not done.failed, events[-3:]
        record.cuts.append([e for e in events if e.type == "history_trimmed"])
        for r in server.requests[start:]:
            if is_summary_request(r.body):
                record.summary_calls += 1
            else:
                record.requests.append((turn, r.body["messages"]))
                record.tools.append(json.dumps(r.body.get("tools") or [], sort_keys=True))
                record.tokens.append(estimate_text_tokens(r.text()))
                # A recall's output is new in the request after it (a line pydantic-ai adds may follow it).
                newest = next(m for m in reversed(r.body["messages"]) if m.get("role") != "system")
                if newest.get("role") == "tool" and str(newest.get("content", "")).startswith("[recall("):
                    record.recall_tokens += estimate_text_tokens(newest["content"])
    return record


def shared_prefix(previous: list[dict[str, Any]], current: list[dict[str, Any]]) -> int:
    """How many leading messages of `current` are byte-for-byte those of `previous`."""
    n = 0
    for a, b in zip(previous, current, strict=False):
        if json.dumps(a, sort_keys=True) != json.dumps(b, sort_keys=True):
            break
        n += 1
    return n


def size(message: dict[str, Any]) -> int:
    return len(json.dumps(message, sort_keys=True))

"""Nothing cut is out of reach, through a real session: handles, notes, the `recall` tool."""

from __future__ import annotations

import json
from pathlib import Path

from pydantic_ai.messages import ModelRequest, ToolReturnPart, UserPromptPart
from pydantic_ai.models.function import AgentInfo, DeltaToolCall, FunctionModel

from co_tui.config import load_settings
from co_tui.governance.handles import handle_of
from co_tui.governance.markers import marker_info, separate_markers
from co_tui.session.chat import ChatSession

FACT = "the secret word is zephyr"


def _prompt(messages) -> str:
    for message in reversed(messages):
        for part in getattr(message, "parts", ()):
            if isinstance(part, UserPromptPart) and isinstance(part.content, str) and not marker_info(message):
                return part.content
    return ""


def recalling_model(seen: list[AgentInfo]) -> FunctionModel:
    """Reads notes.txt on "read"; on "what was the word" copies the recall call the breadcrumb shows."""

    async def stream(messages, info: AgentInfo):
        seen.append(info)
        last = messages[-1]
        returns = [p for p in last.parts if isinstance(p, ToolReturnPart)]
        if returns:
            yield f"tool said: {returns[-1].content}"
            return
        prompt = _prompt(messages)
        if prompt.startswith("read"):
            yield {0: DeltaToolCall(name="read_file", json_args=json.dumps({"path": "notes.txt"}), tool_call_id="c1")}
            return
        if prompt.startswith("what was the word"):
            text = "\n".join(p.content for m in messages for p in m.parts if isinstance(p, UserPromptPart))
            turns = text.split('recall(turns="', 1)[1].split('"', 1)[0]
            yield {0: DeltaToolCall(name="recall", json_args=json.dumps({"turns": turns}), tool_call_id="c1")}
            return
        yield "filler " * 200

    return FunctionModel(stream_function=stream, model_name="recaller")


async def test_a_trimmed_fact_comes_back_through_recall(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text(FACT + "\n")
    seen: list[AgentInfo] = []
    session = ChatSession(
        load_settings(context_budget_tokens=4000, context_strategy="trim"),
        workspace=tmp_path,
        model=recalling_model(seen),
    )
    async for _ in session.run_turn("read notes.txt"):
        pass
    assert [handle_of(p) for m in session.transcript for p in m.parts if isinstance(p, ToolReturnPart)] == ["r2"]
    assert not any(t.name == "recall" for t in seen[0].function_tools)  # nothing is cut yet: not offered
    assert "recall" not in [row.label for row in session.context_breakdown().rows]  # nor priced in /context
    for i in range(10):
        async for _ in session.run_turn(f"tell me something {i} " + "long words here " * 150):
            pass
    assert session.ledger, "the filler turns forced a cut"
    assert not any(FACT in str(p.content) for m in session.context for p in m.parts if hasattr(p, "content"))
    events = [e async for e in session.run_turn("what was the word?")]
    results = [e for e in events if e.type == "tool_result"]
    assert results and FACT in str(results[0].content)
    assert any(t.name == "recall" for t in seen[-1].function_tools)  # offered once something was cut
    [row] = [row for row in session.context_breakdown().rows if row.label == "recall"]
    assert row.items == 1 and row.tokens > 0
    # The recall's output is an ordinary output in the context, with its own handle.
    recalled = [
        p
        for m in separate_markers(session.context)
        if isinstance(m, ModelRequest)
        for p in m.parts
        if isinstance(p, ToolReturnPart) and p.tool_name == "recall"
    ]
    assert recalled and handle_of(recalled[0]) is not None and FACT in recalled[0].content
    # /context counts recalled text as messages (not as a marker or a summary).
    from co_tui.session.context_breakdown import classify_messages

    [key] = [k for k, m in classify_messages(session.context) if any(p is recalled[0] for p in m.parts)]
    assert key == "messages"


async def test_the_offline_model_reads_a_trimmed_file_back(tmp_path: Path) -> None:
    """ "what did README.md say?" after its output was cut: the offline model calls recall with the
    handle the breadcrumb lists and answers from the verbatim original."""
    (tmp_path / "README.md").write_text("# Zephyr project\n\nThe secret word is zephyr.\n" + "Some prose line.\n" * 200)
    for i in range(6):
        (tmp_path / f"f{i}.py").write_text(f"def f{i}():\n    return {i}\n" * 150)
    session = ChatSession(
        load_settings(context_budget_tokens=6000, context_strategy="trim"), workspace=tmp_path, model="offline"
    )
    async for _ in session.run_turn("what did README.md say?"):
        pass
    assert not any(
        p.tool_name == "recall" for m in session.transcript for p in m.parts if isinstance(p, ToolReturnPart)
    )
    for prompt in ["read README.md", *(f"read f{i}.py" for i in range(6))]:
        async for _ in session.run_turn(prompt):
            pass
    assert any(e.strategy == "turn_trim" for e in session.ledger)
    events = [e async for e in session.run_turn("what did README.md say?")]
    calls = [e for e in events if e.type == "tool_call"]
    readme = next(
        handle_of(p)
        for m in session.transcript
        for p in m.parts
        if isinstance(p, ToolReturnPart) and "README.md" in str(p.content)[:20]
    )
    assert [(c.tool_name, json.loads(c.args)) for c in calls] == [("recall", {"handle": readme})]
    result = next(e for e in events if e.type == "tool_result")
    assert (tmp_path / "README.md").read_text()[:3000] in result.content  # verbatim (the read's header aside)
    answer = "".join(e.text for e in events if e.type == "text_delta")
    assert "read it back with recall" in answer and "The secret word is zephyr." in answer


async def test_a_big_output_is_kept_whole_and_the_model_gets_a_preview_with_its_handle(tmp_path: Path) -> None:
    lines = [f"line {i:05d} " + "abcdefghij" * 19 for i in range(1500)]  # a default read: 400 lines, ~80k chars
    (tmp_path / "big.log").write_text("\n".join(lines) + "\n")
    seen: list[list] = []

    async def stream(messages, info: AgentInfo):
        seen.append(list(messages))
        if any(isinstance(p, ToolReturnPart) for p in messages[-1].parts):  # (recall joins with an announcement part)
            yield "read it"
            return
        yield {0: DeltaToolCall(name="read_file", json_args=json.dumps({"path": "big.log"}), tool_call_id="c1")}

    session = ChatSession(
        # At the defaults: read_file keeps its 80k chars whole (it once capped them at 16,000).
        load_settings(),
        workspace=tmp_path,
        model=FunctionModel(stream_function=stream),
    )
    events = [e async for e in session.run_turn("read big.log")]
    whole = next(p for m in session.transcript for p in m.parts if isinstance(p, ToolReturnPart))
    assert len(whole.content) > 80_000 and whole.content.rstrip().endswith("offset=400]")  # kept whole
    assert "[capped at" in whole.content.splitlines()[-1] and whole.content.splitlines()[400].startswith("line 00399")
    sent = next(p for p in seen[-1][-1].parts if isinstance(p, ToolReturnPart))  # what the model got, same turn
    assert len(seen) == 2  # one read, then the answer
    handle = handle_of(whole)
    assert handle_of(sent) == handle and len(sent.content) < 4_000
    assert sent.content.startswith(whole.content[:2000]) and sent.content.endswith(whole.content[-1000:])
    assert f'recall("{handle}") returns it whole' in sent.content and f"{len(whole.content):,} chars" in sent.content
    in_context = next(p for m in session.context for p in m.parts if isinstance(p, ToolReturnPart))
    assert in_context.content == sent.content
    # The front ends get the same head and tail, with the whole size: not 80k chars in a tool row or a jsonl line.
    result = next(e for e in events if e.type == "tool_result")
    assert result.chars == len(whole.content) and len(result.content) < 3_500
    assert result.content.startswith(whole.content[:2000]) and result.content.endswith(whole.content[-1000:])
    assert events[-1].type == "done" and not events[-1].failed


async def test_a_recall_page_of_a_big_output_reaches_the_model_whole_not_previewed(tmp_path: Path) -> None:
    """At gpt-4o's budget a page was 20% of it (61,440 chars), over the 50,000-char preview cap: the
    page the model asked for came back previewed, pointing it at recall again."""
    (tmp_path / "big.log").write_text("".join(f"line {i:05d} " + "abcdefghij" * 9 + "\n" for i in range(2000)))
    seen: list[list] = []

    async def stream(messages, info: AgentInfo):
        seen.append(list(messages))
        returns = [p for p in messages[-1].parts if isinstance(p, ToolReturnPart)]
        if not returns:
            yield {0: DeltaToolCall(name="read_file", json_args=json.dumps({"path": "big.log", "limit": 2000}))}
        elif returns[-1].tool_name == "read_file":
            args = json.dumps({"handle": handle_of(returns[-1])})
            yield {0: DeltaToolCall(name="recall", json_args=args, tool_call_id="c2")}
        else:
            yield "read it"

    session = ChatSession(
        load_settings(context_budget_tokens=102_400), workspace=tmp_path, model=FunctionModel(stream_function=stream)
    )
    events = [e async for e in session.run_turn("read big.log")]
    assert events[-1].type == "done" and not events[-1].failed
    [page] = [p for p in seen[-1][-1].parts if isinstance(p, ToolReturnPart) and p.tool_name == "recall"]
    assert "[…output too big to show whole" not in page.content and len(page.content) <= 50_000
    assert page.content.startswith('[recall("r2"): the output of read_file(') and "line 00000" in page.content
    assert "offset=" in page.content.split("\n", 1)[0]  # the next page is named


def _scripted(calls: dict[str, tuple[str, dict]]) -> FunctionModel:
    """Calls `calls[prompt]` (tool name, args) for a prompt; says what the tool returned after it."""

    async def stream(messages, info: AgentInfo):
        returns = [p for p in messages[-1].parts if isinstance(p, ToolReturnPart)]
        if returns:
            yield f"tool said: {returns[-1].content}"
            return
        name, args = calls[_prompt(messages)]
        yield {0: DeltaToolCall(name=name, json_args=json.dumps(args), tool_call_id="c1")}

    return FunctionModel(stream_function=stream, model_name="scripted")


async def test_search_finds_the_unseen_middle_of_a_previewed_output(tmp_path: Path) -> None:
    """`_visible` counted a previewed output as seen, so recall's search skipped its middle, the
    one part the model never saw (issue 40, item 13). Its head, which the model did see, is not a hit."""
    lines = [f"line {i:05d} " + "abcdefghij" * 19 for i in range(1500)]
    lines[200] = "line 00200 MIDDLE_MARKER here"
    lines[1] = "line 00001 HEAD_MARKER here"
    (tmp_path / "big.log").write_text("\n".join(lines) + "\n")
    model = _scripted(
        {
            "read big.log": ("read_file", {"path": "big.log"}),
            "find the middle": ("recall", {"search": "MIDDLE_MARKER"}),
            "find the head": ("recall", {"search": "HEAD_MARKER"}),
        }
    )
    session = ChatSession(load_settings(), workspace=tmp_path, model=model)
    [e async for e in session.run_turn("read big.log")]
    handle = handle_of(next(p for m in session.transcript for p in m.parts if isinstance(p, ToolReturnPart)))
    events = [e async for e in session.run_turn("find the middle")]
    [result] = [e for e in events if e.type == "tool_result"]
    assert "1 hits in what is out of view" in result.content, result.content
    assert f'recall("{handle}")' in result.content and "MIDDLE_MARKER" in result.content
    events = [e async for e in session.run_turn("find the head")]
    [result] = [e for e in events if e.type == "tool_result"]
    assert "0 hits" in result.content and "(no hits)" in result.content, result.content


async def test_a_handle_of_5000_digits_is_no_such_output(tmp_path: Path) -> None:
    """`int()` refused 5,000 digits with a ValueError that aborted the turn (issue 40, item 6)."""
    handle = "r" + "9" * 5000
    session = ChatSession(
        load_settings(), workspace=tmp_path, model=_scripted({"recall it": ("recall", {"handle": handle})})
    )
    events = [e async for e in session.run_turn("recall it")]
    assert not [e for e in events if e.type == "error"], events
    [result] = [e for e in events if e.type == "tool_result"]
    assert result.is_error and "no tool output" in result.content and "handles look like r12" in result.content
    assert events[-1].type == "done" and not events[-1].failed

"""The loopback server itself, driven by the real clients: happy paths in both APIs and modes."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic_ai import Agent
from pydantic_ai.messages import ModelResponse, TextPart, ToolCallPart

from .loopback import LoopbackServer, Reply, ToolCallSpec
from .models import anthropic_model, openai_chat_model


def model_for(api: str, server: LoopbackServer) -> Any:
    return openai_chat_model(server.openai_base_url) if api == "openai" else anthropic_model(server.anthropic_base_url)


@pytest.mark.parametrize("stream", [True, False], ids=["stream", "plain"])
@pytest.mark.parametrize("api", ["openai", "anthropic"])
async def test_text_answer_with_usage(loopback: LoopbackServer, api: str, stream: bool) -> None:
    loopback.script(Reply("Hello from the loopback", input_tokens=321, output_tokens=7))
    agent = Agent(model_for(api, loopback))
    if stream:
        deltas: list[str] = []
        async with agent.run_stream_events("hi there") as events:
            async for event in events:
                delta = getattr(getattr(event, "delta", None), "content_delta", None)
                if isinstance(delta, str):
                    deltas.append(delta)
                if hasattr(event, "result"):
                    result = event.result
        assert len(deltas) >= 2, "the answer arrived in several chunks"
    else:
        result = await agent.run("hi there")
    assert result.output == "Hello from the loopback"
    usage = result.usage
    assert (usage.input_tokens, usage.output_tokens) == (321, 7)
    [request] = loopback.requests
    # AnthropicModel streams even a plain `run()` (it needs to for long outputs); OpenAI asks as told.
    assert request.stream is (stream or api == "anthropic")
    assert "hi there" in request.text()
    if api == "openai":
        assert request.path == "/v1/chat/completions"
        assert request.headers["authorization"] == "Bearer sk-test"
        if stream:
            assert request.body["stream_options"] == {"include_usage": True}
    else:
        assert request.path == "/v1/messages"
        sent = {request.headers.get("x-api-key"), request.headers.get("authorization")}
        assert sent & {"sk-ant-test", "Bearer sk-ant-test"}


@pytest.mark.parametrize("stream", [True, False], ids=["stream", "plain"])
@pytest.mark.parametrize("api", ["openai", "anthropic"])
async def test_tool_call_round_trip(loopback: LoopbackServer, api: str, stream: bool) -> None:
    call_id = "call_abc" if api == "openai" else "toolu_abc"
    loopback.script(Reply(tool_calls=(ToolCallSpec("add", {"a": 2, "b": 3}, call_id),)), Reply("The sum is 5."))
    agent = Agent(model_for(api, loopback))
    seen: list[tuple[int, int]] = []

    @agent.tool_plain
    def add(a: int, b: int) -> int:
        """Add two numbers."""
        seen.append((a, b))
        return a + b

    if stream:
        async with agent.run_stream_events("add 2 and 3") as events:
            async for event in events:
                if hasattr(event, "result"):
                    result = event.result
    else:
        result = await agent.run("add 2 and 3")
    assert seen == [(2, 3)]
    assert result.output == "The sum is 5."
    first, second = loopback.requests
    assert [t.get("function", t).get("name") for t in first.body["tools"]] == ["add"]
    assert call_id in second.text() or call_id in str(second.body)
    assert "5" in str(second.body["messages"][-1])
    calls = [
        p for m in result.all_messages() if isinstance(m, ModelResponse) for p in m.parts if isinstance(p, ToolCallPart)
    ]
    assert [(c.tool_name, c.tool_call_id, c.args_as_dict()) for c in calls] == [("add", call_id, {"a": 2, "b": 3})]


async def test_slow_stream_delivers_everything(loopback: LoopbackServer) -> None:
    loopback.script(Reply("slow but steady", chunk_delay=0.02))  # the scenario: a slow stream
    result = await Agent(model_for("openai", loopback)).run("go")
    assert result.output == "slow but steady"


async def test_unscripted_request_fails_fast_and_says_why(loopback: LoopbackServer) -> None:
    from pydantic_ai.exceptions import ModelHTTPError

    with pytest.raises(ModelHTTPError, match="no scripted response left"):
        await Agent(model_for("openai", loopback)).run("go")
    assert loopback.count() == 1


async def test_responder_answers_from_the_request(loopback: LoopbackServer) -> None:
    loopback.responder = lambda req: Reply(f"you sent {len(req.body['messages'])} messages")
    result = await Agent(model_for("openai", loopback), instructions="be brief").run("go")
    assert result.output == "you sent 2 messages"
    assert isinstance(result.all_messages()[-1].parts[0], TextPart)

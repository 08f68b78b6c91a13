"""No credential reaches the data dir: run a real agent turn with a fake key set, save, grep the bytes."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest
from pydantic_ai import Agent
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from co_tui.session.store import SessionStore


def _leaky_model(key: str, header_secret: str) -> FunctionModel:
    """A model whose responses carry what a careless provider or proxy could echo back."""

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        if len(messages) == 1:
            return ModelResponse(parts=[ToolCallPart("show_env", {}, tool_call_id="c1")])
        return ModelResponse(
            parts=[TextPart("done", provider_details={"x-api-key": header_secret})],
            provider_url=f"https://user:{header_secret}@proxy.invalid/v1?key={header_secret}",
            provider_details={"request_headers": {"Authorization": f"Bearer {header_secret}"}, "finish": "stop"},
        )

    return FunctionModel(respond)


async def test_no_key_at_rest(monkeypatch: pytest.MonkeyPatch, data_dir: Path, tmp_path: Path) -> None:
    key = f"sk-fake-{uuid.uuid4().hex}"
    header_secret = f"hdr-{uuid.uuid4().hex}"  # not in the environment: only structural scrubbing can catch it
    monkeypatch.setenv("OPENAI_API_KEY", key)
    agent = Agent(_leaky_model(key, header_secret))

    @agent.tool_plain
    def show_env() -> str:
        """A tool that prints a credential, as `env` in a shell would."""
        import os

        return f"OPENAI_API_KEY={os.environ['OPENAI_API_KEY']}"

    result = await agent.run("what is in my environment?")
    messages = result.all_messages()
    in_memory = repr(messages)
    assert key in in_memory and header_secret in in_memory  # the premise: the run did carry both

    with SessionStore.open(data_dir) as store:
        sid = store.create_session(model="function", workspace=tmp_path, title="env")
        store.save_turn(sid, new_transcript=messages, context=messages, new_events=[])
        loaded = store.load(sid)

    for path in data_dir.iterdir():
        blob = path.read_bytes()
        assert key.encode() not in blob, path.name
        assert header_secret.encode() not in blob, path.name
    text = repr(loaded.transcript)
    assert "[redacted]" in text
    assert loaded.transcript[-1].provider_details["finish"] == "stop"  # harmless details are kept
    assert loaded.transcript[-1].provider_url == "https://proxy.invalid/v1"
    assert len(loaded.transcript) == len(messages)


def test_scrub_never_mutates_and_keeps_clean_messages_as_they_are() -> None:
    from co_tui.session.redaction import redact_text, scrub_message, secret_env_values

    clean = ModelResponse(parts=[TextPart("hi")], provider_details={"finish_reason": "stop"})
    assert scrub_message(clean) is clean
    leaky = ModelResponse(parts=[TextPart("hi", provider_details={"Cookie": "a=b"})],
                          provider_details={"nested": [{"api_key": "k"}]}, provider_url="https://u:p@h.example:8443/v1")
    scrubbed = scrub_message(leaky)
    assert leaky.provider_details == {"nested": [{"api_key": "k"}]} and leaky.parts[0].provider_details == {"Cookie": "a=b"}
    assert scrubbed.provider_details == {"nested": [{"api_key": "[redacted]"}]}
    assert scrubbed.parts[0].provider_details == {"Cookie": "[redacted]"}
    assert scrubbed.provider_url == "https://h.example:8443/v1"
    env = {"ANTHROPIC_API_KEY": "sk-ant-123456789", "GITHUB_TOKEN": "ghp_abcdefgh", "HOME": "/home/someone-long",
           "SHORT_KEY": "abc"}
    secrets = secret_env_values(env)
    assert set(secrets) == {"sk-ant-123456789", "ghp_abcdefgh"}
    assert redact_text("k=sk-ant-123456789 t=ghp_abcdefgh h=/home/someone-long", secrets) == \
        "k=[redacted] t=[redacted] h=/home/someone-long"

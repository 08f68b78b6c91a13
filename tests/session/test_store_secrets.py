"""No credential reaches the data dir: run a real agent turn with a fake key set, save, grep the bytes."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest
from pydantic_ai import Agent
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from co_tui.store.session_store import SessionStore


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
    from co_tui.redaction import redact_text, scrub_message, secret_env_values

    clean = ModelResponse(parts=[TextPart("hi")], provider_details={"finish_reason": "stop"})
    assert scrub_message(clean) is clean
    leaky = ModelResponse(
        parts=[TextPart("hi", provider_details={"Cookie": "a=b"})],
        provider_details={"nested": [{"api_key": "k"}]},
        provider_url="https://u:p@h.example:8443/v1",
    )
    scrubbed = scrub_message(leaky)
    assert leaky.provider_details == {"nested": [{"api_key": "k"}]} and leaky.parts[0].provider_details == {
        "Cookie": "a=b"
    }
    assert scrubbed.provider_details == {"nested": [{"api_key": "[redacted]"}]}
    assert scrubbed.parts[0].provider_details == {"Cookie": "[redacted]"}
    assert scrubbed.provider_url == "https://h.example:8443/v1"
    env = {
        "ANTHROPIC_API_KEY": "sk-ant-123456789",
        "GITHUB_TOKEN": "ghp_abcdefgh",
        "HOME": "/home/someone-long",
        "SHORT_KEY": "abc",
    }
    secrets = secret_env_values(env)
    assert set(secrets) == {"sk-ant-123456789", "ghp_abcdefgh"}
    assert (
        redact_text("k=sk-ant-123456789 t=ghp_abcdefgh h=/home/someone-long", secrets)
        == "k=[redacted] t=[redacted] h=/home/someone-long"
    )


# Every character class a secret may hold: quotes and backslashes, control
# characters (JSON escapes them), non-ASCII (the ledger's json.dumps escapes it), DEL, slash.
SECRET_CLASSES = {
    "plain": "sk-plainSECRET123",
    "quote": 'sk-"quoted"-secret',
    "backslash": "sk-back\\slash\\secret",
    "control": "sk-ctl\x01\x1f-secret",
    "newline_tab": "sk-line\nbreak\ttab-secret",
    "non_ascii": "sk-ünïcødé-秘密-secret",
    "emoji": "sk-🔑-secret-value",
    "del_slash": "sk-del\x7f/slash/secret",
    "mixed": 'sk-"\\\n\u2028é\x02-secret',
}


@pytest.mark.parametrize("name", sorted(SECRET_CLASSES))
def test_secret_with_any_character_is_redacted_at_rest(
    name: str, monkeypatch: pytest.MonkeyPatch, data_dir: Path, tmp_path: Path
) -> None:
    from pydantic_ai.messages import ModelRequest, ToolReturnPart, UserPromptPart

    from co_tui.governance.events import HistoryTrimmed

    secret = SECRET_CLASSES[name]
    monkeypatch.setenv("MY_SERVICE_TOKEN", secret)
    messages = [
        ModelRequest(parts=[UserPromptPart(f"my token is {secret} ok")]),
        ModelResponse(parts=[ToolCallPart("show_env", {"value": secret}, tool_call_id="c1")]),
        ModelRequest(parts=[ToolReturnPart("show_env", f"TOKEN={secret}\n", tool_call_id="c1")]),
        ModelResponse(parts=[TextPart(f"your token: {secret}")]),
    ]
    event = HistoryTrimmed(reason="manual_compact", strategy="compact", summary=f"user shared {secret}")
    with SessionStore.open(data_dir) as store:
        sid = store.create_session(model="offline", workspace=tmp_path)
        store.save_turn(sid, new_transcript=messages, context=messages[2:], new_events=[event])
        loaded = store.load(sid)
    raw = b"".join(p.read_bytes() for p in data_dir.iterdir() if p.is_file())
    import json

    for form in {secret, json.dumps(secret)[1:-1], json.dumps(secret, ensure_ascii=False)[1:-1]}:
        assert form.encode("utf-8") not in raw, f"{form!r} stored"
    assert "[redacted]" in loaded.transcript[0].parts[0].content
    assert "[redacted]" in (loaded.ledger[0].summary or "")

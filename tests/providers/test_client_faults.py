"""What each provider fault becomes through pydantic-ai's REAL OpenAI and Anthropic clients.

Every test sends real HTTP to the loopback server and checks three things together: the
pydantic-ai exception category, how many requests reached the server (the SDK's retries), and the
one line `describe_error` turns it into. This pins down the behaviour co-tui builds on, so an
upgrade of pydantic-ai or an SDK that changes it fails here first.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest
from pydantic_ai import Agent
from pydantic_ai import exceptions as ex
from pydantic_ai.messages import PartDeltaEvent, PartStartEvent, TextPart, TextPartDelta

from co_tui.agent.errors import describe_error

from .loopback import (
    Close,
    CutStream,
    Hang,
    LoopbackServer,
    Malformed,
    StreamError,
    anthropic_error,
    anthropic_prompt_too_long,
    openai_context_overflow,
    openai_error,
)
from .models import anthropic_model, openai_chat_model

# SDKs honour `retry-after-ms` over their exponential backoff: 1 ms keeps retried tests fast
# while still going through the SDK's real retry loop.
FAST = {"retry-after-ms": "1"}

MODEL_NAMES = {"openai": "openai-chat:gpt-4o", "anthropic": "anthropic:claude-sonnet-4-6"}


@dataclass
class Outcome:
    error: BaseException | None
    text: str  # answer text that arrived before the end or the failure

    def describe(self, api: str, **kw: Any) -> tuple[str, str]:
        assert self.error is not None, f"expected a failure, got answer {self.text!r}"
        return describe_error(self.error, model_name=MODEL_NAMES[api], **kw)


def model_for(api: str, server: LoopbackServer | None = None, *, base_url: str | None = None) -> Any:
    if api == "openai":
        return openai_chat_model(base_url or server.openai_base_url)  # type: ignore[union-attr]
    return anthropic_model(base_url or server.anthropic_base_url)  # type: ignore[union-attr]


async def run_once(model: Any, *, stream: bool = True, max_retries: int = 2, **settings: Any) -> Outcome:
    """One agent run; collects streamed text and the exception, if any."""
    agent = Agent(model)
    text: list[str] = []
    model_settings = {"max_retries": max_retries, **settings}
    try:
        if stream:
            async with agent.run_stream_events("hello", model_settings=model_settings) as events:
                async for event in events:
                    if isinstance(event, PartStartEvent) and isinstance(event.part, TextPart):
                        text.append(event.part.content)
                    elif isinstance(event, PartDeltaEvent) and isinstance(event.delta, TextPartDelta):
                        text.append(event.delta.content_delta)
        else:
            result = await agent.run("hello", model_settings=model_settings)
            text.append(result.output)
    except Exception as exc:  # the point of these tests
        return Outcome(exc, "".join(text))
    return Outcome(None, "".join(text))


# Requests the server rejects for good (never retried): per HTTP status, the error each API sends
# and the pydantic-ai exception it becomes.
REJECTIONS = {
    401: (
        openai_error(401, "Incorrect API key provided: sk-test.", code="invalid_api_key"),
        anthropic_error(401, "authentication_error", "invalid x-api-key"),
        ex.ModelAuthenticationError,
    ),
    404: (
        openai_error(404, "The model `gpt-4o` does not exist", code="model_not_found"),
        anthropic_error(404, "not_found_error", "model: claude-sonnet-4-6"),
        ex.ModelNotFoundError,
    ),
}


async def rejected_once(loopback: LoopbackServer, api: str, status: int) -> tuple[str, str]:
    """One request the server rejects with `status` (`REJECTIONS`): it fails with the expected
    exception after one attempt; returns its one line and kind."""
    openai, anthropic, error_type = REJECTIONS[status]
    loopback.script(openai if api == "openai" else anthropic)
    out = await run_once(model_for(api, loopback))
    assert isinstance(out.error, error_type)
    assert loopback.count() == 1, "a rejected request is not retried"
    return out.describe(api)


APIS = ["openai", "anthropic"]
MODES = [pytest.param(True, id="stream"), pytest.param(False, id="plain")]


# --- 400 context overflow -------------------------------------------------------------------------


@pytest.mark.parametrize("stream", MODES)
@pytest.mark.parametrize("api", APIS)
async def test_context_overflow_is_detected_and_not_retried(loopback: LoopbackServer, api: str, stream: bool) -> None:
    loopback.script(openai_context_overflow() if api == "openai" else anthropic_prompt_too_long())
    out = await run_once(model_for(api, loopback), stream=stream)
    assert isinstance(out.error, ex.ModelContextWindowExceededError)
    assert isinstance(out.error, ex.ModelHTTPError) and out.error.status_code == 400
    assert loopback.count() == 1
    line, kind = out.describe(api)
    bare = MODEL_NAMES[api].split(":")[1]
    assert line == f"the conversation is too long for {bare}'s context window even after trimming"
    assert kind == "overflow"


async def test_openai_compatible_overflow_without_code_is_detected(loopback: LoopbackServer) -> None:
    """vLLM/OpenRouter-style servers word the overflow without the `context_length_exceeded` code."""
    loopback.script(openai_error(400, "This model's maximum context length is 8192 tokens, requested 9000."))
    out = await run_once(model_for("openai", loopback))
    assert isinstance(out.error, ex.ModelContextWindowExceededError)


# --- 401 ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("api", APIS)
async def test_401_names_the_key_variable(loopback: LoopbackServer, api: str) -> None:
    line, kind = await rejected_once(loopback, api, 401)
    var = "OPENAI_API_KEY" if api == "openai" else "ANTHROPIC_API_KEY"
    assert var in line and "401" in line
    assert kind == "auth"


def test_missing_key_at_model_setup_names_the_variable() -> None:
    from pydantic_ai.models import infer_model

    with pytest.raises(ex.UserError) as caught:
        infer_model("anthropic:claude-sonnet-4-6")  # conftest removed ANTHROPIC_API_KEY
    line, kind = describe_error(caught.value, model_name="anthropic:claude-sonnet-4-6")
    assert line.startswith("ANTHROPIC_API_KEY is not set")
    assert kind == "config"


@pytest.mark.parametrize("api", APIS)
async def test_unknown_model_404(loopback: LoopbackServer, api: str) -> None:
    line, kind = await rejected_once(loopback, api, 404)
    bare = MODEL_NAMES[api].split(":")[1]
    assert line.startswith(f"the server at 127.0.0.1:{loopback.port} does not know the model '{bare}' (HTTP 404)")
    assert kind == "config"


def test_model_config_error_passes_through() -> None:
    from co_tui.agent.models import ModelConfigError

    err = ModelConfigError("OPENAI_API_KEY is not set: export it or choose --model offline (model openai:gpt-5)")
    assert describe_error(err, model_name="openai:gpt-5") == (str(err), "config")


def test_unexpected_exceptions_are_one_line_internal() -> None:
    line, kind = describe_error(ValueError("first line\nsecond line\n  third"), model_name="offline")
    assert line == "internal error: ValueError: first line second line third"
    assert kind == "internal"
    group = ExceptionGroup("wrapped", [ex.ModelHTTPError(418, "m", {"error": {"message": "teapot"}})])
    line, kind = describe_error(group, model_name="openai-chat:m")
    assert line == "OpenAI error 418: teapot" and kind == "provider"


def test_api_key_env_by_model_string() -> None:
    from co_tui.agent.errors import api_key_env

    assert api_key_env("openai-chat:gpt-4o") == "OPENAI_API_KEY"
    assert api_key_env("openai:gpt-5") == "OPENAI_API_KEY"
    assert api_key_env("anthropic:claude-haiku-4-5") == "ANTHROPIC_API_KEY"
    assert api_key_env("claude-haiku-4-5") == "ANTHROPIC_API_KEY"
    assert api_key_env("groq:llama-3.3-70b") == "GROQ_API_KEY"
    assert api_key_env("offline") is None


# --- 429 -----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("api", APIS)
async def test_429_is_retried_by_the_sdk_then_reported(loopback: LoopbackServer, api: str) -> None:
    headers = {**FAST}
    err = (
        openai_error(429, "Rate limit reached for gpt-4o", type="requests", code="rate_limit_exceeded", headers=headers)
        if api == "openai"
        else anthropic_error(429, "rate_limit_error", "Number of requests exceeded", headers=headers)
    )
    loopback.script(err, err, err)
    out = await run_once(model_for(api, loopback), max_retries=2)
    assert isinstance(out.error, ex.ModelRateLimitError)
    assert [r.retry_count for r in loopback.requests] == [0, 1, 2]
    line, kind = out.describe(api)
    provider = "OpenAI" if api == "openai" else "Anthropic"
    assert line.startswith("rate limited by the server at 127.0.0.1:")  # a local base_url is named by host
    assert "(retried 2 times)" in line and provider not in line
    assert line.endswith("; try again shortly")
    assert kind == "provider"


async def test_openai_429_long_retry_after_is_not_slept_and_is_reported(loopback: LoopbackServer) -> None:
    """Retry-After beyond the OpenAI SDK's 2-minute cap: it does not sleep, it gives up at once."""
    err = openai_error(
        429, "Rate limit reached", type="requests", code="rate_limit_exceeded", headers={"retry-after": "300"}
    )
    loopback.script(err, err, err)
    out = await run_once(model_for("openai", loopback), max_retries=2)
    assert isinstance(out.error, ex.ModelRateLimitError)
    assert out.error.retry_after == 300
    assert loopback.count() == 1
    line, _ = out.describe("openai")
    assert line.endswith("(retried 0 times); try again in 300s")


async def test_anthropic_429_retry_after_is_reported(loopback: LoopbackServer) -> None:
    loopback.script(anthropic_error(429, "rate_limit_error", "slow down", headers={"retry-after": "42"}))
    out = await run_once(model_for("anthropic", loopback), max_retries=0)
    assert isinstance(out.error, ex.ModelRateLimitError)
    assert out.error.retry_after == 42
    assert out.describe("anthropic")[0].endswith("(retried 0 times); try again in 42s")


async def test_anthropic_sdk_sleeps_any_retry_after_so_a_first_event_deadline_bounds_it(
    loopback: LoopbackServer,
) -> None:
    """The Anthropic SDK sleeps whatever Retry-After says (no cap, unlike OpenAI's 2 minutes): only a
    pydantic-ai deadline over all attempts (`first_event_timeout`) stops a 5-minute silent wait."""
    err = anthropic_error(429, "rate_limit_error", "slow down", headers={"retry-after": "300"})
    loopback.script(err, err)
    out = await run_once(model_for("anthropic", loopback), max_retries=1, first_event_timeout=0.3)
    assert isinstance(out.error, ex.ModelRequestTimeout)
    assert out.error.setting == "first_event_timeout"
    assert loopback.count() == 1, "still sleeping on the Retry-After when the deadline hit"
    line, kind = out.describe("anthropic", base_url=loopback.anthropic_base_url)
    assert "no answer" in line and "0.3s" in line and kind == "network"


async def test_429_with_short_retry_after_succeeds_after_retry(loopback: LoopbackServer) -> None:
    from .loopback import Reply

    loopback.script(
        openai_error(429, "Rate limit", code="rate_limit_exceeded", headers={"retry-after": "0", **FAST}),
        Reply("recovered"),
    )
    out = await run_once(model_for("openai", loopback), max_retries=2)
    assert out.error is None and out.text == "recovered"
    assert [r.retry_count for r in loopback.requests] == [0, 1]


# --- 5xx -----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("status", "category"),
    [(500, ex.ModelServerError), (502, ex.ModelServerError), (503, ex.ModelUnavailableError)],
)
@pytest.mark.parametrize("api", APIS)
async def test_5xx_bounded_retries_then_clear_error(
    loopback: LoopbackServer, api: str, status: int, category: type
) -> None:
    err = (
        openai_error(status, "The server had an error", type="server_error", headers=FAST)
        if api == "openai"
        else anthropic_error(status, "api_error", "Internal server error", headers=FAST)
    )
    loopback.script(*[err] * 5)
    out = await run_once(model_for(api, loopback), max_retries=2)
    assert isinstance(out.error, category)
    assert loopback.count() == 3, "1 try + max_retries, then stop"
    assert loopback.pending == 2
    line, kind = out.describe(api)
    assert f"server error {status} after 2 retries" in line
    assert kind == "provider"


async def test_anthropic_529_overloaded(loopback: LoopbackServer) -> None:
    err = anthropic_error(529, "overloaded_error", "Overloaded", headers=FAST)
    loopback.script(err, err)
    out = await run_once(model_for("anthropic", loopback), max_retries=1)
    assert isinstance(out.error, ex.ModelOverloadedError)
    assert loopback.count() == 2
    line, _ = out.describe("anthropic")
    assert "server error 529 after 1 retry" in line and "overloaded" in line


async def test_5xx_without_retry_after_uses_sdk_backoff(loopback: LoopbackServer) -> None:
    """No header: the SDK's own exponential backoff runs (0.5 s base); one retry keeps this short."""
    err = openai_error(500, "boom", type="server_error")
    loopback.script(err, err, err)
    out = await run_once(model_for("openai", loopback), max_retries=1)
    assert isinstance(out.error, ex.ModelServerError)
    assert loopback.count() == 2


async def test_max_retries_zero_makes_one_attempt(loopback: LoopbackServer) -> None:
    err = openai_error(503, "unavailable", type="server_error", headers=FAST)
    loopback.script(err, err)
    out = await run_once(model_for("openai", loopback), max_retries=0)
    assert isinstance(out.error, ex.ModelUnavailableError)
    assert loopback.count() == 1
    assert "after 0 retries" in out.describe("openai")[0]


# --- broken streams -----------------------------------------------------------------------------------


@pytest.mark.parametrize("api", APIS)
async def test_stream_cut_midway_keeps_partial_text(loopback: LoopbackServer, api: str) -> None:
    loopback.script(CutStream("The answer begins"))
    out = await run_once(model_for(api, loopback))
    assert isinstance(out.error, ex.ModelConnectionError)
    assert out.error.phase == "read"
    assert out.text == "The answer begins", "the deltas before the cut reached the caller"
    assert loopback.count() == 1, "a stream that already started is not re-sent"
    line, kind = out.describe(api)
    assert line == "the response stream broke off: partial answer kept"
    assert kind == "network"
    assert describe_error(out.error, model_name=MODEL_NAMES[api], partial=False)[0].endswith(
        "before any answer arrived"
    )


@pytest.mark.parametrize("api", APIS)
async def test_malformed_chunk_keeps_partial_text(loopback: LoopbackServer, api: str) -> None:
    loopback.script(Malformed("Half an answer"))
    out = await run_once(model_for(api, loopback))
    assert isinstance(out.error, ex.ModelAPIError)
    assert "decode" in out.error.message
    assert out.text == "Half an answer"
    line, kind = out.describe(api)
    assert line.startswith("the response stream broke off: partial answer kept")
    assert kind == "provider"


@pytest.mark.parametrize("api", APIS)
async def test_malformed_plain_body(loopback: LoopbackServer, api: str) -> None:
    loopback.script(Malformed())
    out = await run_once(model_for(api, loopback), stream=False)
    assert isinstance(out.error, ex.ModelAPIError)
    line, _ = out.describe(api, partial=False)
    assert "malformed" in line and "\n" not in line


@pytest.mark.parametrize(
    ("api", "item", "category"),
    [
        ("openai", StreamError("Partial", error_type="server_error"), ex.ModelServerError),
        (
            "anthropic",
            StreamError("Partial", error_type="overloaded_error", message="Overloaded"),
            ex.ModelOverloadedError,
        ),
    ],
)
async def test_error_event_inside_stream(loopback: LoopbackServer, api: str, item: StreamError, category: type) -> None:
    loopback.script(item)
    out = await run_once(model_for(api, loopback))
    assert isinstance(out.error, category)
    assert out.error.in_stream
    assert out.text == "Partial"
    line, _ = out.describe(api)
    assert line.startswith("the response stream broke off: partial answer kept")


# --- transport failures ---------------------------------------------------------------------------------


@pytest.mark.parametrize("api", APIS)
async def test_connection_refused_one_line_with_host(refused_url: str, api: str) -> None:
    base = refused_url + ("/v1" if api == "openai" else "")
    out = await run_once(model_for(api, base_url=base), max_retries=0)
    assert isinstance(out.error, ex.ModelConnectionError)
    assert out.error.phase == "connect"
    line, kind = out.describe(api)
    host = refused_url.removeprefix("http://")
    assert line == f"cannot connect to {host}: connection refused (is the server running?)"
    assert kind == "network"


@pytest.mark.parametrize("api", APIS)
async def test_dns_failure_one_line_with_host(api: str) -> None:
    base = "http://co-tui-test.invalid" + ("/v1" if api == "openai" else "")
    out = await run_once(model_for(api, base_url=base), max_retries=0)
    assert isinstance(out.error, ex.ModelConnectionError)
    line, kind = out.describe(api)
    assert line == "cannot resolve host co-tui-test.invalid: check the base URL and your network"
    assert kind == "network"


@pytest.mark.parametrize("api", APIS)
async def test_attempt_timeout(loopback: LoopbackServer, api: str) -> None:
    loopback.script(Hang(5))  # the scenario: a server that never answers, and a 0.2 s limit per attempt
    out = await run_once(model_for(api, loopback), max_retries=0, timeout=0.2)
    assert isinstance(out.error, ex.ModelTimeoutError)
    line, kind = out.describe(api)
    assert line == f"timed out waiting for 127.0.0.1:{loopback.port} within 0.2s"
    assert kind == "network"


async def test_request_deadline_timeout(loopback: LoopbackServer) -> None:
    loopback.script(Hang(5))  # the scenario: a server that never answers, and a 0.2 s request deadline
    out = await run_once(model_for("openai", loopback), max_retries=0, request_timeout=0.2)
    assert isinstance(out.error, ex.ModelRequestTimeout)
    line, kind = out.describe("openai", base_url=loopback.openai_base_url)
    assert line == f"no complete answer from 127.0.0.1:{loopback.port} within 0.2s (gpt-4o): request timed out"
    assert kind == "network"


async def test_server_closes_without_answer_is_retried(loopback: LoopbackServer) -> None:
    loopback.script(Close(), Close(), Close())
    out = await run_once(model_for("openai", loopback), max_retries=1)
    assert isinstance(out.error, ex.ModelConnectionError)
    assert loopback.count() == 2
    line, kind = out.describe("openai")
    assert line == f"127.0.0.1:{loopback.port} closed the connection without answering"
    assert kind == "network"

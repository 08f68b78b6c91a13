"""Model resolution: provider strings, missing keys, missing SDKs, retries/timeouts, windows, lazy imports."""

from __future__ import annotations

import json

import pytest
from cli_process import run_python

from co_tui.agent.models import ModelConfigError, context_window_of, resolve_model
from co_tui.config import load_settings


@pytest.mark.parametrize(
    ("model", "variable"),
    [
        ("openai:gpt-5", "OPENAI_API_KEY"),
        ("openai-chat:gpt-4o", "OPENAI_API_KEY"),
        ("openai-responses:gpt-5", "OPENAI_API_KEY"),
        ("anthropic:claude-sonnet-4-5", "ANTHROPIC_API_KEY"),
        ("google-gla:gemini-2.5-flash", "GOOGLE_API_KEY"),
        ("google:gemini-2.5-flash", "GOOGLE_API_KEY"),
        ("groq:llama-3.3-70b-versatile", "GROQ_API_KEY"),
        ("mistral:mistral-large-latest", "MISTRAL_API_KEY"),
        ("ollama:llama3.2", "OLLAMA_BASE_URL"),
    ],
)
def test_missing_key_is_one_line_naming_the_variable(model: str, variable: str) -> None:
    with pytest.raises(ModelConfigError) as err:
        resolve_model(model, load_settings())
    message = str(err.value)
    assert message.startswith(f"{variable} is not set: export it")
    assert "--model offline" in message and "\n" not in message


def test_missing_key_of_a_provider_known_only_to_pydantic_ai(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(ModelConfigError, match=r"^DEEPSEEK_API_KEY is not set: export it or choose --model offline"):
        resolve_model("deepseek:deepseek-chat", load_settings())


def test_openai_base_url_without_key_is_accepted(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    model = resolve_model("openai-chat:local-model", load_settings())
    assert type(model).__name__ == "OpenAIChatModel"
    assert model.base_url.startswith("http://127.0.0.1:9/v1")


def test_ollama_uses_its_base_url(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OLLAMA_BASE_URL", "http://127.0.0.1:11434/v1")
    model = resolve_model("ollama:llama3.2", load_settings())
    assert type(model).__name__ == "OllamaModel" and model.base_url.startswith("http://127.0.0.1:11434")


def test_missing_optional_sdk_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("pydantic_ai")
    try:
        import google.genai
    except ImportError:
        pass
    else:
        pytest.skip("the google SDK is installed here")
    monkeypatch.setenv("GOOGLE_API_KEY", "test-key")
    with pytest.raises(ModelConfigError) as err:
        resolve_model("google-gla:gemini-2.5-flash", load_settings())
    assert str(err.value) == (
        "model google-gla:gemini-2.5-flash needs an optional SDK for google that is not "
        'installed: pip install "pydantic-ai-slim[google]"'
    )


@pytest.mark.parametrize(
    ("model", "expected"),
    [
        ("nosuch:thing", "unknown model provider 'nosuch' in 'nosuch:thing'"),
        ("claude-sonnet-4-5", "unknown model 'claude-sonnet-4-5' (did you mean anthropic:claude-sonnet-4-5?)"),
        ("gpt-5", "unknown model 'gpt-5' (did you mean openai:gpt-5?)"),
        ("openai:", "unknown model 'openai:'"),
        ("", "no model given"),
    ],
)
def test_bad_model_names_are_one_line(model: str, expected: str) -> None:
    with pytest.raises(ModelConfigError) as err:
        resolve_model(model, load_settings())
    assert str(err.value).startswith(expected) and "\n" not in str(err.value)


@pytest.mark.parametrize(
    ("model", "env", "cls"),
    [
        ("openai:gpt-5", "OPENAI_API_KEY", "OpenAIResponsesModel"),
        ("openai-chat:gpt-4o", "OPENAI_API_KEY", "OpenAIChatModel"),
        ("anthropic:claude-sonnet-4-5", "ANTHROPIC_API_KEY", "AnthropicModel"),
    ],
)
def test_retries_and_timeout_come_from_settings(
    monkeypatch: pytest.MonkeyPatch, model: str, env: str, cls: str
) -> None:
    monkeypatch.setenv(env, "test-key")
    resolved = resolve_model(model, load_settings(max_retries=5, request_timeout_s=7.5))
    assert type(resolved).__name__ == cls
    assert resolved.settings == {"max_retries": 5, "timeout": 7.5}
    assert resolved.model_name == model.split(":", 1)[1]


def test_context_window_from_the_profile(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    assert context_window_of(resolve_model("anthropic:claude-sonnet-4-5", load_settings())) == 200_000
    assert context_window_of(resolve_model("openai-chat:no-such-local-model", load_settings())) is None
    assert context_window_of(resolve_model("offline", load_settings())) == 32_000


@pytest.mark.slow
def test_importing_the_agent_layer_loads_no_sdk() -> None:
    code = (
        "import sys, json\n"
        "import co_tui.agent, co_tui.agent.models, co_tui.agent.factory, co_tui.agent.tools\n"
        "import co_tui.agent.workspace, co_tui.agent.shell, co_tui.agent.offline_intents\n"
        "import co_tui.agent.offline_replies\n"
        "import co_tui.agent.extractive\n"
        "heavy = ('pydantic_ai', 'openai', 'anthropic', 'httpx', 'httpx2', 'genai_prices')\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in heavy)))\n"
    )
    out = run_python(code)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout) == []


@pytest.mark.slow
def test_resolving_offline_loads_no_provider_sdk() -> None:
    code = (
        "import sys, json\n"
        "from co_tui.config import Settings\n"
        "from co_tui.agent.models import resolve_model\n"
        "resolve_model('offline', Settings())\n"
        "print(json.dumps(sorted({m.split('.')[0] for m in sys.modules} & {'openai', 'anthropic', 'pydantic_ai'})))\n"
    )
    out = run_python(
        code, env={"PATH": "/usr/bin:/bin", "CO_TUI_CONFIG_FILE": "/nonexistent/config.toml"}, inherit_env=False
    )
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout) == ["pydantic_ai"]


def test_one_provider_table_for_resolution_and_errors() -> None:
    """Resolution and error messages read one table (co_tui/agent/providers.py): a provider or a
    model family known to one is known to the other (they once had different aliases)."""
    from co_tui.agent.errors import api_key_env, provider_label
    from co_tui.agent.models import _unknown_model_message
    from co_tui.agent.providers import PROVIDERS

    for bare, key in (("chatgpt-4o-latest", "openai"), ("gemini-2.5-pro", "google"), ("claude-x", "anthropic")):
        assert f"did you mean {key}:{bare}?" in _unknown_model_message(bare)
        assert provider_label(bare) == PROVIDERS[key].label
    assert api_key_env("google-gla:gemini-2.5-pro") == "GOOGLE_API_KEY"
    assert api_key_env("openai-responses:gpt-5") == "OPENAI_API_KEY"

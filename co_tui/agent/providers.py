"""The providers co-tui knows by name: one table, read by model resolution (`models.py`: aliases,
the environment a provider needs, the hint for a bare model name) and by error messages
(`errors.py`: the provider's name, its API key variable, its official host).
docs/providers.md lists the same providers for users.

Any other pydantic-ai provider still works (`infer_model` knows it); it just gets no environment
check before the first request and generic wording in errors. No imports beyond the standard library:
the TUI imports this at start-up.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Provider", "PROVIDERS", "PROVIDER_ALIASES", "provider_of_prefix", "provider_of_bare_name"]


@dataclass(frozen=True)
class Provider:
    """One provider: `key` is its model-string prefix (`openai:…`), `prefixes` the other prefixes
    that reach the same API (`openai-chat:…`)."""

    key: str
    label: str  # how messages name it
    api_key_env: str | None  # the variable holding its API key
    host: str | None  # its official API host; another host is "the server at HOST"
    # Checked before the first request: one of these must be set (a base URL makes the key optional).
    required_env: tuple[str, ...] = ()
    prefixes: tuple[str, ...] = ()
    families: tuple[str, ...] = ()  # bare model names starting with these are its models (hints)


_TABLE = (
    Provider(
        "openai",
        "OpenAI",
        "OPENAI_API_KEY",
        "api.openai.com",
        ("OPENAI_API_KEY", "OPENAI_BASE_URL"),
        ("openai-chat", "openai-responses"),
        ("gpt", "o1", "o3", "o4", "chatgpt"),
    ),
    Provider(
        "anthropic", "Anthropic", "ANTHROPIC_API_KEY", "api.anthropic.com", ("ANTHROPIC_API_KEY",), (), ("claude",)
    ),
    Provider("ollama", "Ollama", None, None, ("OLLAMA_BASE_URL",), (), ("llama", "qwen")),
    Provider(
        "google",
        "Google",
        "GOOGLE_API_KEY",
        "generativelanguage.googleapis.com",
        ("GOOGLE_API_KEY", "GEMINI_API_KEY"),
        ("google-gla",),
        ("gemini",),
    ),
    Provider("groq", "Groq", "GROQ_API_KEY", "api.groq.com", ("GROQ_API_KEY",)),
    Provider("mistral", "Mistral", "MISTRAL_API_KEY", "api.mistral.ai", ("MISTRAL_API_KEY",)),
    Provider("openrouter", "OpenRouter", "OPENROUTER_API_KEY", "openrouter.ai"),
    Provider("deepseek", "DeepSeek", "DEEPSEEK_API_KEY", "api.deepseek.com"),
    Provider("cohere", "Cohere", "CO_API_KEY", "api.cohere.com"),
)

PROVIDERS: dict[str, Provider] = {p.key: p for p in _TABLE}

# Older pydantic-ai provider names still in people's configs, mapped to the 2.x names.
PROVIDER_ALIASES = {"google-gla": "google", "google-vertex": "google-cloud"}

_BY_PREFIX: dict[str, Provider] = {prefix: p for p in _TABLE for prefix in (p.key, *p.prefixes)}


def provider_of_prefix(prefix: str) -> Provider | None:
    """The provider a model-string prefix (`openai-chat`, `google-gla`, …) reaches, if known."""
    return _BY_PREFIX.get(prefix)


def provider_of_bare_name(name: str) -> Provider | None:
    """The provider whose models are named like `name` (`claude-…` → Anthropic), if any."""
    lowered = name.lower()
    return next((p for p in _TABLE if p.families and lowered.startswith(p.families)), None)

"""Real pydantic-ai models pointed at a loopback server (no mocks of the client)."""

from __future__ import annotations

from typing import Any


def openai_chat_model(base_url: str, name: str = "gpt-4o", *, api_key: str = "sk-test") -> Any:
    """`OpenAIChatModel` with an `OpenAIProvider(base_url=..., api_key=...)`, as a user configures one."""
    from pydantic_ai.models.openai import OpenAIChatModel
    from pydantic_ai.providers.openai import OpenAIProvider

    return OpenAIChatModel(name, provider=OpenAIProvider(base_url=base_url, api_key=api_key))


def anthropic_model(base_url: str, name: str = "claude-sonnet-4-6", *, api_key: str = "sk-ant-test") -> Any:
    """`AnthropicModel` with an `AnthropicProvider(base_url=..., api_key=...)`."""
    from pydantic_ai.models.anthropic import AnthropicModel
    from pydantic_ai.providers.anthropic import AnthropicProvider

    return AnthropicModel(name, provider=AnthropicProvider(base_url=base_url, api_key=api_key))

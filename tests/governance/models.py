"""FunctionModel helpers: a chat model that can also answer summarisation requests."""

from __future__ import annotations

from dataclasses import dataclass, field

from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, UserPromptPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from co_tui.governance.summarize import is_summarization_request


def last_user_text(messages: list[ModelMessage]) -> str:
    """The newest user prompt text (pydantic-ai may add its own lookalike-tag notes: skip those)."""
    texts = [
        part.content
        for message in messages
        for part in getattr(message, "parts", [])
        if isinstance(part, UserPromptPart) and isinstance(part.content, str)
    ]
    framed = [t for t in texts if "<conversation>" in t]
    return (framed or texts or [""])[-1]


@dataclass
class ScriptedModel:
    """Answers chat requests with `reply`; summarisation requests with `summary` (or raises `fail`).

    Records every request it saw, split into chat and summariser calls.
    """

    reply: str = "ok"
    summary: str = "SUMMARY: the user and the agent discussed earlier tasks."
    fail: Exception | None = None
    chat_calls: list[list[ModelMessage]] = field(default_factory=list)
    summary_calls: list[tuple[list[ModelMessage], AgentInfo]] = field(default_factory=list)

    def __call__(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        if is_summarization_request(info):
            self.summary_calls.append((messages, info))
            if self.fail is not None:
                raise self.fail
            return ModelResponse(parts=[TextPart(self.summary)])
        self.chat_calls.append(messages)
        return ModelResponse(parts=[TextPart(self.reply)])

    async def stream(self, messages: list[ModelMessage], info: AgentInfo):
        response = self(messages, info)
        yield response.parts[0].content

    def model(self) -> FunctionModel:
        return FunctionModel(self, stream_function=self.stream, model_name="scripted")

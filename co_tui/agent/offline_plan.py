"""What the offline model answers (offline.py): the reply to one request, decided from its
messages — tool calls for `list .`, `read …`, `search …`, results told back, extractive summaries
and recaps, canned replies. Deterministic.

Loaded by the model's first request (`offline.plan`): building the model for a session needs
none of it (the intents' patterns, the replies and the summariser are ~10 ms of imports).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    RetryPromptPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from pydantic_ai.models.function import AgentInfo

from co_tui.agent.extractive import (
    HEADER,
    budget_from_text,
    digest_messages,
    digest_text,
    focus_text,
    focus_words,
    key_sentences,
    prompt_text,
    summarize,
)
from co_tui.agent.mentions import split_attachments
from co_tui.agent.offline_intents import SLOW_DELAY_S, Intent, parse_intent
from co_tui.agent.offline_replies import (
    ToolOutcome,
    answer_from_results,
    canned_reply,
    unavailable_tool_reply,
)
from co_tui.governance.markers import MARKER_PREFIXES
from co_tui.governance.tokens import estimate_text_tokens, estimate_tokens

# Not the user's words: governance's markers, and pydantic-ai's notes wrapped as `<system>` user text
# (e.g. "The following tool(s) are now available: `recall`" when a tool joins mid-run).
NOT_PROMPTS = (*MARKER_PREFIXES, "<system>")

_SUMMARY_WORDS = re.compile(r"summar|compact", re.I)


@dataclass(frozen=True)
class Call:
    """A tool call the offline model makes."""

    tool: str
    args: dict[str, Any]
    call_id: str


@dataclass(frozen=True)
class Reply:
    """What the offline model answers to one request: text, or tool calls."""

    text: str = ""
    calls: tuple[Call, ...] = ()
    delay_s: float = 0.0


# --- deciding what to say -------------------------------------------------------------------------


def plan_reply(messages: Sequence[ModelMessage], info: AgentInfo, configured_delay_s: float = 0.0) -> Reply:
    """The reply to the request that ends `messages`. Deterministic; never calls tools twice in a row.

    `configured_delay_s`: seconds per chunk from CO_TUI_OFFLINE_DELAY (`offline.configured_delay`);
    0 leaves the prompt's own (`slow`) or none."""
    tool_names = [t.name for t in info.function_tools]
    prompt = latest_prompt(messages)
    attached, own = split_attached(prompt)
    typed, mentioned = split_attachments(own)
    intent = parse_intent(typed.replace(" @", " ").removeprefix("@"))  # what was typed, not the files attached
    delay = configured_delay_s or (SLOW_DELAY_S if intent.slow else 0.0)
    outcomes = tool_outcomes(messages)
    if outcomes:
        return Reply(text=answer_from_results(outcomes), delay_s=delay)
    if is_summarization_request(info, prompt):
        limit = (info.model_settings or {}).get("max_tokens")
        return Reply(text=extractive_summary(messages, info.instructions or "", prompt, limit), delay_s=delay)
    if mentioned and (intent.kind in ("recall", "question", "chat") or _all_attached(intent, mentioned)):
        # `explain @README.md`, `summarise @notes.md`: what the prompt attached (agent/mentions.py).
        return Reply(text=mentioned_summary(mentioned), delay_s=delay)
    if intent.kind == "tools":
        missing = [a.tool for a in intent.actions if a.tool not in tool_names]
        if missing:
            return Reply(text=unavailable_tool_reply(missing[0], tool_names), delay_s=delay)
        seed = _call_seed(messages, prompt)
        calls = tuple(Call(a.tool, a.args, f"offline-{seed}-{i}") for i, a in enumerate(intent.actions))
        return Reply(calls=calls, delay_s=delay)
    if attached is not None and intent.kind in ("recall", "question"):
        # `cat notes.txt | co-tui -p "summarise this"`: the text piped in, not the conversation.
        return Reply(text=attached_summary(attached), delay_s=delay)
    if intent.kind in ("recall", "question", "chat") and "recall" in tool_names:
        from co_tui.agent.offline_recall import child_recall_args

        # Asked about a subagent's work ("what did explore-1 read?"): its transcript (docs/subagents.md).
        if (args := child_recall_args(prompt, messages)) is not None:
            return Reply(calls=(Call("recall", args, f"offline-{_call_seed(messages, prompt)}-0"),), delay_s=delay)
    if intent.kind in ("recall", "question") and "recall" in tool_names:
        from co_tui.agent.offline_recall import recall_args

        # Asked about a file that was cut from view: read it back (agent/offline_recall.py).
        if (args := recall_args(prompt, messages)) is not None:
            return Reply(calls=(Call("recall", args, f"offline-{_call_seed(messages, prompt)}-0"),), delay_s=delay)
    if intent.kind == "recall":
        return Reply(text=recap(messages[:-1]), delay_s=delay)
    return Reply(text=canned_reply(intent, prompt, tool_names), delay_s=delay)


_ATTACHED = re.compile(r"\A<stdin>\n(?P<text>.*)\n</stdin>\n\n(?P<prompt>.*)\Z", re.S)


def split_attached(prompt: str) -> tuple[str | None, str]:
    """(the text print mode attached from stdin, the prompt typed after it); (None, prompt) without one."""
    match = _ATTACHED.match(prompt)
    if match is None:
        return None, prompt
    return match.group("text"), match.group("prompt")


def _all_attached(intent: Intent, mentioned: list[tuple[str, str]]) -> bool:
    """Whether the tools the prompt asks for would only read what it already attached."""
    paths = {path.rstrip("/") for path, _ in mentioned}
    return intent.kind == "tools" and all(
        a.tool in ("read_file", "list_dir") and str(a.args.get("path", "")).rstrip("/") in paths for a in intent.actions
    )


def mentioned_summary(attached: list[tuple[str, str]]) -> str:
    """What the attached paths hold: each one's first line (what `read_file` or `list_dir` said of
    it) and its key sentences."""
    parts = []
    for _path, text in attached:
        head, _, body = text.partition("\n")
        picked = key_sentences(body, max(200, min(800, len(body) // 5))) or body[:200]
        parts.append(f"- {head}. In short: {picked}")
    return "From what you attached:\n" + "\n".join(parts)


def attached_summary(text: str) -> str:
    """An extractive summary of text piped in: its size and its key sentences."""
    lines = text.count("\n") + 1
    picked = key_sentences(text, max(200, min(1_500, len(text) // 5)))
    return f"The text you attached ({lines:,} lines, {len(text):,} characters), in short: {picked or text[:200]}"


def is_summarization_request(info: AgentInfo, prompt: str) -> bool:
    """A summariser's request: governance's summary or `/compact` agent, or any tool-less agent asked to summarise.

    The main agent always has tools, so "summarise README.md" typed by the user is a file request.
    """
    from co_tui.governance.summarize import is_summarization_request as is_governance_request

    if is_governance_request(info):
        return True
    return not info.function_tools and bool(_SUMMARY_WORDS.search(f"{info.instructions or ''}\n{prompt}"))


def extractive_summary(
    messages: Sequence[ModelMessage], instructions: str, prompt: str, max_tokens: int | None = None
) -> str:
    """The summary of the conversation in `messages` (given as history) and/or in the prompt's text.

    `max_tokens` (the request's `max_tokens` setting): the summary's estimate stays within it, as a
    provider caps a real model's answer — the character budget the prompt asks for is shrunk until it does.
    """
    digest = digest_messages(messages[:-1])
    from_text = digest_text(prompt)
    digest.turns += from_text.turns
    digest.earlier += from_text.earlier
    digest.prose = from_text.prose if not digest.turns else ""
    source_chars = sum(
        len(prompt_text(p.content))
        for m in messages
        if isinstance(m, ModelRequest)
        for p in m.parts
        if isinstance(p, UserPromptPart)
    )
    request_text = f"{instructions}\n{prompt}"
    budget, focus = budget_from_text(request_text, source_chars), focus_words(request_text)
    text = summarize(digest, budget, focus, focus_text(request_text))
    while max_tokens and (tokens := estimate_text_tokens(text)) > max_tokens and budget > len(HEADER):
        budget = min(budget - 1, int(budget * max_tokens / tokens * 0.95))
        text = summarize(digest, budget, focus, focus_text(request_text))
    return text


def recap(messages: Sequence[ModelMessage]) -> str:
    """The answer to "what did we do so far?": an extractive view of the visible context."""
    digest = digest_messages(messages)
    if not digest.turns and not digest.earlier:
        return "Nothing yet: this is the start of our conversation (as far as my context shows)."
    note = ""
    if digest.earlier:
        note = (
            " Part of the conversation was trimmed or summarised to fit the context budget; that work did "
            "happen, and the markers below are what remains of it."
        )
    return f"Here is what I can see of our conversation.{note}\n\n" + summarize(digest, 4_000)


def latest_prompt(messages: Sequence[ModelMessage]) -> str:
    """The newest real user prompt (markers inserted by the context policy are skipped)."""
    for message in reversed(messages):
        if isinstance(message, ModelRequest):
            for part in reversed(message.parts):
                if isinstance(part, UserPromptPart):
                    text = prompt_text(part.content)
                    if not text.startswith(NOT_PROMPTS):
                        return text
    return ""


def tool_outcomes(messages: Sequence[ModelMessage]) -> list[ToolOutcome]:
    """The tool results in the request that ends `messages`, paired with their calls' arguments.

    Empty when that request also carries a new user prompt: after an interrupted tool call the
    repaired history ends with the call's synthesized result, and the next run fuses the user's new
    prompt into that same request; the prompt is what asks for an answer then, not the old result.
    """
    if not messages or not isinstance(messages[-1], ModelRequest):
        return []
    if _has_new_prompt(messages[-1]):
        return []
    calls: dict[str, dict[str, Any]] = {}
    for message in reversed(messages[:-1]):
        if isinstance(message, ModelResponse):
            calls = {p.tool_call_id: p.args_as_dict() for p in message.parts if isinstance(p, ToolCallPart)}
            break
    outcomes: list[ToolOutcome] = []
    for part in messages[-1].parts:
        if isinstance(part, ToolReturnPart):
            outcomes.append(
                ToolOutcome(
                    part.tool_name,
                    calls.get(part.tool_call_id, {}),
                    part.model_response_str(wrap_if_error=False),
                    part.outcome,
                )
            )
        elif isinstance(part, RetryPromptPart) and part.tool_name:
            content = part.content if isinstance(part.content, str) else part.model_response()
            outcomes.append(ToolOutcome(part.tool_name, calls.get(part.tool_call_id, {}), content, "retry"))
    return outcomes


def _has_new_prompt(request: ModelRequest) -> bool:
    return any(
        isinstance(p, UserPromptPart) and not prompt_text(p.content).startswith(NOT_PROMPTS) for p in request.parts
    )


def _call_seed(messages: Sequence[ModelMessage], prompt: str) -> str:
    """A short deterministic id stem: same history and prompt → same tool call ids."""
    material = f"{len(messages)}|{prompt}|{estimate_tokens(list(messages))}"
    return hashlib.sha1(material.encode(), usedforsecurity=False).hexdigest()[:8]

"""A session whose pinned turns no longer fit its budget (resumed under a smaller one) says so once
and makes no cut, turn after turn (issue 33; governance/policy.py). A real SQLite store."""

from __future__ import annotations

from pathlib import Path

from pydantic_ai.messages import UserPromptPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from co_tui.config import load_settings
from co_tui.session.chat import ChatSession
from co_tui.session.opening import resume_session
from co_tui.store.session_store import SessionStore


def echo_model() -> FunctionModel:
    async def stream(messages, info: AgentInfo):
        prompt = next(p.content for p in messages[-1].parts if isinstance(p, UserPromptPart))
        yield f"noted: {prompt[:200]}"

    return FunctionModel(stream_function=stream, model_name="echo")


async def _turn(chat: ChatSession, prompt: str) -> list:
    return [event async for event in chat.run_turn(prompt)]


async def test_pins_over_a_smaller_budget_are_said_once_and_nothing_is_cut(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    with SessionStore.open(tmp_path / "data") as store:
        roomy = load_settings(context_budget_tokens=40_000, max_history_messages=0)
        first = ChatSession(roomy, workspace=workspace, model=echo_model(), store=store)
        await _turn(first, "The spec, keep it: " + "the parser must accept tabs. " * 400)
        await first.pin_newest()
        first.release_claim()

        small = load_settings(context_budget_tokens=2_000, max_history_messages=0)
        chat = resume_session(small, workspace=workspace, store=store, session_id=first.id, model=echo_model())
        events = []
        for i in range(6):
            events += await _turn(chat, f"question {i}: " + "what about this case? " * 40)
        notices = [e.message for e in events if e.type == "notice"]
        assert len(notices) == 1, notices
        assert "Pinned turns hold ~" in notices[0] and "2k-token budget" in notices[0] and "\n" not in notices[0]
        assert [e for e in events if e.type == "history_trimmed"] == [], "no cut that cannot get under the budget"
        assert not [e for e in events if e.type == "error"]
        chat.release_claim()

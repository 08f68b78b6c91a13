"""The agent factory: instructions (not system prompts), tools per settings, capabilities passed through."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from pydantic_ai.capabilities import AbstractCapability
from pydantic_ai.messages import ModelRequest, SystemPromptPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from co_tui.agent.factory import agent_instructions, build_agent
from co_tui.config import load_settings


def recording_model(seen: list[AgentInfo]) -> FunctionModel:
    async def stream(messages, info: AgentInfo):
        seen.append(info)
        yield "ok"

    return FunctionModel(stream_function=stream, model_name="recorder")


async def test_instructions_not_system_prompt(run_turn, workspace: Path) -> None:
    seen: list[AgentInfo] = []
    agent = build_agent(load_settings(), workspace=workspace, model=recording_model(seen))
    turn = await run_turn(agent, "hi")
    (info,) = seen
    assert str(workspace.resolve()) in info.instructions
    assert "[Earlier conversation trimmed" in info.instructions and "[Summary of" in info.instructions
    assert "never deny having done it" in info.instructions
    assert not any(
        isinstance(p, SystemPromptPart) for m in turn.messages if isinstance(m, ModelRequest) for p in m.parts
    )


async def test_tools_follow_allow_shell(run_turn, workspace: Path) -> None:
    for allow_shell, allow_edits, expected in [
        (False, False, ["list_dir", "read_file", "search_text"]),
        (True, False, ["list_dir", "read_file", "run_shell", "search_text"]),
        (False, True, ["edit_file", "list_dir", "read_file", "search_text", "write_file"]),
    ]:
        seen: list[AgentInfo] = []
        settings = load_settings(allow_shell=allow_shell, allow_edits=allow_edits)
        agent = build_agent(settings, workspace=workspace, model=recording_model(seen))
        await run_turn(agent, "hi")
        assert sorted(t.name for t in seen[0].function_tools) == expected
        assert ("with run_shell" in seen[0].instructions) is allow_shell
        assert ("write_file (a whole file" in seen[0].instructions) is allow_edits


def test_instruction_wording_depends_on_shell(tmp_path: Path) -> None:
    assert "cannot run shell commands" in agent_instructions(tmp_path, allow_shell=False)
    assert "approves or declines every command" in agent_instructions(tmp_path, allow_shell=True)


@dataclass
class CountingCapability(AbstractCapability):
    """Counts the model requests it sees (a stand-in for the governance capability)."""

    requests: int = 0

    async def before_model_request(self, ctx, request_context):
        self.requests += 1
        return request_context


async def test_capabilities_are_installed(run_turn, workspace: Path) -> None:
    from co_tui.agent.models import resolve_model

    settings = load_settings()
    capability = CountingCapability()
    agent = build_agent(
        settings, workspace=workspace, model=resolve_model("offline", settings), capabilities=[capability]
    )
    await run_turn(agent, "read README.md")
    assert capability.requests == 2  # the tool call, then the answer

"""A policy pass over a large history runs its zero-LLM work off the event loop (`Governor.offload`),
with the same result and the same events in the same order as inline."""

import asyncio
import copy
import threading

import pytest
from pydantic_ai import Agent
from support.builders import chat_turn, system, tool_turn

from co_tui.governance import GovernancePolicy, Governor, estimate_tokens
from co_tui.governance import policy as policy_module
from co_tui.governance.capability import ContextGovernance
from co_tui.governance.policy import OFFLOAD_MIN_MESSAGES
from co_tui.governance.tokens import part_text

from .models import ScriptedModel
from .synthetic import make_text
from .test_capability import run_events


def _large_history() -> list:
    msgs = [system()]
    t = 0
    while len(msgs) < OFFLOAD_MIN_MESSAGES + 40:
        msgs += tool_turn(f"task {t}", [make_text("logs", 2500, t * 3 + i) for i in range(3)], id_prefix=f"t{t}-")
        msgs += chat_turn(f"q{t}", make_text("prose", 600, t))
        t += 1
    return msgs


def _shape(messages: list) -> list:
    return [(type(m).__name__, [(p.part_kind, part_text(p)) for p in m.parts]) for m in messages]


class _Recorder:
    """An offload that runs each call in a thread and records which thread ran it."""

    def __init__(self) -> None:
        self.threads: list[int] = []

    async def __call__(self, call):  # noqa: ANN001, ANN204 — the `Offload` shape
        def wrapped():  # noqa: ANN202
            self.threads.append(threading.get_ident())
            return call()

        return await asyncio.to_thread(wrapped)


@pytest.mark.parametrize("max_messages", [10**9, 120])  # token cut only; message and token cuts
async def test_offloaded_pass_equals_inline(max_messages: int):
    history = _large_history()
    before = copy.deepcopy(history)
    budget = estimate_tokens(history) // 3
    policy = GovernancePolicy(budget_tokens=budget, strategy="trim", max_history_messages=max_messages)
    inline = await Governor(policy).apply(history, overhead_tokens=120)
    recorder = _Recorder()
    offloaded = await Governor(policy, offload=recorder).apply(history, overhead_tokens=120)
    assert inline.events and inline.changed
    assert _shape(offloaded.messages) == _shape(inline.messages)  # the breadcrumbs' timestamps differ
    assert offloaded.events == inline.events  # same events, same order
    assert (offloaded.fits, offloaded.tokens) == (inline.fits, inline.tokens)
    loop_thread = threading.get_ident()
    assert recorder.threads and loop_thread not in recorder.threads
    assert history == before  # never mutated, on either path


async def test_small_history_stays_inline():
    history = _large_history()[: OFFLOAD_MIN_MESSAGES - 1]
    recorder = _Recorder()
    policy = GovernancePolicy(budget_tokens=estimate_tokens(history) // 3, strategy="trim")
    outcome = await Governor(policy, offload=recorder).apply(history)
    assert outcome.changed and recorder.threads == []


async def test_capability_segments_a_large_history_off_the_loop(monkeypatch: pytest.MonkeyPatch):
    seen: list[int] = []
    real = policy_module.segment

    def spy(messages):  # noqa: ANN001, ANN202
        seen.append(threading.get_ident())
        return real(messages)

    monkeypatch.setattr(policy_module, "segment", spy)
    history = _large_history()
    model = ScriptedModel(reply="fine")
    cap = ContextGovernance(GovernancePolicy(budget_tokens=estimate_tokens(history) // 3, strategy="trim"))
    agent = Agent(model.model(), capabilities=[cap])
    cap.begin_run(len(history))
    events, messages, error = await run_events(agent, "hello", history)
    assert error is None and [e.trimmed.strategy for e in events][-1] == "turn_trim"
    assert seen and threading.get_ident() not in seen
    assert messages is not None and messages[-1].parts[0].content == "fine"

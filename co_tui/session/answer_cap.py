"""The cap on one streamed answer (`max_answer_chars`): a model that streams without end (20 MB took
692 MB and 15 s; 200 MB did not finish) is stopped at the cap, and the answer says so.

`AnswerCap` counts a response's text as it streams and says where to stop; `capped_history` makes the
kept response end where the shown one did, with the same line, so the transcript, the context the
model sees next and a resumed view all agree with what was streamed. Pure: no I/O, no mutation.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from pydantic_ai.messages import ModelMessage, ModelResponse, ModelResponsePart, TextPart

__all__ = ["AnswerCap", "cap_line", "cap_notice", "capped_history", "over_cap", "stopped_over_cap_notice"]


def cap_line(cap: int) -> str:
    """The line that ends a capped answer (shown, kept in the transcript, sent to the model next)."""
    return f"\n\n[answer stopped at {cap:,} characters: max_answer_chars]"


def cap_notice(cap: int) -> str:
    """The one-line notice of a capped answer."""
    return (
        f"the answer reached {cap:,} characters (max_answer_chars) and its stream was stopped; what came before is kept"
    )


def stopped_over_cap_notice(cap: int) -> str:
    """The one-line notice of an answer stopped by the user whose kept text was past the cap."""
    return (
        f"the stopped answer had passed {cap:,} characters (max_answer_chars) by the time it stopped; "
        "what is kept ends at the cap, as a finished answer's would"
    )


def over_cap(messages: list[ModelMessage], cap: int) -> bool:
    """Whether the last message is a response whose text is longer than `cap` characters (0: no
    cap, never): a run stopped by the user may keep text that arrived after the last delta shown."""
    if not cap or not messages or not isinstance(messages[-1], ModelResponse):
        return False
    return sum(len(p.content) for p in messages[-1].parts if isinstance(p, TextPart)) > cap


@dataclass
class AnswerCap:
    """Counts one response's streamed text against `cap` characters (0: no cap). `reset()` when a
    new response starts (after a tool call)."""

    cap: int
    chars: int = 0
    reached: bool = False
    taken: list[str] = field(default_factory=list)  # this response's text so far (at most `cap`)

    def take(self, text: str) -> str:
        """The part of `text` (the next delta) within the cap; sets `reached` when the cap cuts it."""
        if not self.cap or self.reached:
            return "" if self.reached else text
        room = self.cap - self.chars
        if len(text) > room:
            text, self.reached = text[: max(room, 0)], True
        self.chars += len(text)
        if self.cap:
            self.taken.append(text)
        return text

    def reset(self) -> None:
        """A new response: its text counts from zero."""
        self.chars = 0
        self.taken.clear()

    @property
    def shown(self) -> str:
        """This response's text as streamed (within the cap)."""
        return "".join(self.taken)


def capped_history(messages: list[ModelMessage], cap: int, shown: str) -> list[ModelMessage]:
    """`messages` of a run stopped at the cap, its last response's text cut to `cap` characters with
    `cap_line` after it (text parts past the cut dropped, other parts kept). When the run kept no
    partial response, one holding `shown` (the answer as streamed) ends the history. New messages and
    parts: the inputs are unchanged."""
    if not messages or not isinstance(messages[-1], ModelResponse):
        return [*messages, ModelResponse(parts=[TextPart(content=shown + cap_line(cap))])]
    last = messages[-1]
    parts: list[ModelResponsePart] = []
    left, ended = cap, False
    for part in last.parts:
        if not isinstance(part, TextPart):
            parts.append(part)
        elif not ended and len(part.content) >= left:
            parts.append(replace(part, content=part.content[:left] + cap_line(cap)))
            ended = True
        elif not ended:
            parts.append(part)
            left -= len(part.content)
    if not ended:  # the delta that crossed the cap was not kept: the line ends the answer anyway
        parts.append(TextPart(content=cap_line(cap).lstrip("\n")))
    return [*messages[:-1], replace(last, parts=parts)]

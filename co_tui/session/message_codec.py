"""Messages to and from the store's rows: one `ModelMessagesTypeAdapter` JSON object per row.

A row body is the adapter's JSON for a one-message list with the brackets stripped, so a whole
transcript decodes in one call (`"[" + ",".join(bodies) + "]"`). Bodies are scrubbed of credentials
(`co_tui/redaction.py`) before they are hashed and written. pydantic-ai is imported lazily (start-up time).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from typing import Any

from co_tui.redaction import redact_text, scrub_message


def digest(body: str) -> bytes:
    """The content address of a row body (equal bodies, equal digests)."""
    return hashlib.blake2b(body.encode("utf-8"), digest_size=16).digest()


def encode_messages(messages: Sequence[Any], secrets: tuple[str, ...]) -> list[tuple[str, str, bytes]]:
    """`(kind, body, digest)` per message, with credentials removed (`scrub_message`, `redact_text`).
    Never fails on text: a surrogate UTF-8 cannot encode is written mended (U+FFFD for a lone half)."""
    if not messages:
        return []
    from pydantic_ai.messages import ModelMessagesTypeAdapter
    from pydantic_core import PydanticSerializationError

    out = []
    for message in messages:
        scrubbed = [scrub_message(message)]
        try:
            body = ModelMessagesTypeAdapter.dump_json(scrubbed).decode("utf-8")[1:-1]
        except PydanticSerializationError:  # a lone surrogate UTF-8 cannot hold: the save must not fail on text
            body = _mended_json(ModelMessagesTypeAdapter.dump_python(scrubbed, mode="json"))[1:-1]
        body = redact_text(body, secrets)
        out.append((getattr(message, "kind", "?"), body, digest(body)))
    return out


def _mended_json(value: Any) -> str:
    """`value` (JSON-ready) as compact JSON with its surrogates mended (`text.mend_surrogates`):
    a pair joined, a lone half as U+FFFD, so the body is valid UTF-8."""
    import json

    from co_tui.text import mend_surrogates

    return mend_surrogates(json.dumps(value, ensure_ascii=False, separators=(",", ":")))


def decode_bodies(bodies: Sequence[Any], labels: Sequence[str], damaged: Callable[[str], Exception]) -> list[Any]:
    """Decode row bodies in one pass; on failure raise `damaged("<label> cannot be decoded (why)")`
    for the first bad one (`labels[i]` names row i)."""
    if not bodies:
        return []
    from pydantic import ValidationError
    from pydantic_ai.messages import ModelMessagesTypeAdapter

    try:
        if all(isinstance(b, str) for b in bodies):
            return list(ModelMessagesTypeAdapter.validate_json("[" + ",".join(bodies) + "]"))
    except (ValidationError, ValueError):
        pass  # find the culprit below
    out = []
    for label, body in zip(labels, bodies, strict=False):
        try:
            if not isinstance(body, str):
                raise ValueError(f"stored as {type(body).__name__}, not text")
            out.append(ModelMessagesTypeAdapter.validate_json("[" + body + "]")[0])
        except (ValidationError, ValueError, IndexError) as exc:
            reason = exc.errors()[0]["msg"] if isinstance(exc, ValidationError) else str(exc)
            raise damaged(f"{label} cannot be decoded ({reason})") from None
    return out

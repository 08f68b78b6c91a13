"""The data tags governance frames text with (`pydantic_ai.framing.register_tag`), registered when
the governance capability loads.

pydantic-ai asks for registration at import time: a tag registered after any text was escaped
changes how later requests escape text (bytes a provider may have cached) and warns. The summary
request wraps the conversation in `CONVERSATION_TAG` (summarize.py), and summarize.py loads only at
the first cut or `/compact`, long after a request may have escaped a tool's name, so the tag lives
here, imported with the capability.
"""

from __future__ import annotations

from pydantic_ai.framing import register_tag

__all__ = ["CONVERSATION_TAG"]

CONVERSATION_TAG = register_tag("conversation")

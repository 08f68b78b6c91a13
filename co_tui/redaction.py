"""Keep credentials out of what is written to disk.

Messages do not carry API keys, but two fields could smuggle one in: `provider_details` (free-form
provider data: a proxy or a future SDK could echo request headers there) and `provider_url` (a base
URL may embed `user:key@` or `?key=`). Besides those, the literal value of every secret-looking
environment variable (`*_API_KEY`, `*TOKEN*`, …) is replaced in the serialised text, whatever field
it reached (a tool that printed the environment, a pasted key), and so is every value co-tui gave an
MCP server in its `env` or `headers` (`add_secrets`), whatever its name.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import replace
from typing import Any
from urllib.parse import urlsplit, urlunsplit

REDACTED = "[redacted]"

# Environment variable names whose values are credentials.
_SECRET_ENV_NAME = re.compile(r"(API_?KEY|_KEY$|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|AUTH)", re.IGNORECASE)
# Keys inside provider_details whose values must not be stored, at any depth.
_SECRET_FIELD = re.compile(r"(header|authori[sz]ation|api[-_]?key|cookie|secret|token|password|credential)", re.I)
# Shorter values would redact ordinary words ("true", "1234") all over the transcript.
_MIN_SECRET_LEN = 8


_names_cache: tuple[tuple[str, ...], tuple[str, ...]] = ((), ())
_given: set[str] = set()  # add_secrets'


def add_secrets(values: Iterable[str]) -> None:
    """Treat each of `values` as a credential from now on (an MCP server's configured `env` and
    `headers` values): `secret_env_values` returns them too. A value is also split at whitespace, so
    the token of `Bearer sk-…` is one; parts shorter than 8 characters are ignored."""
    for value in values:
        for part in (value, *str(value).split()):
            if len(part.strip()) >= _MIN_SECRET_LEN:
                _given.add(part.strip())


def secret_env_values(environ: Mapping[str, str] | None = None) -> tuple[str, ...]:
    """Values of environment variables that look like credentials, longest first; without `environ`
    (this process's own), those of `add_secrets` too.

    Which names match is cached while the set of names stays the same (values are always read
    fresh), so a save does not run the patterns over the whole environment every turn.
    """
    global _names_cache
    env = os.environ if environ is None else environ
    all_names = tuple(env)
    if all_names == _names_cache[0]:
        names = _names_cache[1]
    else:
        names = tuple(k for k in all_names if _SECRET_ENV_NAME.search(k))
        _names_cache = (all_names, names)
    values = {v.strip() for v in (env.get(k, "") for k in names) if len(v.strip()) >= _MIN_SECRET_LEN}
    if environ is None:  # this process's secrets: those it gave MCP servers too
        values |= _given
    return tuple(sorted(values, key=len, reverse=True))


def redact_text(text: str, secrets: tuple[str, ...]) -> str:
    """`text` with every occurrence of each secret replaced by `[redacted]`.

    `text` may be JSON: a secret holding `"`, `\\`, control or non-ASCII characters appears there
    escaped (`\\"`, `\\u0001`…), so its escaped spellings are replaced too.
    """
    for secret in secrets:
        for form in _spellings(secret):
            if form in text:
                text = text.replace(form, REDACTED)
    return text


def _spellings(secret: str) -> tuple[str, ...]:
    """The secret as it is, and as a JSON string body (pydantic's and `json.dumps`' escapes)."""
    forms = [secret]
    for ascii_only in (False, True):
        escaped = json.dumps(secret, ensure_ascii=ascii_only)[1:-1]
        if escaped not in forms:
            forms.append(escaped)
    return tuple(forms)


def _scrub_details(details: Any) -> Any:
    if isinstance(details, dict):
        return {k: (REDACTED if _SECRET_FIELD.search(str(k)) else _scrub_details(v)) for k, v in details.items()}
    if isinstance(details, list):
        return [_scrub_details(v) for v in details]
    return details


def _scrub_url(url: str) -> str:
    try:
        parts = urlsplit(url)
    except ValueError:
        return REDACTED
    host = parts.hostname or ""
    netloc = host + (f":{parts.port}" if parts.port else "") if parts.username or parts.password else parts.netloc
    return urlunsplit((parts.scheme, netloc, parts.path, "", ""))


def _needs_scrub(obj: Any) -> bool:
    details = getattr(obj, "provider_details", None)
    return isinstance(details, dict) and details != _scrub_details(details)


def scrub_message(message: Any) -> Any:
    """A copy of `message` without credential-like provider data; `message` itself if it had none.

    Never mutates its input: changed parts are rebuilt with `dataclasses.replace`.
    """
    changes: dict[str, Any] = {}
    url = getattr(message, "provider_url", None)
    if url and _scrub_url(url) != url:
        changes["provider_url"] = _scrub_url(url)
    if _needs_scrub(message):
        changes["provider_details"] = _scrub_details(message.provider_details)
    parts = getattr(message, "parts", ())
    if any(_needs_scrub(p) for p in parts):
        changes["parts"] = [
            replace(p, provider_details=_scrub_details(p.provider_details)) if _needs_scrub(p) else p for p in parts
        ]
    return replace(message, **changes) if changes else message

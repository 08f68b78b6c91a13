"""Provider failures as one line a user can act on, plus an `ErrorKind` (never a traceback: docs/architecture.md).

`describe_error(exc, model_name=...)` is called by `ChatSession` (for the `error` event) and by the
CLI. It classifies by pydantic-ai's exception categories (`ModelAuthenticationError`,
`ModelRateLimitError`, `ModelContextWindowExceededError`, `ModelConnectionError`, …) and reads what
the provider SDK left on the exception chain: the request's URL (for the host), its
`x-stainless-retry-count` header (how many retries the SDK really made) and its timeout.

pydantic-ai is imported lazily: this module may be imported while the TUI starts.
"""

from __future__ import annotations

import asyncio
import math
import re
import socket
from typing import Any, Literal
from urllib.parse import urlsplit

from co_tui.agent.providers import PROVIDERS, Provider, provider_of_bare_name, provider_of_prefix
from co_tui.text import one_line

ErrorKind = Literal["provider", "auth", "config", "overflow", "network", "interrupted", "storage", "internal"]
"""What kind of failure an `error` event reports (the jsonl `kind` field, docs/architecture.md)."""

__all__ = ["ErrorKind", "api_key_env", "describe_error", "provider_label"]

_MAX_LINE = 240


def _provider_key(model_name: str, exc: BaseException | None = None) -> Provider | None:
    """Which provider a model string (or, failing that, the SDK in the exception chain) belongs to."""
    prefix, sep, bare = model_name.partition(":")
    if sep and (known := provider_of_prefix(prefix)) is not None:
        return known
    for link in _chain(exc):
        module = type(link).__module__.partition(".")[0]
        if module in ("openai", "anthropic"):
            return PROVIDERS[module]
    return provider_of_bare_name(bare if sep else model_name)


def api_key_env(model_name: str) -> str | None:
    """The environment variable holding the API key for `model_name` (e.g. `OPENAI_API_KEY`), if known."""
    known = _provider_key(model_name)
    return known.api_key_env if known else None


def provider_label(model_name: str, host: str | None = None) -> str:
    """How the provider is named in messages: `OpenAI`, or `the server at HOST` for a non-official host."""
    known = _provider_key(model_name)
    if host and (known is None or (known.host is not None and host != known.host)):
        return f"the server at {host}"
    return known.label if known else "the provider"


def _chain(exc: BaseException | None) -> list[BaseException]:
    """`exc` and everything it was raised from (causes first, then contexts), without cycles."""
    seen: list[BaseException] = []
    current = exc
    while current is not None and all(current is not s for s in seen):
        seen.append(current)
        current = current.__cause__ or current.__context__
    return seen


def _attr(obj: Any, name: str) -> Any:
    """`getattr` that also survives httpx's properties, which raise RuntimeError when unset."""
    try:
        return getattr(obj, name, None)
    except Exception:
        return None


def _sdk_request(exc: BaseException) -> Any:
    """The httpx request the provider SDK attached to an exception in the chain, if any."""
    for link in _chain(exc):
        request = _attr(link, "request")
        if request is not None and _attr(request, "url") is not None:
            return request
        request = _attr(_attr(link, "response"), "request")
        if request is not None and _attr(request, "url") is not None:
            return request
    return None


def _host(exc: BaseException, base_url: str | None) -> str | None:
    request = _sdk_request(exc)
    if request is not None:
        url = request.url
        host = getattr(url, "host", None) or urlsplit(str(url)).hostname
        port = getattr(url, "port", None)
        return f"{host}:{port}" if host and port else host
    if base_url:
        parts = urlsplit(base_url)
        if parts.hostname:
            return f"{parts.hostname}:{parts.port}" if parts.port else parts.hostname
    return None


def _retries_taken(exc: BaseException) -> int | None:
    """Retries the SDK made before giving up, from the last attempt's `x-stainless-retry-count` header."""
    request = _sdk_request(exc)
    headers = getattr(request, "headers", None)
    if headers is None:
        return None
    try:
        return int(headers.get("x-stainless-retry-count", 0))
    except (TypeError, ValueError):
        return None


def _attempt_timeout(exc: BaseException) -> float | None:
    """The per-attempt read timeout the HTTP client used, in seconds, if it recorded one."""
    request = _sdk_request(exc)
    timeout = getattr(request, "extensions", {}).get("timeout") if request is not None else None
    if isinstance(timeout, dict):
        value = timeout.get("read") or timeout.get("connect")
        return float(value) if isinstance(value, (int, float)) else None
    return None


def _times(n: int | None, one: str = "time", many: str = "times") -> str:
    return f"{n} {one if n == 1 else many}" if n is not None else f"several {many}"


def _seconds(value: float) -> str:
    return f"{math.ceil(value)}s"


def _provider_message(exc: Any) -> str:
    """The provider's own human message from an error body, if it sent one."""
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        inner = body.get("error", body)
        if isinstance(inner, dict) and isinstance(inner.get("message"), str):
            return inner["message"]
        if isinstance(body.get("message"), str):
            return body["message"]
    return getattr(exc, "message", "") or str(exc)


def _bare_model(model_name: str) -> str:
    return model_name.partition(":")[2] or model_name


def _transport_text(exc: BaseException) -> str:
    """The lowest-level transport message in the chain (e.g. `[Errno 111] Connection refused`)."""
    texts = [str(link) for link in _chain(exc) if str(link)]
    return " | ".join(texts).lower()


def _stream_broke(partial: bool | None) -> str:
    if partial is False:
        return "the response stream broke off before any answer arrived"
    return "the response stream broke off: partial answer kept"


def describe_error(
    exc: BaseException,
    *,
    model_name: str,
    base_url: str | None = None,
    partial: bool | None = None,
) -> tuple[str, ErrorKind]:
    """One line for the user and the `ErrorKind` of a failed model request.

    `model_name` is the co-tui model string (`openai-chat:gpt-4o`, `anthropic:claude-…`); it picks
    the provider name and API-key variable. `base_url` is used for the host when the exception chain
    carries no request. `partial` says whether some answer text had already arrived when a stream
    broke (None: assume it had, the usual case for a stream that broke mid-way).
    Never raises; the line has no newlines and no traceback.
    """
    try:
        return _describe(_unwrap(exc), model_name=model_name, base_url=base_url, partial=partial)
    except Exception as inner:  # a describer that crashes would hide the original failure
        return one_line(f"{type(exc).__name__}: {exc} (while describing it: {inner!r})", _MAX_LINE), "internal"


def _unwrap(exc: BaseException) -> BaseException:
    """The first meaningful exception of an exception group (task groups wrap failures)."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        inner = [e for e in exc.exceptions if not isinstance(e, asyncio.CancelledError)]
        exc = (inner or list(exc.exceptions))[0]
    return exc


def _describe(
    exc: BaseException, *, model_name: str, base_url: str | None, partial: bool | None
) -> tuple[str, ErrorKind]:
    from co_tui.agent.models import ModelConfigError

    if isinstance(exc, ModelConfigError):  # already one line, written for the user
        return one_line(str(exc), _MAX_LINE), "config"

    from co_tui.governance.summarize import SummaryError

    if isinstance(exc, SummaryError):  # the summariser answered with nothing usable; already words
        return one_line(f"no summary: {exc}", _MAX_LINE), "provider"

    from pydantic_ai import exceptions as ex

    host = _host(exc, base_url)
    who = provider_label(model_name if ":" in model_name else _guess_prefixed(model_name, exc), host)

    if isinstance(exc, (ex.RunCancelled, asyncio.CancelledError, KeyboardInterrupt)):
        return "interrupted", "interrupted"

    if isinstance(exc, ex.ModelContextWindowExceededError):
        return (
            f"the conversation is too long for {_bare_model(model_name)}'s context window even after trimming",
            "overflow",
        )

    if isinstance(exc, ex.ModelAuthenticationError):
        status = getattr(exc, "status_code", None)
        var = api_key_env(model_name if ":" in model_name else _guess_prefixed(model_name, exc))
        code = f" (HTTP {status})" if status else ""
        fix = f"check {var}" if var else "check the API key"
        if status == 403:
            return one_line(
                f"{who} refused access to {_bare_model(model_name)}{code}: {fix} and its permissions", _MAX_LINE
            ), "auth"
        return one_line(f"{who} rejected the API key{code}: {fix}", _MAX_LINE), "auth"

    if isinstance(exc, ex.ModelQuotaExceededError):
        return one_line(
            f"{who} says the account's quota or credits are exhausted: {_provider_message(exc)}", _MAX_LINE
        ), "provider"

    if isinstance(exc, ex.ModelRateLimitError):
        n = _retries_taken(exc)
        wait = getattr(exc, "retry_after", None)
        when = f"try again in {_seconds(wait)}" if wait and wait >= 1 else "try again shortly"
        return one_line(f"rate limited by {who} (retried {_times(n)}); {when}", _MAX_LINE), "provider"

    in_stream = bool(getattr(exc, "in_stream", False))
    if in_stream:
        status = getattr(exc, "status_code", None)
        reason = f"{who} sent error {status}" if status else f"{who} sent an error"
        return one_line(f"{_stream_broke(partial)} ({reason}: {_provider_message(exc)})", _MAX_LINE), "provider"

    if isinstance(exc, (ex.ModelServerError, ex.ModelUnavailableError)):
        status = getattr(exc, "status_code", None)
        n = _retries_taken(exc)
        code = f" {status}" if status else ""
        tail = "; it is overloaded, try again later" if isinstance(exc, ex.ModelOverloadedError) else ""
        return one_line(f"{who} server error{code} after {_times(n, 'retry', 'retries')}{tail}", _MAX_LINE), "provider"

    if isinstance(exc, ex.ModelRequestTimeout):
        where = f" from {host}" if host else ""
        what = "no answer" if getattr(exc, "setting", "") == "first_event_timeout" else "no complete answer"
        return one_line(
            f"{what}{where} within {exc.timeout:g}s ({_bare_model(model_name)}): request timed out", _MAX_LINE
        ), "network"

    if isinstance(exc, ex.ModelTimeoutError):
        seconds = _attempt_timeout(exc)
        within = f" within {seconds:g}s" if seconds else ""
        n = _retries_taken(exc)
        tries = f" (retried {_times(n)})" if n else ""
        return one_line(f"timed out waiting for {host or who}{within}{tries}", _MAX_LINE), "network"

    if isinstance(exc, ex.ModelConnectionError):
        return _describe_connection(exc, host=host, who=who, partial=partial)

    if isinstance(exc, ex.ModelNotFoundError):
        suggested = getattr(exc, "suggested_model_id", None)
        hint = f"; did you mean {suggested}?" if suggested else ""
        return one_line(
            f"{who} does not know the model {_bare_model(model_name)!r} (HTTP 404){hint}", _MAX_LINE
        ), "config"

    if isinstance(exc, ex.ModelRequestRejectedError):
        status = getattr(exc, "status_code", None)
        code = f" (HTTP {status})" if status else ""
        return one_line(f"{who} rejected the request{code}: {_provider_message(exc)}", _MAX_LINE), "provider"

    if isinstance(exc, ex.ModelAPIError):
        text = exc.message
        if "decode" in text.lower() or "json" in text.lower():
            return one_line(f"{_stream_broke(partial)} (malformed data from {who})", _MAX_LINE), "provider"
        status = getattr(exc, "status_code", None)
        code = f" {status}" if status else ""
        return one_line(f"{who} error{code}: {_provider_message(exc)}", _MAX_LINE), "provider"

    if isinstance(exc, ex.UserError):
        return _describe_user_error(exc)

    if isinstance(exc, ex.UsageLimitExceeded):
        return one_line(f"stopped: {exc.message.split('. ')[0]}", _MAX_LINE), "provider"

    if isinstance(exc, ex.UnexpectedModelBehavior):
        return one_line(f"unexpected answer from {_bare_model(model_name)}: {exc.message}", _MAX_LINE), "provider"

    if isinstance(exc, OSError):
        import socket

        # Only a connection's failures are the network's: a file's (a name too long) is not.
        network = isinstance(exc, (ConnectionError, TimeoutError, socket.gaierror, socket.herror))
        return one_line(f"{type(exc).__name__}: {exc}", _MAX_LINE), "network" if network else "internal"

    return one_line(f"internal error: {type(exc).__name__}: {exc}", _MAX_LINE), "internal"


def _guess_prefixed(model_name: str, exc: BaseException) -> str:
    known = _provider_key(model_name, exc)
    return f"{known.key}:{model_name}" if known else model_name


def _describe_connection(
    exc: BaseException, *, host: str | None, who: str, partial: bool | None
) -> tuple[str, ErrorKind]:
    text = _transport_text(exc)
    target = host or who
    links = _chain(exc)
    if any(isinstance(link, socket.gaierror) for link in links):
        name = (host or "").rsplit(":", 1)[0] or who
        return one_line(f"cannot resolve host {name}: check the base URL and your network", _MAX_LINE), "network"
    if any(isinstance(link, ConnectionRefusedError) for link in links):
        return one_line(
            f"cannot connect to {target}: connection refused (is the server running?)", _MAX_LINE
        ), "network"
    if "incomplete" in text or "complete message body" in text or "incomplete chunked" in text:
        return _stream_broke(partial), "network"
    if any(
        s in text
        for s in (
            "name or service not known",
            "nodename nor servname",
            "getaddrinfo",
            "name resolution",
            "no address associated",
            "errno -2",
            "errno -3",
            "errno 8",
        )
    ):
        name = (host or "").rsplit(":", 1)[0] or who
        return one_line(f"cannot resolve host {name}: check the base URL and your network", _MAX_LINE), "network"
    if "refused" in text:
        return one_line(
            f"cannot connect to {target}: connection refused (is the server running?)", _MAX_LINE
        ), "network"
    if "disconnected without sending a response" in text or "connection reset" in text:
        return one_line(f"{target} closed the connection without answering", _MAX_LINE), "network"
    phase = getattr(exc, "phase", None)
    if phase == "read":
        return _stream_broke(partial), "network"
    return one_line(f"cannot reach {target}: {getattr(exc, 'message', '') or exc}", _MAX_LINE), "network"


def _describe_user_error(exc: Any) -> tuple[str, ErrorKind]:
    """pydantic-ai's set-up errors; the common one is a missing API key or base URL variable."""
    match = re.search(r"`([A-Z][A-Z0-9_]*_(?:API_KEY|BASE_URL))`", exc.message)
    if match:
        var = match.group(1)
        return f"{var} is not set: export it, or choose another model with --model", "config"
    return one_line(f"model set-up failed: {exc.message}", _MAX_LINE), "config"

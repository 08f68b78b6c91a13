"""A streamable-HTTP MCP server's answers, read under the same cap as a stdio server's (mcp_stdio.py).

The MCP SDK reads a JSON answer whole (`response.aread()`: a 1 GB answer is 1 GB in memory, on the
UI's loop), and an SSE event over its own limit ends the request as "connection closed", which
made co-tui mark a healthy server failed. `capped_http_client` is the httpx client factory the
server's fastmcp transport is given: its transport passes answers through, but a JSON body, or an
SSE event, over `MAX_MESSAGE_BYTES` is not read past the cap. The request is answered in the
server's name with the stdio reader's `OVERSIZED` error, so the call fails with the same one line
("its answer is over co-tui's 8 MB cap and was not read") and the server goes on. Each byte is
scanned once (events are split from where the last search stopped).

co-tui asks for answers uncompressed (`Accept-Encoding: identity`): a compressed body could
inflate far past the cap after it was counted, so an answer that comes compressed anyway is not
read either.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import httpx2

from co_tui.agent.mcp_stdio import MAX_MESSAGE_BYTES, oversized_error, oversized_id

__all__ = ["capped_http_client"]

_EVENT_ENDS = (b"\n\n", b"\r\n\r\n", b"\r\r")  # the blank line that ends an SSE event
_HEAD = 512  # bytes of an oversized event kept to find its request id


def capped_http_client(
    headers: dict[str, str] | None = None,
    timeout: httpx2.Timeout | None = None,
    auth: httpx2.Auth | None = None,
    **_: Any,
) -> httpx2.AsyncClient:
    """The httpx client of a streamable-HTTP MCP server (fastmcp's `httpx_client_factory`): the
    MCP SDK's own defaults (30 s, 300 s to read; redirects followed by the SDK within the origin),
    with answers capped (module docstring)."""
    from mcp.shared._httpx_utils import MCP_DEFAULT_SSE_READ_TIMEOUT, MCP_DEFAULT_TIMEOUT

    return httpx2.AsyncClient(
        headers={**(headers or {}), "Accept-Encoding": "identity"},
        timeout=timeout or httpx2.Timeout(MCP_DEFAULT_TIMEOUT, read=MCP_DEFAULT_SSE_READ_TIMEOUT),
        auth=auth,
        transport=CappedTransport(httpx2.AsyncHTTPTransport()),
    )


class CappedTransport(httpx2.AsyncBaseTransport):
    """`inner`'s responses, with JSON and SSE bodies capped at `cap` bytes a message."""

    def __init__(self, inner: httpx2.AsyncBaseTransport, cap: int = MAX_MESSAGE_BYTES) -> None:
        self._inner, self._cap = inner, cap

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        """Send `request`; its response's body is read through `CappedBody`."""
        response = await self._inner.handle_async_request(request)
        kind = response.headers.get("content-type", "").lower()
        if not kind.startswith(("application/json", "text/event-stream")):
            return response  # the SDK reads no other body
        assert isinstance(response.stream, httpx2.AsyncByteStream)
        headers = [(k, v) for k, v in response.headers.multi_items() if k.lower() != "content-length"]
        encoding = response.headers.get("content-encoding", "identity").lower()
        body = CappedBody(
            response.stream,
            self._cap,
            request_id=_request_id(request),
            events=kind.startswith("text/event-stream"),
            compressed=encoding not in ("", "identity"),
        )
        if body.compressed:  # answered below as not read: nothing is left to decode
            headers = [(k, v) for k, v in headers if k.lower() != "content-encoding"]
        return httpx2.Response(
            response.status_code, headers=headers, stream=body, extensions=response.extensions, request=request
        )

    async def aclose(self) -> None:
        """Close the inner transport (its connections)."""
        await self._inner.aclose()


class CappedBody(httpx2.AsyncByteStream):
    """A response body passed on a message at a time: the whole body (JSON) or each event (SSE).
    A message over `cap` bytes, or a compressed body, ends the body with the `OVERSIZED` error for
    `request_id` (as an SSE event in an event stream); without a request to answer, the body just
    ends there."""

    def __init__(
        self, inner: httpx2.AsyncByteStream, cap: int, *, request_id: Any, events: bool, compressed: bool
    ) -> None:
        self._inner, self._cap, self._request_id = inner, cap, request_id
        self._events, self.compressed = events, compressed

    async def __aiter__(self) -> AsyncIterator[bytes]:
        """The body's messages, each whole, up to the first one over the cap (then its error)."""
        if self.compressed:
            yield self._refusal("it came compressed, which co-tui did not ask for, and was not read", b"")
            return
        pending = bytearray()
        searched = 0  # `pending` holds no event end before this offset
        async for chunk in self._inner:
            pending += chunk
            if self._events:
                while (end := _event_end(pending, max(0, searched - 3))) is not None:
                    yield bytes(pending[:end])
                    del pending[:end]
                    searched = 0
                searched = len(pending)
            if len(pending) > self._cap:
                yield self._refusal(None, bytes(pending[:_HEAD]))
                return
        if pending:
            yield bytes(pending)

    def _refusal(self, why: str | None, head: bytes) -> bytes:
        """The error answering the request (this POST's, else the one whose id starts the event's
        data, `head`), shaped as this body's messages are; nothing when there is none to answer."""
        request_id = self._request_id
        if request_id is None and self._events and (data := head.find(b"data:")) >= 0:
            request_id = oversized_id(head[data + 5 :])
        if request_id is None:
            return b""
        text = oversized_error(request_id, self._cap, why).model_dump_json(by_alias=True, exclude_unset=True)
        return f"event: message\ndata: {text}\n\n".encode() if self._events else text.encode()

    async def aclose(self) -> None:
        """Stop reading: the connection is closed with the rest of the body unread."""
        await self._inner.aclose()


def _event_end(buffer: bytearray, start: int) -> int | None:
    """The offset just past the first blank line at or after `start` (None: no event ends there)."""
    ends = [(at, len(mark)) for mark in _EVENT_ENDS if (at := buffer.find(mark, start)) >= 0]
    if not ends:
        return None
    at, size = min(ends)
    return at + size


def _request_id(request: httpx2.Request) -> Any:
    """The JSON-RPC id of the request a POST carries (None: a notification, a GET, not JSON-RPC)."""
    if request.method != "POST":
        return None
    try:
        message = json.loads(request.content)
    except (ValueError, httpx2.RequestNotRead):
        return None
    return message.get("id") if isinstance(message, dict) and "method" in message else None

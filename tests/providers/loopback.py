"""A scriptable loopback server speaking the OpenAI chat-completions and Anthropic messages APIs.

Tests point pydantic-ai's real clients at it (`OpenAIProvider(base_url=server.openai_base_url)`,
`AnthropicProvider(base_url=server.anthropic_base_url)`, or `OPENAI_BASE_URL` for a subprocess)
exactly as a user points them at a local server. Each test queues what the server answers
(`server.script(...)`), and every request is recorded (`server.requests`) so a test can count
retries and inspect what was sent.

Script items:
- `Reply(text=..., tool_calls=...)` — a normal answer, streamed (SSE, chunked) or not, as the
  request asks; OpenAI streams end with a usage chunk when `stream_options.include_usage`.
- `HTTPError(status, body, headers)` — an error status; `openai_error` / `anthropic_error` build
  the bodies each API really sends.
- `CutStream(text)` — a stream that breaks off mid-way (the chunked body never terminates).
- `Malformed(text)` — a stream with a chunk that is not JSON after some good ones.
- `StreamError(...)` — an error event inside an already-open 200 stream.
- `Hang(seconds)` — accept the request and never answer (until `seconds` or server stop).
- `Close()` — close the connection without any response.

Lifetimes are bounded: every handler waits on the server's stop event, so `stop()` returns
promptly even with hanging requests, and the fixtures always call it.
"""

from __future__ import annotations

import contextlib
import json
import socket
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Union

# ---------------------------------------------------------------------------------------------
# Script items


@dataclass(frozen=True)
class ToolCallSpec:
    """One tool call the scripted model makes; `args` is a dict or a raw JSON string."""

    name: str
    args: dict[str, Any] | str = field(default_factory=dict)
    call_id: str = "call_1"

    @property
    def args_json(self) -> str:
        return self.args if isinstance(self.args, str) else json.dumps(self.args)


@dataclass(frozen=True)
class Reply:
    """A successful answer. `input_tokens` defaults to a size-based figure of the request.

    `cache_read_tokens` / `cache_write_tokens` are the part of the input the provider says it read
    from / wrote to its prompt cache: OpenAI reports reads as `prompt_tokens_details.cached_tokens`
    (inside `prompt_tokens`); Anthropic reports both beside an `input_tokens` that excludes them.
    """

    text: str = ""
    tool_calls: tuple[ToolCallSpec, ...] = ()
    input_tokens: int | None = None
    output_tokens: int | None = None
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    chunk_delay: float = 0.0  # seconds between streamed chunks (a slow stream)
    chunks: int = 3  # how many deltas the text is streamed in
    # When given, the stream stops before its closing events (finish reason, usage) until this is
    # set or the server stops: the turn cannot end before the test lets it (say, until after Esc).
    hold_end: threading.Event | None = field(default=None, compare=False)


@dataclass(frozen=True)
class HTTPError:
    """An error status with a JSON (dict) or raw (str) body and extra headers."""

    status: int
    body: dict[str, Any] | str | None = None
    headers: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class CutStream:
    """Stream `text` in chunks, then drop the connection before the body ends."""

    text: str = "partial"


@dataclass(frozen=True)
class Malformed:
    """Stream `text`, then a chunk that is not valid JSON, then end the stream normally.

    Asked for a non-streamed answer, the server sends a truncated JSON body instead.
    """

    text: str = "partial"
    garbage: str = '{"choices": [ {"delta": oops'


@dataclass(frozen=True)
class StreamError:
    """Stream `text`, then an in-stream error event with this body (API-shaped by the server)."""

    text: str = ""
    error_type: str = "server_error"
    message: str = "The server had an error while processing your request."
    code: str | None = None


@dataclass(frozen=True)
class Hang:
    """Read the request, then send nothing for `seconds` (or until the server stops)."""

    seconds: float = 10.0


@dataclass(frozen=True)
class Close:
    """Close the connection without sending a status line."""


Script = Reply | HTTPError | CutStream | Malformed | StreamError | Hang | Close


def openai_error(
    status: int,
    message: str,
    *,
    type: str = "invalid_request_error",
    code: str | None = None,
    headers: dict[str, str] | None = None,
) -> HTTPError:
    """An error as api.openai.com sends it: `{"error": {message, type, param, code}}`."""
    body = {"error": {"message": message, "type": type, "param": None, "code": code}}
    return HTTPError(status, body, dict(headers or {}))


def anthropic_error(status: int, type: str, message: str, *, headers: dict[str, str] | None = None) -> HTTPError:
    """An error as api.anthropic.com sends it: `{"type": "error", "error": {type, message}}`."""
    return HTTPError(status, {"type": "error", "error": {"type": type, "message": message}}, dict(headers or {}))


def openai_context_overflow(tokens: int = 140_000, limit: int = 128_000) -> HTTPError:
    """OpenAI's 400 for a prompt over the model's window (code `context_length_exceeded`)."""
    return openai_error(
        400,
        f"This model's maximum context length is {limit} tokens. However, your messages resulted in "
        f"{tokens} tokens. Please reduce the length of the messages.",
        code="context_length_exceeded",
    )


def anthropic_prompt_too_long(tokens: int = 210_000, limit: int = 200_000) -> HTTPError:
    """Anthropic's 400 for a prompt over the model's window."""
    return anthropic_error(400, "invalid_request_error", f"prompt is too long: {tokens} tokens > {limit} maximum")


# ---------------------------------------------------------------------------------------------
# Recording


@dataclass(frozen=True)
class RecordedRequest:
    """One request as the server received it (headers keys lowercased)."""

    method: str
    path: str
    headers: dict[str, str]
    body: Any

    @property
    def api(self) -> str:
        return "anthropic" if self.path.rstrip("/").endswith("/messages") else "openai"

    @property
    def stream(self) -> bool:
        return bool(isinstance(self.body, dict) and self.body.get("stream"))

    @property
    def retry_count(self) -> int:
        """The SDK's own attempt counter (`x-stainless-retry-count`), 0 on the first try."""
        return int(self.headers.get("x-stainless-retry-count", "0") or 0)

    def text(self) -> str:
        """Every string in the request's messages/system, joined: what the model was sent."""
        if not isinstance(self.body, dict):
            return ""
        out: list[str] = []

        def walk(node: Any) -> None:
            if isinstance(node, str):
                out.append(node)
            elif isinstance(node, dict):
                for v in node.values():
                    walk(v)
            elif isinstance(node, list):
                for v in node:
                    walk(v)

        walk(self.body.get("messages"))
        walk(self.body.get("system"))
        return "\n".join(out)


def _size_tokens(request: RecordedRequest) -> int:
    """A deterministic stand-in for the provider's token count: ~4 chars per token of the prompt."""
    return max(1, len(request.text()) // 4)


def _chunks(text: str, n: int = 3) -> list[str]:
    """Split `text` into up to `n` non-empty pieces (so streams have several deltas)."""
    if not text:
        return []
    step = max(1, -(-len(text) // n))
    return [text[i : i + step] for i in range(0, len(text), step)]


# ---------------------------------------------------------------------------------------------
# The server


class LoopbackServer:
    """A threaded HTTP server on 127.0.0.1:<free port>. Use `start()`/`stop()` or the fixtures."""

    def __init__(self) -> None:
        self._queue: deque[Script] = deque()
        self._lock = threading.Lock()
        self.requests: list[RecordedRequest] = []
        self.responder: Callable[[RecordedRequest], Script] | None = None
        self.stopping = threading.Event()
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # --- lifecycle ------------------------------------------------------------------------
    def start(self) -> LoopbackServer:
        handler = type("_BoundHandler", (_Handler,), {"loopback": self})
        self._httpd = _QuietServer(("127.0.0.1", 0), handler)
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, name="loopback-server", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        self.stopping.set()
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    @property
    def port(self) -> int:
        assert self._httpd is not None, "server not started"
        return self._httpd.server_address[1]

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def openai_base_url(self) -> str:
        return f"{self.url}/v1"

    @property
    def anthropic_base_url(self) -> str:
        return self.url

    # --- scripting --------------------------------------------------------------------------
    def script(self, *items: Script) -> LoopbackServer:
        """Queue answers, consumed one per request in order."""
        with self._lock:
            self._queue.extend(items)
        return self

    def clear_script(self) -> None:
        """Drop the answers not used yet."""
        with self._lock:
            self._queue.clear()

    @property
    def pending(self) -> int:
        """How many scripted answers are still unused."""
        with self._lock:
            return len(self._queue)

    def _next(self, request: RecordedRequest) -> Script:
        with self._lock:
            self.requests.append(request)
            if self._queue:
                return self._queue.popleft()
        if self.responder is not None:
            return self.responder(request)
        # 400 (not retried by SDKs) so an unscripted request fails fast and says why.
        return HTTPError(
            400,
            {
                "error": {
                    "message": "loopback: no scripted response left",
                    "type": "loopback",
                    "param": None,
                    "code": None,
                }
            },
        )

    def count(self, api: str | None = None) -> int:
        """Requests received so far (optionally only `openai` or `anthropic` ones)."""
        with self._lock:
            return sum(1 for r in self.requests if api is None or r.api == api)


class _QuietServer(ThreadingHTTPServer):
    """Clients hanging up mid-request is what these tests do on purpose: no tracebacks for it."""

    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    loopback: LoopbackServer  # bound per server

    def log_message(self, format: str, *args: Any) -> None:  # keep test output quiet
        pass

    def do_GET(self) -> None:
        self._json(200, {"object": "list", "data": []})

    def do_POST(self) -> None:
        length = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body: Any = json.loads(raw) if raw else None
        except ValueError:
            body = raw.decode(errors="replace")
        request = RecordedRequest("POST", self.path, {k.lower(): v for k, v in self.headers.items()}, body)
        item = self.loopback._next(request)
        anthropic = request.api == "anthropic"
        try:
            self._serve(item, request, anthropic)
        except (BrokenPipeError, ConnectionResetError):
            # The client gave up (timeout, cancel): nothing more to send.
            self.close_connection = True

    # --- dispatch -----------------------------------------------------------------------------
    def _serve(self, item: Script, request: RecordedRequest, anthropic: bool) -> None:
        if isinstance(item, HTTPError):
            self._error(item)
        elif isinstance(item, Close):
            self._drop()
        elif isinstance(item, Hang):
            self.loopback.stopping.wait(item.seconds)
            self._drop()
        elif isinstance(item, Reply):
            if request.stream:
                self._stream_reply(item, request, anthropic)
            else:
                self._json(200, _anthropic_message(item, request) if anthropic else _openai_completion(item, request))
        elif isinstance(item, Malformed) and not request.stream:
            self._json(200, item.garbage)
        elif isinstance(item, (CutStream, Malformed, StreamError)):
            self._stream_fault(item, request, anthropic)
        else:  # pragma: no cover - a test scripted something unknown
            raise TypeError(f"unknown script item {item!r}")

    # --- plain responses ----------------------------------------------------------------------
    def _json(self, status: int, payload: Any, headers: dict[str, str] | None = None) -> None:
        data = payload.encode() if isinstance(payload, str) else json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(data)
        self.wfile.flush()

    def _error(self, item: HTTPError) -> None:
        body = item.body if item.body is not None else {"error": {"message": f"status {item.status}"}}
        self._json(item.status, body, item.headers)

    def _drop(self) -> None:
        self.close_connection = True
        try:
            self.connection.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass

    # --- streaming ------------------------------------------------------------------------------
    def _start_stream(self) -> None:
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("cache-control", "no-cache")
        self.send_header("transfer-encoding", "chunked")
        self.end_headers()

    def _send_chunk(self, data: str) -> None:
        raw = data.encode()
        self.wfile.write(f"{len(raw):x}\r\n".encode() + raw + b"\r\n")
        self.wfile.flush()

    def _end_stream(self) -> None:
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()

    def _sse(self, data: Any, event: str | None = None) -> None:
        payload = data if isinstance(data, str) else json.dumps(data)
        prefix = f"event: {event}\n" if event else ""
        self._send_chunk(f"{prefix}data: {payload}\n\n")

    def _pause(self, seconds: float) -> None:
        if seconds:
            self.loopback.stopping.wait(seconds)

    def _stream_reply(self, item: Reply, request: RecordedRequest, anthropic: bool) -> None:
        self._start_stream()
        events = _anthropic_stream_events(item, request) if anthropic else _openai_stream_events(item, request)
        for event, data in events:
            if item.hold_end is not None and _is_stream_tail((event, data), anthropic):
                self._hold(item.hold_end)
            self._sse(data, event)
            self._pause(item.chunk_delay)
        if not anthropic:
            self._sse("[DONE]")
        self._end_stream()

    def _hold(self, gate: threading.Event) -> None:
        while not gate.is_set() and not self.loopback.stopping.is_set():
            gate.wait(0.05)  # and look at `stopping` again: a failed test must not hang the server's stop

    def _stream_fault(
        self, item: CutStream | Malformed | StreamError, request: RecordedRequest, anthropic: bool
    ) -> None:
        self._start_stream()
        partial = Reply(text=item.text)
        events = _anthropic_stream_events(partial, request) if anthropic else _openai_stream_events(partial, request)
        # The opening events and the text deltas, but not the finish/usage/stop events.
        head = [e for e in events if not _is_stream_tail(e, anthropic)]
        for event, data in head:
            self._sse(data, event)
        if isinstance(item, CutStream):
            # A chunked body that never gets its terminating chunk: the peer sees a broken-off stream.
            self._drop()
            return
        if isinstance(item, Malformed):
            # Anthropic's SDK skips events it does not know, so the garbage rides on a real event name.
            event = "event: content_block_delta\n" if anthropic else ""
            self._send_chunk(f"{event}data: {item.garbage}\n\n")
        else:
            if anthropic:
                self._sse({"type": "error", "error": {"type": item.error_type, "message": item.message}}, "error")
            else:
                self._sse(
                    {"error": {"message": item.message, "type": item.error_type, "param": None, "code": item.code}}
                )
        if not anthropic:
            self._sse("[DONE]")
        self._end_stream()


# ---------------------------------------------------------------------------------------------
# API shapes


def _usage(item: Reply, request: RecordedRequest) -> tuple[int, int]:
    inp = item.input_tokens if item.input_tokens is not None else _size_tokens(request)
    out = item.output_tokens if item.output_tokens is not None else max(1, (len(item.text) + 3) // 4)
    return inp, out


def _openai_usage(item: Reply, inp: int, out: int) -> dict[str, Any]:
    usage: dict[str, Any] = {"prompt_tokens": inp, "completion_tokens": out, "total_tokens": inp + out}
    if item.cache_read_tokens:
        usage["prompt_tokens_details"] = {"cached_tokens": item.cache_read_tokens}
    return usage


def _anthropic_input_usage(item: Reply, inp: int) -> dict[str, int]:
    """Anthropic's `input_tokens` counts only the uncached rest of the prompt."""
    usage = {"input_tokens": max(0, inp - item.cache_read_tokens - item.cache_write_tokens)}
    if item.cache_read_tokens or item.cache_write_tokens:
        usage["cache_read_input_tokens"] = item.cache_read_tokens
        usage["cache_creation_input_tokens"] = item.cache_write_tokens
    return usage


def _model(request: RecordedRequest) -> str:
    model = request.body.get("model") if isinstance(request.body, dict) else None
    return model if isinstance(model, str) else "loopback"


def _openai_completion(item: Reply, request: RecordedRequest) -> dict[str, Any]:
    inp, out = _usage(item, request)
    message: dict[str, Any] = {"role": "assistant", "content": item.text or None}
    if item.tool_calls:
        message["tool_calls"] = [
            {"id": c.call_id, "type": "function", "function": {"name": c.name, "arguments": c.args_json}}
            for c in item.tool_calls
        ]
    return {
        "id": "chatcmpl-loopback",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": _model(request),
        "choices": [
            {
                "index": 0,
                "message": message,
                "logprobs": None,
                "finish_reason": "tool_calls" if item.tool_calls else "stop",
            }
        ],
        "usage": _openai_usage(item, inp, out),
    }


def _openai_stream_events(item: Reply, request: RecordedRequest) -> list[tuple[str | None, dict[str, Any]]]:
    inp, out = _usage(item, request)
    base = {
        "id": "chatcmpl-loopback",
        "object": "chat.completion.chunk",
        "created": int(time.time()),
        "model": _model(request),
    }

    def chunk(delta: dict[str, Any], finish: str | None = None) -> tuple[None, dict[str, Any]]:
        return None, {**base, "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}]}

    events = [chunk({"role": "assistant", "content": ""})]
    events += [chunk({"content": piece}) for piece in _chunks(item.text, item.chunks)]
    for index, call in enumerate(item.tool_calls):
        events.append(
            chunk(
                {
                    "tool_calls": [
                        {
                            "index": index,
                            "id": call.call_id,
                            "type": "function",
                            "function": {"name": call.name, "arguments": ""},
                        }
                    ]
                }
            )
        )
        events += [
            chunk({"tool_calls": [{"index": index, "function": {"arguments": piece}}]})
            for piece in _chunks(call.args_json, 2)
        ]
    events.append(chunk({}, "tool_calls" if item.tool_calls else "stop"))
    options = request.body.get("stream_options") if isinstance(request.body, dict) else None
    if isinstance(options, dict) and options.get("include_usage"):
        events.append((None, {**base, "choices": [], "usage": _openai_usage(item, inp, out)}))
    return events


def _anthropic_message(item: Reply, request: RecordedRequest) -> dict[str, Any]:
    inp, out = _usage(item, request)
    content: list[dict[str, Any]] = [{"type": "text", "text": item.text}] if item.text else []
    content += [
        {"type": "tool_use", "id": c.call_id, "name": c.name, "input": json.loads(c.args_json) if c.args_json else {}}
        for c in item.tool_calls
    ]
    return {
        "id": "msg_loopback",
        "type": "message",
        "role": "assistant",
        "model": _model(request),
        "content": content,
        "stop_reason": "tool_use" if item.tool_calls else "end_turn",
        "stop_sequence": None,
        "usage": {**_anthropic_input_usage(item, inp), "output_tokens": out},
    }


def _anthropic_stream_events(item: Reply, request: RecordedRequest) -> list[tuple[str, dict[str, Any]]]:
    inp, out = _usage(item, request)
    events: list[tuple[str, dict[str, Any]]] = [
        (
            "message_start",
            {
                "type": "message_start",
                "message": {
                    "id": "msg_loopback",
                    "type": "message",
                    "role": "assistant",
                    "model": _model(request),
                    "content": [],
                    "stop_reason": None,
                    "stop_sequence": None,
                    "usage": {**_anthropic_input_usage(item, inp), "output_tokens": 1},
                },
            },
        )
    ]
    index = 0
    if item.text:
        events.append(
            (
                "content_block_start",
                {"type": "content_block_start", "index": index, "content_block": {"type": "text", "text": ""}},
            )
        )
        events += [
            (
                "content_block_delta",
                {"type": "content_block_delta", "index": index, "delta": {"type": "text_delta", "text": piece}},
            )
            for piece in _chunks(item.text, item.chunks)
        ]
        events.append(("content_block_stop", {"type": "content_block_stop", "index": index}))
        index += 1
    for call in item.tool_calls:
        events.append(
            (
                "content_block_start",
                {
                    "type": "content_block_start",
                    "index": index,
                    "content_block": {"type": "tool_use", "id": call.call_id, "name": call.name, "input": {}},
                },
            )
        )
        events += [
            (
                "content_block_delta",
                {
                    "type": "content_block_delta",
                    "index": index,
                    "delta": {"type": "input_json_delta", "partial_json": piece},
                },
            )
            for piece in _chunks(call.args_json, 2)
        ]
        events.append(("content_block_stop", {"type": "content_block_stop", "index": index}))
        index += 1
    events.append(
        (
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": "tool_use" if item.tool_calls else "end_turn", "stop_sequence": None},
                "usage": {"output_tokens": out},
            },
        )
    )
    events.append(("message_stop", {"type": "message_stop"}))
    return events


def _is_stream_tail(event: tuple[str | None, dict[str, Any]], anthropic: bool) -> bool:
    """Events that close a stream normally (finish reason, usage, stop, an open block's stop)."""
    name, data = event
    if anthropic:
        return name in ("content_block_stop", "message_delta", "message_stop")
    choices = data.get("choices") or []
    return not choices or bool(choices[0].get("finish_reason"))


@contextlib.contextmanager
def refused_port_url() -> Iterator[str]:
    """An http URL on 127.0.0.1 where nothing listens (connection refused), for the `with` block.

    The port stays bound (never listening) until the block ends: a port merely found free could be
    taken meanwhile by another test's server (tests run in parallel workers).
    """
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        yield f"http://127.0.0.1:{sock.getsockname()[1]}"


def windowed(
    limit_tokens: int, answer: Callable[[RecordedRequest], Script], *, api: str = "openai"
) -> Callable[[RecordedRequest], Script]:
    """A responder with a context window: overflow (in the API's own words) above `limit_tokens`.

    Tokens are the server's size figure (about 4 characters each), as a real provider counts its own.
    """

    def respond(request: RecordedRequest) -> Script:
        tokens = _size_tokens(request)
        if tokens > limit_tokens:
            if api == "anthropic":
                return anthropic_prompt_too_long(tokens, limit_tokens)
            return openai_context_overflow(tokens, limit_tokens)
        return answer(request)

    return respond

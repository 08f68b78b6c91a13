"""A misbehaving streamable-HTTP MCP server for the tests: raw JSON-RPC over HTTP on 127.0.0.1,
standard library only.

`python hostile_http_server.py` listens on a free port and prints `PORT <n>` on stdout. Every POST
to any path is a JSON-RPC message; requests are answered with `application/json`, except where a
tool says otherwise. Tools (by name):

- `echo`: answers `echo: <text>`;
- `huge`: a JSON answer of `HOSTILE_HUGE_MB` MB (default 20) of text;
- `hugesse`: the same as one SSE event (`text/event-stream`);
- `gzipped`: a small answer sent gzip-compressed, though co-tui asked for none.

`BYTES_SENT` (stderr, one line per answer: `sent <n>`) says how much of an answer went out before
the client stopped reading.
"""

from __future__ import annotations

import gzip
import json
import os
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

TOOLS = ["echo", "huge", "hugesse", "gzipped"]
CHUNK = 65_536


def result(request_id: object, text: str) -> dict:
    return {"jsonrpc": "2.0", "id": request_id, "result": {"content": [{"type": "text", "text": text}]}}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - the base class's name
        pass

    def do_GET(self) -> None:  # no server-initiated stream
        self.send_response(405)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_DELETE(self) -> None:
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_POST(self) -> None:
        message = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))))
        request_id, method = message.get("id"), message.get("method")
        if request_id is None:  # a notification
            self.send_response(202)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        if method == "initialize":
            version = message["params"].get("protocolVersion", "2025-06-18")
            info = {
                "protocolVersion": version,
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "h", "version": "1"},
            }
            self.answer({"jsonrpc": "2.0", "id": request_id, "result": info})
        elif method == "tools/list":
            schema = {"type": "object", "properties": {"text": {"type": "string"}}}
            listed = [{"name": t, "description": "a hostile tool", "inputSchema": schema} for t in TOOLS]
            self.answer({"jsonrpc": "2.0", "id": request_id, "result": {"tools": listed}})
        elif method == "tools/call":
            name, args = message["params"]["name"], message["params"].get("arguments") or {}
            size = int(float(os.environ.get("HOSTILE_HUGE_MB", "20")) * 1_000_000)
            if name == "huge":
                self.answer(result(request_id, "x" * size))
            elif name == "hugesse":
                self.answer(result(request_id, "x" * size), sse=True)
            elif name == "gzipped":
                self.answer(result(request_id, "compressed"), gzipped=True)
            else:
                self.answer(result(request_id, f"echo: {args.get('text', '')}"))
        elif method == "ping":
            self.answer({"jsonrpc": "2.0", "id": request_id, "result": {}})
        else:
            self.answer({"jsonrpc": "2.0", "id": request_id, "error": {"code": -32601, "message": f"no {method}"}})

    def answer(self, message: dict, *, sse: bool = False, gzipped: bool = False) -> None:
        body = json.dumps(message).encode()
        if sse:
            body = b"event: message\ndata: " + body + b"\n\n"
        if gzipped:
            body = gzip.compress(body)
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream" if sse else "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("mcp-session-id", "hostile-session")
        if gzipped:
            self.send_header("Content-Encoding", "gzip")
        self.end_headers()
        sent = 0
        try:
            for start in range(0, len(body), CHUNK):
                self.wfile.write(body[start : start + CHUNK])
                sent += len(body[start : start + CHUNK])
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True
        print(f"sent {sent}", file=sys.stderr, flush=True)


def main() -> None:
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    print(f"PORT {server.server_address[1]}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()

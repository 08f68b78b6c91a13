"""A misbehaving stdio MCP server for the tests: raw JSON-RPC over stdin/stdout, standard library only.

`python hostile_server.py [TOOL ...]` offers the named tools (any string: a name with a newline or
ESC tests how co-tui treats it; default: every behaviour below). What a call does depends on the
tool's name, whatever its prefix:

- `*echo*`: answers `echo: <text>`;
- `*dying*`: writes `dying: token=$HOSTILE_TOKEN` to stderr and exits in the middle of the call;
- `*badutf8*`: answers with bytes that are not UTF-8 inside the result's text;
- `*brokenjson*`: writes a line of invalid UTF-8 that is not JSON at all, and never answers;
- `*chatty*`: prints a plain non-JSON line on stdout, then answers `ok`;
- `*huge*`: answers with `HOSTILE_HUGE_MB` MB (default 20) of text on one line;
- `*flood*`: writes `HOSTILE_FLOOD_MB` MB (default 20) of lines to stderr, then answers `flooded`;
- `*silent*`: never answers.

With `HOSTILE_EXIT_IF` naming a file that exists, the server exits at once, silently (a restart that fails).
"""

from __future__ import annotations

import json
import os
import sys

DEFAULT_TOOLS = ["echo", "dying", "badutf8", "brokenjson", "chatty", "huge", "flood", "silent"]
out = sys.stdout.buffer


def send(message: dict) -> None:
    out.write(json.dumps(message).encode() + b"\n")
    out.flush()


def result(request_id: object, text: str) -> None:
    send({"jsonrpc": "2.0", "id": request_id, "result": {"content": [{"type": "text", "text": text}]}})


def call(request_id: object, name: str, args: dict) -> None:
    if "dying" in name:
        sys.stderr.write(f"dying: token={os.environ.get('HOSTILE_TOKEN', '')}\n")
        sys.stderr.flush()
        os._exit(3)
    if "badutf8" in name:
        head = json.dumps({"jsonrpc": "2.0", "id": request_id, "result": {"content": [{"type": "text", "text": "X"}]}})
        out.write(head.replace('"X"', '"bad \xff\xfe bytes"').encode("latin-1") + b"\n")
        out.flush()
        return
    if "brokenjson" in name:
        out.write(b"\xff\xfe{not json\n")
        out.flush()
        return
    if "chatty" in name:
        out.write(b"a plain line a library printed\n")
        out.flush()
        result(request_id, "ok")
        return
    if "silent" in name:
        return
    if "huge" in name:
        size = int(float(os.environ.get("HOSTILE_HUGE_MB", "20")) * 1_000_000)
        result(request_id, "x" * size)
        return
    if "flood" in name:
        line = "flood " * 16 + "\n"
        for _ in range(int(float(os.environ.get("HOSTILE_FLOOD_MB", "20")) * 1_000_000) // len(line)):
            sys.stderr.write(line)
        sys.stderr.flush()
        result(request_id, "flooded")
        return
    result(request_id, f"echo: {args.get('text', '')}")


def main() -> None:
    if os.environ.get("HOSTILE_EXIT_IF") and os.path.exists(os.environ["HOSTILE_EXIT_IF"]):
        sys.exit(1)
    tools = sys.argv[1:] or DEFAULT_TOOLS
    for raw in sys.stdin.buffer:
        try:
            message = json.loads(raw)
        except ValueError:
            continue
        method, request_id = message.get("method"), message.get("id")
        if request_id is None:  # a notification
            continue
        if method == "initialize":
            version = message["params"].get("protocolVersion", "2025-06-18")
            send(
                {
                    "jsonrpc": "2.0",
                    "id": request_id,
                    "result": {
                        "protocolVersion": version,
                        "capabilities": {"tools": {}},
                        "serverInfo": {"name": "hostile", "version": "1"},
                    },
                }
            )
        elif method == "tools/list":
            schema = {"type": "object", "properties": {"text": {"type": "string"}}}
            listed = [{"name": t, "description": "a hostile tool", "inputSchema": schema} for t in tools]
            send({"jsonrpc": "2.0", "id": request_id, "result": {"tools": listed}})
        elif method == "tools/call":
            call(request_id, message["params"]["name"], message["params"].get("arguments") or {})
        elif method == "ping":
            send({"jsonrpc": "2.0", "id": request_id, "result": {}})
        else:
            send({"jsonrpc": "2.0", "id": request_id, "error": {"code": -32601, "message": f"no method {method}"}})


if __name__ == "__main__":
    main()

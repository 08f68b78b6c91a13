"""Deterministic, realistic tool-output text for tests and benchmarks (no network, no corpus copy).

Categories mirror what real agent sessions put into context: prose, source code, JSON (pretty and
minified), logs, base64 blobs, CJK text and markdown. Code is taken from the interpreter's own
standard library so it is real code, not lorem ipsum.
"""

from __future__ import annotations

import base64
import inspect
import json
import random
import string

CATEGORIES = ("prose", "code", "json", "json_min", "logs", "base64", "cjk", "markdown")

_WORDS = (
    "the of and to in is that for it as was with be by on not he this are or his from at which but have an they "
    "you were her she there been one all we their has would when if so what more will about up out them then "
    "could into only other time some these two may first any like now my such make over our even most me state "
    "after also made many did must before back see through way where get much go well your know should down "
    "work year because come people just say each those take day good how long little very still own new give "
    "reservation flight passenger booking refund cabin economy business payment policy user request baggage "
    "function variable returns exception configuration repository implementation dependency environment module "
    "database transaction performance latency throughput interface documentation deployment"
).split()

_CJK = (
    "的一是在不了有和人这中大为上个国我以要他时来用们生到作地于出就分对成会可主发年动同工也能下过子说产种面而方后多定行学法所民得经"
    "十三之进着等部度家电力里如水化高自二理起小物现实加量都两体制机当使点从业本去把性好应开它合还因由其些然前外天政四日那社义事平形相全表间样与关各重新线内数正心反你明看原又么利比或但质气第向道命此变条只没结解问意建月公无系军很情者最立代想已通并提直题党程展五果料象员革位入常文总次品式活设及管特件长求老头基资边流路级少图山统接知较将组见计别她手角期根论运农指几九区强放决西被干做必战先回则任取据处理府研"
)

_LEVELS = ("INFO", "INFO", "INFO", "DEBUG", "WARNING", "ERROR")
_MODULES = ("http.server", "db.pool", "worker", "scheduler", "auth", "cache", "api.v2.orders")


def _code(rng: random.Random, size: int) -> str:
    import argparse
    import json as json_mod
    import textwrap
    import typing

    sources = [inspect.getsource(m) for m in (argparse, json_mod.decoder, textwrap, typing)]
    src = sources[rng.randrange(len(sources))]
    start = rng.randrange(max(1, len(src) - size))
    return src[start : start + size]


def _prose(rng: random.Random, size: int) -> str:
    out: list[str] = []
    n = 0
    while n < size:
        sentence = " ".join(rng.choice(_WORDS) for _ in range(rng.randint(6, 18)))
        sentence = sentence[0].upper() + sentence[1:] + rng.choice((".", ".", ".", ",", "?", "!"))
        out.append(sentence)
        n += len(sentence) + 1
        if rng.random() < 0.15:
            out.append("\n\n")
    return " ".join(out)[:size]


def _record(rng: random.Random, i: int) -> dict:
    return {
        "id": f"{rng.choice(string.ascii_uppercase)}{rng.randint(10000, 99999)}",
        "index": i,
        "name": " ".join(rng.choice(_WORDS) for _ in range(2)).title(),
        "price": round(rng.uniform(1, 2000), 2),
        "tags": [rng.choice(_WORDS) for _ in range(rng.randint(0, 4))],
        "active": rng.random() < 0.5,
        "created": f"2024-0{rng.randint(1, 9)}-{rng.randint(10, 28)}T{rng.randint(10, 23)}:{rng.randint(10, 59)}:00Z",
        "owner": {"email": f"{rng.choice(_WORDS)}.{rng.choice(_WORDS)}@example.com", "score": rng.randint(0, 100)},
    }


def _json(rng: random.Random, size: int, *, minified: bool) -> str:
    pieces: list[str] = []
    n = 0
    while n < size:
        record = _record(rng, len(pieces))
        piece = json.dumps(record, separators=(",", ":")) if minified else json.dumps(record, indent=2)
        pieces.append(piece)
        n += len(piece) + 2
    body = ",".join(pieces) if minified else ",\n".join(pieces)
    return ('{"results":[' + body + "]}" if minified else '{\n  "results": [\n' + body + "\n  ]\n}")[:size]


def _logs(rng: random.Random, size: int) -> str:
    lines: list[str] = []
    n = 0
    while n < size:
        line = (
            f"2024-05-{rng.randint(10, 28)} {rng.randint(10, 23)}:{rng.randint(10, 59)}:{rng.randint(10, 59)},"
            f"{rng.randint(100, 999)} {rng.choice(_LEVELS):<7} [{rng.choice(_MODULES)}] "
            f"req={rng.getrandbits(32):08x} {rng.choice(('GET', 'POST', 'PUT'))} /api/v2/{rng.choice(_WORDS)}/"
            f"{rng.randint(1, 99999)} status={rng.choice((200, 200, 201, 404, 500))} "
            f"duration_ms={rng.uniform(0.5, 900):.1f} {' '.join(rng.choice(_WORDS) for _ in range(rng.randint(0, 6)))}"
        )
        lines.append(line)
        n += len(line) + 1
    return "\n".join(lines)[:size]


def _base64(rng: random.Random, size: int) -> str:
    raw = rng.randbytes(size * 3 // 4 + 3)
    text = base64.b64encode(raw).decode()[:size]
    return "\n".join(text[i : i + 76] for i in range(0, len(text), 76))


def _cjk(rng: random.Random, size: int) -> str:
    out: list[str] = []
    for i in range(size):
        out.append(rng.choice(_CJK))
        if i % 17 == 16:
            out.append(rng.choice("，。、；"))
    return "".join(out)[:size]


def _markdown(rng: random.Random, size: int) -> str:
    parts: list[str] = []
    n = 0
    while n < size:
        kind = rng.random()
        if kind < 0.2:
            block = f"## {_prose(rng, 40).strip().title()}\n"
        elif kind < 0.5:
            block = "\n".join(f"- {_prose(rng, rng.randint(20, 80))}" for _ in range(rng.randint(2, 5))) + "\n"
        elif kind < 0.7:
            block = f"```python\n{_code(rng, rng.randint(100, 400))}\n```\n"
        else:
            block = _prose(rng, rng.randint(100, 400)) + "\n"
        parts.append(block)
        n += len(block)
    return "\n".join(parts)[:size]


def make_text(category: str, size: int, seed: int = 0) -> str:
    """`size` characters of realistic `category` content, identical for the same arguments."""
    rng = random.Random(f"{category}:{size}:{seed}")
    if category == "prose":
        return _prose(rng, size)
    if category == "code":
        return _code(rng, size)
    if category == "json":
        return _json(rng, size, minified=False)
    if category == "json_min":
        return _json(rng, size, minified=True)
    if category == "logs":
        return _logs(rng, size)
    if category == "base64":
        return _base64(rng, size)
    if category == "cjk":
        return _cjk(rng, size)
    if category == "markdown":
        return _markdown(rng, size)
    raise ValueError(f"unknown category {category!r}")

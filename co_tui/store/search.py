"""Searching saved sessions (`SessionStore.search`): titles and the full text of every transcript, through
the FTS5 indexes the search migration keeps in step (`migrations.SEARCH_MIGRATION`).

The user's words never reach FTS5's query syntax: each word (or `"quoted phrase"`) becomes one quoted
FTS5 phrase, so `NEAR`, `AND`, `*`, `(`, `:` and unbalanced quotes are only text, and a query never
raises. A bare word matches as a prefix (`pars` finds `parser`: the picker searches as you type); a
quoted phrase matches its words in a row. Every phrase must be in the same message, or all in the
title. A session's snippet comes from its newest matching message: the index holds no text, so the
message's words are read back from its row (`migrations.words_sql`) and the hits found again here,
folded as the tokenizer folds them (case, diacritics), between `HIT_START` and `HIT_END`
(`hit_segments` splits them for display).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from co_tui.session.migrations import words_sql
from co_tui.session.saved_session import SessionHit
from co_tui.text import escape_controls

if TYPE_CHECKING:
    import sqlite3

    from co_tui.session.saved_session import SessionMeta

HIT_START = "\x02"
HIT_END = "\x03"
MAX_QUERY_CHARS = 500
MAX_TERMS = 16
SNIPPET_TOKENS = 12  # words of context a snippet shows around its hits
_OWN_BRANCH = 1 << 40  # ranks a hit in the branch in use above any seq of another branch

# A quoted phrase, or a run of anything but white space (an unbalanced `"` stays in its word).
_TERM = re.compile(r'"([^"]*)"|(\S+)')


# A token as FTS5's unicode61 tokenizer sees one: a run of letters and digits.
_TOKEN = re.compile(r"[^\W_]+")


def _terms(query: str) -> list[tuple[str, bool]]:
    """The query's terms: (text, is a bare word), those with a word in them, at most `MAX_TERMS`."""
    terms = []
    for quoted, word in _TERM.findall(query[:MAX_QUERY_CHARS].replace("\x00", " ")):
        text = quoted or word
        if _TOKEN.search(text):  # else nothing the tokenizer keeps: it would match nothing
            terms.append((text, not quoted))
    return terms[:MAX_TERMS]


def match_expression(query: str) -> str | None:
    """The FTS5 query for the user's `query`, every term quoted (see module docstring); None when it
    holds no word to search for (only punctuation, or nothing)."""
    phrases = ['"' + text.replace('"', '""') + '"' + ("*" if bare else "") for text, bare in _terms(query)]
    return " ".join(phrases) or None


def _fold(token: str) -> str:
    """A token as the index compares it: case and diacritics removed."""
    if token.isascii():
        return token.lower()
    return "".join(c for c in unicodedata.normalize("NFKD", token) if not unicodedata.combining(c)).casefold()


def make_snippet(text: str, query: str, width: int = SNIPPET_TOKENS) -> str:
    """About `width` words of `text` around the first hit of `query`'s terms, every hit between
    `HIT_START` and `HIT_END`, "…" where text was left out. No hit found: the text's start.

    A tool's output may be megabytes: only a window around the first place a term's first word
    appears (ignoring case) is tokenized."""
    terms = _terms(query)
    firsts = [_TOKEN.search(term) for term, _bare in terms]
    spotted = re.search("|".join(re.escape(m.group()) for m in firsts if m), text, re.IGNORECASE) if terms else None
    at = spotted.start() if spotted else 0
    low = max(0, at - _WINDOW // 4)
    window = text[low : at + _WINDOW]
    snippet = _window_snippet(window, terms, width)
    lead = "…" if low > 0 and not snippet.startswith("…") else ""
    tail = "…" if at + _WINDOW < len(text) and not snippet.endswith("…") else ""
    return lead + snippet + tail


_WINDOW = 600  # characters of a long text tokenized for its snippet
_LEAD = 3  # words a snippet shows before its first hit: in a narrow column the hit stays in sight


def _window_snippet(text: str, terms: list[tuple[str, bool]], width: int) -> str:
    tokens = list(_TOKEN.finditer(text))
    if not tokens:
        return text[:200]
    folded = [_fold(t.group()) for t in tokens]
    phrases = [([_fold(w) for w in _TOKEN.findall(term)], bare) for term, bare in terms]

    def hit_at(i: int) -> int:
        """How many tokens from `i` on a phrase of the query matches (0: none)."""
        for words, bare in phrases:
            n = len(words)
            if i + n <= len(folded) and folded[i : i + n - 1] == words[:-1]:
                last = folded[i + n - 1]
                if last.startswith(words[-1]) if bare else last == words[-1]:
                    return n
        return 0

    # Only the first hit is looked for in the whole window; hits are marked in the shown part.
    first = next((i for i in range(len(tokens)) if hit_at(i)), 0)
    start = max(0, first - _LEAD)
    stop = min(len(tokens), start + width)
    hit = [False] * len(tokens)
    for i in range(start, stop):
        if n := hit_at(i):
            hit[i : i + n] = [True] * n
    # From the white space before that token: `file_2.py` stays whole, not `…py`. (Every token
    # before the first hit is not a hit.)
    spaces = [m.end() for m in re.finditer(r"\s+", text[: tokens[start].start()])]
    word_start = spaces[-1] if spaces else 0
    at = word_start if tokens[start].start() - word_start < 40 else tokens[start].start()
    out = ["…" if at > 0 else ""]
    for i in range(start, stop):
        token = tokens[i]
        out.append(text[at : token.start()])
        out.append(f"{HIT_START}{token.group()}{HIT_END}" if hit[i] else token.group())
        at = token.end()
    if stop < len(tokens):
        out.append(text[at : tokens[stop].start()].rstrip() + "…")
    else:
        out.append(text[at:])
    return "".join(out)


def hit_segments(snippet: str) -> list[tuple[str, bool]]:
    """`snippet` (a `SessionHit.snippet`) as one line of (text, is_hit) pieces, in order: white
    space collapsed, control characters escaped, so it is safe on a terminal."""
    line = " ".join(snippet.split())
    out: list[tuple[str, bool]] = []
    for i, piece in enumerate(re.split(f"[{HIT_START}{HIT_END}]", line)):
        if piece:
            out.append((escape_controls(piece), i % 2 == 1))
    return out


def search_rows(
    conn: sqlite3.Connection,
    query: str,
    *,
    workspace: str | None,
    limit: int,
    meta_columns: str,
    meta_from_row: Callable[[Sequence[Any]], SessionMeta],
) -> list[SessionHit]:
    """The sessions (of `workspace`, or all) whose title or a transcript message matches `query`,
    most recently updated first, at most `limit`; none for a query without words."""
    expression = match_expression(query)
    if expression is None:
        return []
    columns = ", ".join(f"s.{c.strip()}" for c in meta_columns.split(","))
    in_workspace = "AND s.workspace = :workspace" if workspace is not None else ""
    # A rewound session keeps its other branches' rows under storage rows of its own (`branch_of`
    # set, never listed: branch_rows.py): a hit there is a hit of the session that owns them, its
    # own rows first. `t.seq`/`t.rowid` are bare columns next to max(): SQLite takes them from the
    # row with the best rank (own branch, then the newest seq).
    rows = conn.execute(
        f"""WITH text_hits AS (
                SELECT coalesce(o.branch_of, o.id) AS sid,
                       max(t.seq + CASE WHEN o.branch_of IS NULL THEN {_OWN_BRANCH} ELSE 0 END) AS rank,
                       t.seq AS seq, t.rowid AS rid
                FROM transcript_search AS f JOIN transcript AS t ON t.rowid = f.rowid
                JOIN sessions AS o ON o.id = t.session_id
                WHERE transcript_search MATCH :match GROUP BY coalesce(o.branch_of, o.id)),
            title_hits AS (
                SELECT s.id AS sid FROM title_search AS f JOIN sessions AS s ON s.rowid = f.rowid
                WHERE title_search MATCH :match AND s.branch_of IS NULL)
            SELECT {columns}, CASE WHEN h.rank >= {_OWN_BRANCH} THEN h.seq END, h.rid
            FROM sessions AS s LEFT JOIN text_hits AS h ON h.sid = s.id
            WHERE s.branch_of IS NULL AND (h.sid IS NOT NULL OR s.id IN (SELECT sid FROM title_hits)) {in_workspace}
            ORDER BY s.updated DESC, s.rowid DESC LIMIT :limit""",
        {"match": expression, "workspace": workspace, "limit": limit},
    ).fetchall()
    hits = []
    for row in rows:
        *meta_row, seq, rid = row
        snippet = ""
        if rid is not None:
            found = conn.execute(f"SELECT {words_sql('body')} FROM transcript WHERE rowid = ?", (rid,)).fetchone()
            snippet = make_snippet(str(found[0] or ""), query) if found else ""
        hits.append(SessionHit(meta_from_row(meta_row), snippet, seq))
    return hits

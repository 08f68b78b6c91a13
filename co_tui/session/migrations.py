"""The sessions database schema, versioned with `PRAGMA user_version` and migrated forward only.

Layout (one row per thing, so a turn's save only appends or touches a short tail):

- `sessions`: one row of metadata per conversation; `revision` counts saves, so a process can tell
  whether another one wrote the session since it last looked.
- `transcript`: every message, append-only, `seq` = its index in the transcript. `body` is one
  message as `ModelMessagesTypeAdapter` JSON (the list brackets stripped); `digest` hashes the body.
- `context`: what the model sees next, one row per message in `ord` order (sparse keys, see
  `context_diff.py`, so rows can come and go at the head or in the middle without renumbering the
  rest). A row either points at a transcript message (`transcript_seq`, verbatim) or carries its own
  `body` — messages only the context has: breadcrumbs, summaries, trimmed copies of tool outputs.
- `ledger`: every `history_trimmed` event in order; `at_message` is the transcript length when the
  cut happened, which is where an export puts its banner.

Version 2 adds `sessions.cost_usd`: the session's cost in USD so far, NULL when unknown (an unpriced
model, or a session saved before costs were kept), so the session list needs no transcript.

Version 3 (docs/context-governance.md, "Undo a cut" and "Pins") adds `ledger.undo`, what undoing
that row needs — `{"before": [...]}` the context before the cut (each item a transcript index, or a
message body of the context's own), `{"same": true}` the same context as the row before (one pass),
`{"undoes": k}` for a restore — and the `pins` table: one row per pinned turn, by the transcript
index of its user prompt.

Version 4 adds `token_counts`: each saved message's token estimate, keyed by its row digest and
the estimator version (`token_counts.py`), so a resumed session's first governance pass does not
count every message again.

Version 5 adds `sessions.conversation_counts`: the transcript's turns and chat-log items as JSON
(`conversation_counts.py`), kept by every save, so a resume counts what it does not show without
reading every row. NULL (older sessions) is counted from the rows once, at the next resume.

Version 6 adds `file_checkpoints`: each file edit the agent made (`write_file`, `edit_file`), with
the file's previous content (`before`, NULL when the edit created the file) and a hash of what it
wrote, in the session's order (`seq`), tied to the tool call that made it (`agent/checkpoints.py`):
what a rewind needs to put the files back. No foreign key: a checkpoint is written before the edit,
which may come before the session's first save; deleting a session deletes its rows.

Version 7 adds the conversation tree (docs/context-governance.md, "Rewind and branches"):
- `marks`: per user prompt (`position`, its transcript index), what the model was about to be sent
  just before it went out — the ledger's length, the pins, the meter's figure and the context, as
  JSON items deduplicated against the transcript: a transcript index, `[first, last]` for a run of
  consecutive ones, or the hex digest of a body kept once per session in `mark_bodies` (a marker, a
  summary, a trimmed copy); or `{"base", "keep", "add", "depth"}`, the mark at `base` cut to `keep`
  items plus `add` (a turn's few). A turn adds one short row; a rewind restores the context exactly.
- `branches`: the tree — each branch's `parent`, and how many transcript messages (`fork_at`) and
  ledger rows (`fork_ledger`) it shares with it, and the turn it was rewound to (`fork_turn`). No
  rows: one branch, 0 (a session saved before).
- `sessions.branch`: the branch in use, whose rows are the session's own (every query above reads
  them as before); another branch's rows are kept under a row of `sessions` of its own, id
  `<session>.b<branch>`, `branch_of` naming the session (never listed). Switching moves the rows
  in one transaction.
- `sessions.forked_from`, `sessions.forked_at`: a session made by `/fork` or `--fork-session`, the
  session it was copied from and how many of its turns it holds.
- `file_checkpoints.branch`: the branch whose turn made the edit (a rewind restores its own files).

Version 8, the search migration (`SEARCH_MIGRATION`, appended last; docs/configuration.md,
"Searching saved sessions"), adds two FTS5 indexes, kept in step by triggers, so every write of a
row — a save, a delete's cascade, a rewind's copies — updates them in its own transaction, whoever
writes (a branch switch moves rows by `session_id` and touches neither index: the search maps a
storage row's hits to the session that owns it):
- `transcript_search`: each transcript row's words (`words_sql`: the text of every part but the
  system prompt — a prompt, an answer, a tool call's arguments, a tool's output — read from the
  stored body, so only redacted text is indexed), keyed by the row's rowid. Contentless: the index
  holds no copy of the text (a snippet reads it back from the row), so a row leaves the index by
  passing the same words again, which `words_sql` computes from the same body.
- `title_search` over `sessions.title` (external content: the sessions table).
It backfills both from the rows already there. Its statements say `IF NOT EXISTS`, so it is one
self-contained step whatever version it runs after.

A database whose `user_version` is newer than `SCHEMA_VERSION` was written by a newer co-tui: the
store refuses it rather than risk writing rows that version would misread.
"""

from __future__ import annotations

import sqlite3

# Each entry upgrades the schema from version i to i + 1 (list index i). Statements run one by one
# inside the caller's transaction (executescript would commit behind our back).
MIGRATIONS: tuple[tuple[str, ...], ...] = (
    (
        """CREATE TABLE sessions (
            id               TEXT PRIMARY KEY,
            title            TEXT NOT NULL DEFAULT '',
            created          REAL NOT NULL,
            updated          REAL NOT NULL,
            model            TEXT NOT NULL DEFAULT '',
            workspace        TEXT NOT NULL DEFAULT '',
            messages         INTEGER NOT NULL DEFAULT 0,
            context_messages INTEGER NOT NULL DEFAULT 0,
            tokens           INTEGER NOT NULL DEFAULT 0,
            revision         INTEGER NOT NULL DEFAULT 0,
            damaged          TEXT
        )""",
        "CREATE INDEX sessions_by_workspace ON sessions (workspace, updated)",
        "CREATE INDEX sessions_by_updated ON sessions (updated)",
        """CREATE TABLE transcript (
            session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
            seq        INTEGER NOT NULL,
            kind       TEXT NOT NULL,
            digest     BLOB NOT NULL,
            body       TEXT NOT NULL,
            UNIQUE (session_id, seq)
        )""",
        # seq in the index: "the newest row with this body" is answered from the index alone.
        "CREATE INDEX transcript_by_digest ON transcript (session_id, digest, seq)",
        """CREATE TABLE context (
            session_id     TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
            ord            INTEGER NOT NULL,
            transcript_seq INTEGER,
            digest         BLOB NOT NULL,
            body           TEXT,
            UNIQUE (session_id, ord),
            CHECK ((transcript_seq IS NULL) <> (body IS NULL))
        )""",
        """CREATE TABLE ledger (
            session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
            seq        INTEGER NOT NULL,
            at_message INTEGER NOT NULL,
            created    REAL NOT NULL,
            event      TEXT NOT NULL,
            UNIQUE (session_id, seq)
        )""",
    ),
    ("ALTER TABLE sessions ADD COLUMN cost_usd REAL",),
    (
        # Undo a cut: per ledger row, the context before it (JSON, see co_tui/store/steering_rows.py).
        "ALTER TABLE ledger ADD COLUMN undo TEXT",
        # Pinned turns, by the transcript index of the turn's user prompt.
        """CREATE TABLE pins (
            session_id     TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
            transcript_seq INTEGER NOT NULL,
            UNIQUE (session_id, transcript_seq)
        )""",
    ),
    (
        """CREATE TABLE token_counts (
            session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
            digest     BLOB NOT NULL,
            estimator  INTEGER NOT NULL,
            tokens     INTEGER NOT NULL,
            PRIMARY KEY (session_id, digest)
        ) WITHOUT ROWID""",
    ),
    ("ALTER TABLE sessions ADD COLUMN conversation_counts TEXT",),
    (
        """CREATE TABLE file_checkpoints (
            session_id    TEXT NOT NULL,
            seq           INTEGER NOT NULL,
            created       REAL NOT NULL,
            at_message    INTEGER NOT NULL,
            tool          TEXT NOT NULL,
            tool_call_id  TEXT NOT NULL,
            path          TEXT NOT NULL,
            before        BLOB,
            before_bytes  INTEGER NOT NULL,
            after_sha256  TEXT NOT NULL,
            UNIQUE (session_id, seq)
        )""",
    ),
    (
        "ALTER TABLE sessions ADD COLUMN branch INTEGER NOT NULL DEFAULT 0",
        "ALTER TABLE sessions ADD COLUMN branch_of TEXT",
        "ALTER TABLE sessions ADD COLUMN forked_from TEXT",
        "ALTER TABLE sessions ADD COLUMN forked_at INTEGER",
        "ALTER TABLE file_checkpoints ADD COLUMN branch INTEGER NOT NULL DEFAULT 0",
        """CREATE TABLE branches (
            session_id  TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
            id          INTEGER NOT NULL,
            parent      INTEGER,
            fork_at     INTEGER NOT NULL,
            fork_ledger INTEGER NOT NULL,
            fork_turn   INTEGER NOT NULL DEFAULT 0,
            created     REAL NOT NULL,
            PRIMARY KEY (session_id, id)
        ) WITHOUT ROWID""",
        """CREATE TABLE marks (
            session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
            position   INTEGER NOT NULL,
            ledger_len INTEGER NOT NULL,
            tokens     INTEGER NOT NULL,
            created    REAL NOT NULL,
            pins       TEXT NOT NULL,
            context    TEXT NOT NULL,
            PRIMARY KEY (session_id, position)
        ) WITHOUT ROWID""",
        """CREATE TABLE mark_bodies (
            session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
            digest     BLOB NOT NULL,
            body       TEXT NOT NULL,
            PRIMARY KEY (session_id, digest)
        ) WITHOUT ROWID""",
        "CREATE INDEX sessions_by_branch_of ON sessions (branch_of)",
    ),
)


def words_sql(body: str) -> str:
    """SQL for the searchable text of a transcript row's `body` (a message's JSON): each part's
    `content` (a string as it is; a list: its strings; anything else as JSON) or else its `args`,
    one part a line, system prompts left out. A body that is not valid JSON text has none: a
    damaged row must not fail the write that damaged it.

    Part of the schema: the index is contentless, so deleting a row passes these words again and
    they must come out as they went in. Never change this expression; a new one needs a migration
    that rebuilds the index."""
    return f"""coalesce((
        SELECT group_concat(coalesce(
            CASE json_type(p.value, '$.content')
                WHEN 'text' THEN json_extract(p.value, '$.content')
                WHEN 'array' THEN (SELECT group_concat(e.value, ' ') FROM json_each(p.value, '$.content') AS e
                                   WHERE e.type = 'text')
                ELSE json_extract(p.value, '$.content') END,
            json_extract(p.value, '$.args')), char(10))
        FROM json_each(CASE WHEN typeof({body}) = 'text' AND json_valid({body}) THEN {body} ELSE '{{}}' END, '$.parts')
            AS p
        WHERE json_extract(p.value, '$.part_kind') IS NOT 'system-prompt'), '')"""


_TOKENIZER = "tokenize = 'unicode61 remove_diacritics 2'"

# The two indexes and how each is filled from the rows it indexes (the backfill; `co_tui/store/search_index.py`
# runs them again to rebuild a damaged index). Never change them: they are part of the schema.
TRANSCRIPT_SEARCH_TABLE = (
    f"CREATE VIRTUAL TABLE IF NOT EXISTS transcript_search USING fts5(text, content = '', {_TOKENIZER})"
)
TITLE_SEARCH_TABLE = (
    f"CREATE VIRTUAL TABLE IF NOT EXISTS title_search USING fts5(title, content = 'sessions', {_TOKENIZER})"
)
TRANSCRIPT_SEARCH_FILL = (
    "INSERT INTO transcript_search (transcript_search) VALUES ('delete-all')",
    f"INSERT INTO transcript_search (rowid, text) SELECT rowid, {words_sql('body')} FROM transcript",
)
TITLE_SEARCH_FILL = "INSERT INTO title_search (title_search) VALUES ('rebuild')"

SEARCH_MIGRATION: tuple[str, ...] = (
    TRANSCRIPT_SEARCH_TABLE,
    f"""CREATE TRIGGER IF NOT EXISTS transcript_search_insert AFTER INSERT ON transcript BEGIN
        INSERT INTO transcript_search (rowid, text) VALUES (new.rowid, {words_sql("new.body")});
    END""",
    f"""CREATE TRIGGER IF NOT EXISTS transcript_search_delete AFTER DELETE ON transcript BEGIN
        INSERT INTO transcript_search (transcript_search, rowid, text)
        VALUES ('delete', old.rowid, {words_sql("old.body")});
    END""",
    f"""CREATE TRIGGER IF NOT EXISTS transcript_search_update AFTER UPDATE OF body ON transcript BEGIN
        INSERT INTO transcript_search (transcript_search, rowid, text)
        VALUES ('delete', old.rowid, {words_sql("old.body")});
        INSERT INTO transcript_search (rowid, text) VALUES (new.rowid, {words_sql("new.body")});
    END""",
    TITLE_SEARCH_TABLE,
    """CREATE TRIGGER IF NOT EXISTS title_search_insert AFTER INSERT ON sessions BEGIN
        INSERT INTO title_search (rowid, title) VALUES (new.rowid, new.title);
    END""",
    """CREATE TRIGGER IF NOT EXISTS title_search_delete AFTER DELETE ON sessions BEGIN
        INSERT INTO title_search (title_search, rowid, title) VALUES ('delete', old.rowid, old.title);
    END""",
    # Every save sets the title (to itself, mostly): only a change touches the index.
    """CREATE TRIGGER IF NOT EXISTS title_search_update AFTER UPDATE OF title ON sessions
    WHEN old.title IS NOT new.title BEGIN
        INSERT INTO title_search (title_search, rowid, title) VALUES ('delete', old.rowid, old.title);
        INSERT INTO title_search (rowid, title) VALUES (new.rowid, new.title);
    END""",
    # The backfill: both indexes from the rows already there ('delete-all' first: a step run again
    # over an index it built must not count every row twice).
    *TRANSCRIPT_SEARCH_FILL,
    TITLE_SEARCH_FILL,
)

# Appended after the tuple above, so it stays the last step whatever entries are added before it.
MIGRATIONS += (SEARCH_MIGRATION,)

SCHEMA_VERSION = len(MIGRATIONS)


def schema_version(conn: sqlite3.Connection) -> int:
    """The database's `PRAGMA user_version` (0 for a new, empty file)."""
    return int(conn.execute("PRAGMA user_version").fetchone()[0])


def migrate(conn: sqlite3.Connection, from_version: int) -> None:
    """Apply every migration after `from_version`, then stamp `SCHEMA_VERSION`.

    The caller holds a write transaction, so a crash mid-migration leaves the old schema intact.
    """
    for statements in MIGRATIONS[from_version:]:
        for statement in statements:
            conn.execute(statement)
    # PRAGMA takes no bound parameters; the value is our own integer constant.
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")

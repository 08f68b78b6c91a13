"""The session store (`co_tui.store`): one SQLite file holding every conversation's transcript, context and ledger.

`SessionStore.open(data_dir)` opens (creating if needed) `<data_dir>/sessions.db`: directory mode
700, file mode 600, WAL journal, a ~3 s busy timeout, schema migrated forward by `PRAGMA
user_version` (see `co_tui/session/migrations.py` for the layout and why it makes saving cheap).

Saving a turn (`save_turn`) is one transaction that appends the new transcript rows and ledger rows
and deletes/inserts only the context rows that left/arrived (writer.py; `session/context_diff.py`); its cost depends on
the turn, not on the session's length.

Searching (`search`, search.py) reads two FTS5 indexes over titles and every saved message's
text that the schema's own triggers keep in step with each write (`migrations.SEARCH_MIGRATION`).

Threads: one connection opened with `check_same_thread=False`, every public method serialised by
one lock: saves run in threads (`ChatSession` saves with `asyncio.to_thread`, the TUI clears and
exports in threads) while the UI thread lists sessions. Processes:
SQLite's own locking; a writer that cannot get the lock within the busy timeout gets
`StoreLocked`.

Errors are `StoreError` subclasses whose `str()` is one line for the user: `StoreLocked`,
`StoreFull` (disk full: nothing of that save was written, the caller keeps its in-memory session and
may save again later), `StoreCorrupt` (one damaged session or file), `StoreTooNew` (written by a
newer co-tui; never modified). pydantic-ai is imported only to encode and decode messages, so
listing sessions at TUI start-up stays light, and `load_tail` (tail.py) reads a session's newest rows as
plain JSON (the TUI shows a resumed conversation before pydantic-ai has loaded).

The package: `SessionStore` (session_store.py) is a `Database` (database.py: opening, the lock,
transactions) whose operations live in writer.py (saving), reader.py (loading), catalog.py
(listing, search, delete), branches.py (the conversation tree, forks) and checkpoints.py (file
checkpoints); the rows of each table family are branch_rows.py, steering_rows.py (pins, undo),
tail.py (a session's newest rows as plain JSON) and search.py (FTS5), whose indexes
search_index.py checks and rebuilds; errors.py has `StoreError` and its kinds. Import each name
from its module (this package exports nothing itself).
"""

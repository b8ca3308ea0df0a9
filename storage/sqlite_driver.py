"""The busy path's short reads and writes on SQLite's driver itself (`storage.driver`).

- `work` runs on the event loop's thread start to finish and must stay short. A read is one
  snapshot (`BEGIN` … `COMMIT`); whole-project reads go to `read_in_thread`.
- Reads run on a connection that only reads (`PRAGMA query_only`), one per thread, so a transaction
  is never shared. Writes run on a connection of their own in `BEGIN IMMEDIATE` … `COMMIT` (or
  `ROLLBACK` when `work` raises), after the caller took the process's write turn
  (`storage.inline_sqlite.WriteTurns`): `work` never awaits, so SQLite's write lock is never held
  across a pause of the loop.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from sqlalchemy import Executable, Select
from sqlalchemy.engine import Dialect
from sqlalchemy.sql.dml import UpdateBase

from storage.driver import Compiled, Found, Listener, Rows, Statements, T, Writes


class SQLiteDriver:
    """The SQLite file's driver-level reader and writer (one per `Database`)."""

    def __init__(self, file: str, dialect: Dialect, busy_timeout_ms: int) -> None:
        self._file = file
        self._dialect = dialect
        self._busy_timeout_ms = busy_timeout_ms
        self._statements = Statements(dialect)
        self._local = threading.local()
        self._opened: list[sqlite3.Connection] = []
        self._lock = threading.Lock()
        self.listeners: list[Listener] = []
        """Told of every statement and transaction (the tests' statement counts, as for the engines)."""

    def read(self, work: Callable[[Rows], T]) -> T:
        """`work` as one read transaction (one snapshot for all its statements)."""
        cursor = self._connection().cursor()
        cursor.execute("BEGIN")
        for listener in self.listeners:
            listener.began()
        try:
            result = work(_CursorRows(cursor, self._statements.compiled, self.listeners))
        finally:
            cursor.execute("COMMIT")  # a read has nothing to keep or undo: COMMIT ends it either way
            cursor.close()
        return result

    def write(self, work: Callable[[Writes], T]) -> T:
        """`work` as one write transaction: committed when it returns, rolled back when it raises.
        The caller holds the process's write turn."""
        cursor = self._connection(writer=True).cursor()
        cursor.execute("BEGIN IMMEDIATE")
        for listener in self.listeners:
            listener.began()
        try:
            result = work(_CursorRows(cursor, self._statements.compiled, self.listeners))
        except BaseException:
            cursor.execute("ROLLBACK")
            cursor.close()
            raise
        try:
            cursor.execute("COMMIT")
        except BaseException:
            if cursor.connection.in_transaction:
                cursor.execute("ROLLBACK")
            raise
        finally:
            cursor.close()
        return result

    def first(self, statement: Select[Any], params: Mapping[str, Any] | None = None) -> Found | None:
        """One statement's first row; a single statement is its own snapshot, no BEGIN needed."""
        cursor = self._connection().cursor()
        try:
            return _CursorRows(cursor, self._statements.compiled, self.listeners).first(statement, params)
        finally:
            cursor.close()

    def close(self) -> None:
        with self._lock:
            opened, self._opened = self._opened, []
        for connection in opened:
            connection.close()
        self._local = threading.local()

    def _connection(self, *, writer: bool = False) -> sqlite3.Connection:
        name = "writer" if writer else "connection"
        connection: sqlite3.Connection | None = getattr(self._local, name, None)
        if connection is None:
            connection = sqlite3.connect(
                self._file, isolation_level=None, check_same_thread=False, cached_statements=256
            )
            connection.execute(f"PRAGMA busy_timeout={self._busy_timeout_ms}")
            # As the engines' connections do: in WAL a read never waits for a writer, nor a writer for it.
            connection.execute("PRAGMA journal_mode=WAL")
            if writer:
                # As the engines' writers: the same durability, and the same foreign keys enforced.
                connection.execute("PRAGMA synchronous=NORMAL")
                connection.execute("PRAGMA foreign_keys=ON")
            else:
                connection.execute("PRAGMA query_only=ON")
            setattr(self._local, name, connection)
            with self._lock:
                self._opened.append(connection)
        return connection


class _CursorRows:
    def __init__(
        self, cursor: sqlite3.Cursor, compile: Callable[[Executable], Compiled], listeners: list[Listener]
    ) -> None:
        self._cursor = cursor
        self._compile = compile
        self._listeners = listeners

    def all(self, statement: Select[Any], params: Mapping[str, Any] | None = None) -> list[Found]:
        return self._compiled_rows(statement, params, None)

    def first(
        self, statement: Select[Any] | UpdateBase, params: Mapping[str, Any] | None = None
    ) -> Found | None:
        found = self._compiled_rows(statement, params, 1)
        return found[0] if found else None

    def run(self, statement: UpdateBase, params: Mapping[str, Any] | None = None) -> int:
        return self._execute(statement, params).rowcount

    def run_many(self, statement: UpdateBase, each: Sequence[Mapping[str, Any]]) -> None:
        compiled = self._compile(statement)
        for listener in self._listeners:
            listener.ran(compiled.sql)
        self._cursor.executemany(compiled.sql, [compiled.parameters(params) for params in each])

    def _compiled_rows(
        self, statement: Select[Any] | UpdateBase, params: Mapping[str, Any] | None, most: int | None
    ) -> list[Found]:
        compiled = self._compile(statement)
        cursor = self._execute(statement, params, compiled)
        return compiled.rows(cursor.fetchall() if most is None else cursor.fetchmany(most))

    def _execute(
        self, statement: Executable, params: Mapping[str, Any] | None, compiled: Compiled | None = None
    ) -> sqlite3.Cursor:
        compiled = compiled or self._compile(statement)
        for listener in self._listeners:
            listener.ran(compiled.sql)
        return self._cursor.execute(compiled.sql, compiled.parameters(params))

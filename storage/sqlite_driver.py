"""The busy path's short reads and writes on SQLite's driver itself, without SQLAlchemy's machinery.

Every agent call reads a few rows: the token, the caller's rooms, the scene it asks for. SQLite
answers each statement in 10-30 µs; SQLAlchemy spent ~80 µs more around each one (compiled-cache
lookup, execution context, result objects, the ORM's loading), which made most of a read tool's
server time (issue 16, docs/performance.md). Here a Core `SELECT` is compiled once, and then runs
on a `sqlite3` connection of this module's own with SQLAlchemy's type conversions for its
parameters and columns, looked up once per statement: the same values SQLAlchemy would return.

What it asks of its callers (kept by `storage.database.Database.read_rows` and `write_rows`):
- Statements are built once (module constants), select columns (no ORM entities) and have no
  expanding `IN` parameters; the compiled form is kept per statement.
- `work` is synchronous: it runs on the event loop's thread start to finish and must stay short.
  A read is one snapshot (`BEGIN` … `COMMIT`); whole-project reads go to `read_in_thread`.
- Reads run on a connection that only reads (`PRAGMA query_only`), one per thread, so a transaction
  is never shared. Writes run on a connection of their own in `BEGIN IMMEDIATE` … `COMMIT` (or
  `ROLLBACK` when `work` raises), after the caller took the process's write turn
  (`storage.inline_sqlite.WriteTurns`): `work` never awaits, so SQLite's write lock is never held
  across a pause of the loop.
"""

from __future__ import annotations

import sqlite3
import threading
from collections import namedtuple
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol, TypeVar

from sqlalchemy import BindParameter, Executable, Select
from sqlalchemy.engine import Connection, Dialect
from sqlalchemy.sql.dml import UpdateBase

T = TypeVar("T")
Found = Any
"""A row read: index it, unpack it, or read its columns by name (`row.owner_id`)."""
_MOST_STATEMENTS = 512


class Listener(Protocol):
    def began(self) -> None: ...

    def ran(self, sql: str) -> None: ...


class Rows(Protocol):
    """What a read's `work` is handed: its statements' rows, all read in one snapshot."""

    def all(self, statement: Select[Any], params: Mapping[str, Any] | None = None) -> list[Found]: ...

    def first(self, statement: Select[Any], params: Mapping[str, Any] | None = None) -> Found | None: ...


class Writes(Rows, Protocol):
    """What a write's `work` is handed: reads as in `Rows`, and statements that change rows."""

    def first(
        self, statement: Select[Any] | UpdateBase, params: Mapping[str, Any] | None = None
    ) -> Found | None:
        """A SELECT's first row, or the first row an INSERT, UPDATE or DELETE returns (`RETURNING`)."""
        ...

    def run(self, statement: UpdateBase, params: Mapping[str, Any] | None = None) -> int:
        """Run an INSERT, UPDATE or DELETE; how many rows it matched."""
        ...


class SQLiteDriver:
    """The SQLite file's driver-level reader and writer (one per `Database`)."""

    def __init__(self, file: str, dialect: Dialect, busy_timeout_ms: int) -> None:
        self._file = file
        self._dialect = dialect
        self._busy_timeout_ms = busy_timeout_ms
        self._compiled: dict[Executable, _Compiled] = {}
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
            result = work(_CursorRows(cursor, self._compile, self.listeners))
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
            result = work(_CursorRows(cursor, self._compile, self.listeners))
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
            return _CursorRows(cursor, self._compile, self.listeners).first(statement, params)
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

    def _compile(self, statement: Executable) -> _Compiled:
        compiled = self._compiled.get(statement)
        if compiled is None:
            if len(self._compiled) >= _MOST_STATEMENTS:
                # Statements are meant to be built once; a caller building them per call would
                # otherwise grow this without end.
                self._compiled.clear()
            compiled = self._compiled[statement] = _Compiled(statement, self._dialect)
        return compiled


def alchemy_rows(connection: Connection) -> Writes:
    """The same reads and writes through SQLAlchemy (PostgreSQL, where a statement awaits the network)."""
    return _AlchemyRows(connection)


class _Compiled:
    """A statement in the driver's terms: its SQL, where each parameter comes from and how it is
    converted, and its columns' conversions and names."""

    def __init__(self, statement: Executable, dialect: Dialect) -> None:
        # A SELECT's columns, or what an INSERT, UPDATE or DELETE returns (none without RETURNING).
        assert isinstance(statement, Select | UpdateBase), (
            f"the driver runs SELECT and DML, not {statement!r}"
        )
        compiled = statement.compile(dialect=dialect)
        if "POSTCOMPILE" in compiled.string:
            raise TypeError("driver reads take no expanding IN parameters; join or use a fixed list")
        self.sql = compiled.string
        self._binds = [_Bind(compiled.binds[name], dialect) for name in compiled.positiontup or []]
        exported = statement.exported_columns
        columns = list(exported)
        self._columns = [
            column.type.dialect_impl(dialect).result_processor(dialect, None) for column in columns
        ]
        self._converts = any(convert is not None for convert in self._columns)
        # Rows read like SQLAlchemy's: by position, or by column name as an attribute.
        self._row: Any = namedtuple("Found", list(map(str, exported.keys())), rename=True)  # type: ignore[misc]

    def parameters(self, params: Mapping[str, Any] | None) -> list[Any]:
        given = params or {}
        return [bind.value(given) for bind in self._binds]

    def rows(self, raw: Sequence[Sequence[Any]]) -> list[Found]:
        make = self._row._make
        if not self._converts:
            return [make(values) for values in raw]
        converts = self._columns
        return [
            make(
                [
                    value if convert is None or value is None else convert(value)
                    for convert, value in zip(converts, values, strict=True)
                ]
            )
            for values in raw
        ]


class _Bind:
    """One parameter: the caller's value by its key, or the statement's own (a literal, a limit)."""

    def __init__(self, bind: BindParameter[Any], dialect: Dialect) -> None:
        self.key = bind.key
        self.own = bind.callable or (lambda: bind.value)
        self.required = bind.required
        self.convert = bind.type.dialect_impl(dialect).bind_processor(dialect)

    def value(self, given: Mapping[str, Any]) -> Any:
        if self.key in given:
            value = given[self.key]
        elif self.required:
            raise KeyError(f"the statement needs a value for {self.key!r}")
        else:
            value = self.own()
        return value if self.convert is None else self.convert(value)


class _CursorRows:
    def __init__(
        self, cursor: sqlite3.Cursor, compile: Callable[[Executable], _Compiled], listeners: list[Listener]
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

    def _compiled_rows(
        self, statement: Select[Any] | UpdateBase, params: Mapping[str, Any] | None, most: int | None
    ) -> list[Found]:
        compiled = self._compile(statement)
        cursor = self._execute(statement, params, compiled)
        return compiled.rows(cursor.fetchall() if most is None else cursor.fetchmany(most))

    def _execute(
        self, statement: Executable, params: Mapping[str, Any] | None, compiled: _Compiled | None = None
    ) -> sqlite3.Cursor:
        compiled = compiled or self._compile(statement)
        for listener in self._listeners:
            listener.ran(compiled.sql)
        return self._cursor.execute(compiled.sql, compiled.parameters(params))


class _AlchemyRows:
    def __init__(self, connection: Connection) -> None:
        self._connection = connection

    def all(self, statement: Select[Any], params: Mapping[str, Any] | None = None) -> list[Found]:
        return list(self._connection.execute(statement, params).all())

    def first(
        self, statement: Select[Any] | UpdateBase, params: Mapping[str, Any] | None = None
    ) -> Found | None:
        return self._connection.execute(statement, params).first()

    def run(self, statement: UpdateBase, params: Mapping[str, Any] | None = None) -> int:
        return int(self._connection.execute(statement, params).rowcount)

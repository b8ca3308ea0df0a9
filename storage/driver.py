"""The busy path's statements on the database's own driver, without SQLAlchemy's machinery around
each one: what the SQLite and PostgreSQL drivers share.

Every agent call reads a few rows: the token, the caller's rooms, the scene it asks for; every wait
checks its room. SQLite answers each statement in 10-30 µs, asyncpg on a local PostgreSQL in ~50 µs;
SQLAlchemy spent 80-200 µs more around each one (compiled-cache lookup, execution context, result
objects, the ORM's loading), which made most of a call's server time (
docs/performance.md). Here a Core statement is compiled once for the database's dialect, and then
runs on a connection of the driver's own with SQLAlchemy's type conversions for its parameters and
columns, looked up once per statement: the same values SQLAlchemy would return.

What it asks of its callers (kept by `storage.database.Database.read_rows`, `first_row` and
`write_rows`):
- Statements are built once (module constants), select columns (no ORM entities) and have no
  expanding `IN` parameters.
- `work` is synchronous and short: it reads (`Rows`) or writes (`Writes`) and returns.
- A statement that fails raises the driver's own error (`sqlite3.Error`, `asyncpg.PostgresError`);
  a write rolls back.
"""

from __future__ import annotations

from collections import namedtuple
from collections.abc import Mapping, Sequence
from typing import Any, Protocol, TypeVar

from sqlalchemy import BindParameter, Executable, Select
from sqlalchemy.engine import Dialect
from sqlalchemy.sql.dml import UpdateBase

T = TypeVar("T")
Found = Any
"""A row read: index it, unpack it, or read its columns by name (`row.owner_id`)."""


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

    def run_many(self, statement: UpdateBase, each: Sequence[Mapping[str, Any]]) -> None:
        """Run an INSERT, UPDATE or DELETE once for each set of parameters, as one statement sent
        (the driver's `executemany`)."""
        ...


class Statements:
    """Each statement compiled once for one dialect."""

    def __init__(self, dialect: Dialect) -> None:
        self._dialect = dialect
        self._compiled: dict[Executable, Compiled] = {}

    def compiled(self, statement: Executable) -> Compiled:
        found = self._compiled.get(statement)
        if found is None:
            if len(self._compiled) >= _MOST_STATEMENTS:
                # Statements are meant to be built once; a caller building them per call would
                # otherwise grow this without end.
                self._compiled.clear()
            found = self._compiled[statement] = Compiled(statement, self._dialect)
        return found


_MOST_STATEMENTS = 512


class Compiled:
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

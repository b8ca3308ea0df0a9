"""Counting what reaches the database: the SQL statements and transactions of a piece of work.

The loop's speed guard: the per-call work of the loop is asserted as a statement count (not a
time, which a shared machine cannot hold still), so a change that adds a query shows at once.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import event

from romergo.services import Services


@dataclass
class Statements:
    sql: list[str] = field(default_factory=list)
    transactions: int = 0

    @property
    def count(self) -> int:
        return len(self.sql)

    def __str__(self) -> str:
        return f"{self.count} statements in {self.transactions} transactions:\n" + "\n".join(
            " ".join(statement.split())[:160] for statement in self.sql
        )


@contextmanager
def counting(services: Services) -> Iterator[Statements]:
    """Every statement the services' database runs inside the block (its own BEGINs excluded), on
    the event loop, in `read_in_thread`'s worker threads and on the database's driver (`read_rows`,
    `write_rows`, `first_row`)."""
    engines = services.db.sync_engines()
    seen = Statements()

    def on_execute(_conn: Any, _cursor: Any, statement: str, *_: Any) -> None:
        if not statement.startswith("BEGIN"):
            seen.sql.append(statement)

    def on_begin(_conn: Any) -> None:
        seen.transactions += 1

    for engine in engines:
        event.listen(engine, "before_cursor_execute", on_execute)
        event.listen(engine, "begin", on_begin)
    listeners = services.db.driver_listeners
    listener = _Listener(seen)
    listeners.append(listener)
    try:
        yield seen
    finally:
        for engine in engines:
            event.remove(engine, "before_cursor_execute", on_execute)
            event.remove(engine, "begin", on_begin)
        listeners.remove(listener)


@dataclass
class _Listener:
    """The statements and transactions run on the database's driver (`storage.driver`)."""

    seen: Statements

    def began(self) -> None:
        self.seen.transactions += 1

    def ran(self, sql: str) -> None:
        self.seen.sql.append(sql)

"""Attempts counted per key and fixed window (`rate_counts`), for limits several instances share.

Counting is one conditional upsert, built once per counter (building it per call cost more than
running it), so instances counting the last free attempt at once cannot both win."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Float, Integer, String, and_, bindparam, delete, func, literal, select

from storage.core_tables import RATE_COUNTS
from storage.database import Database


class RateCounts:
    def __init__(self, db: Database) -> None:
        self.db = db
        self._counting = _counting_statement(db)

    async def count_if_room(
        self, key: str, period: int, *, carried_weight: float, expires_at: int, limit: int
    ) -> bool:
        """Counts one attempt for `key` in window `period` if the window, plus `carried_weight`
        times the previous window's count, stays within `limit`. False (nothing counted) if not."""
        values = {
            "name": key,
            "period": period,
            "previous_period": period - 1,
            "weight": carried_weight,
            "expires_at": expires_at,
            "limit": limit,
        }
        return await self.db.write_returning(self._counting, values) is not None

    async def counts(self, key: str, period: int) -> tuple[int, int]:
        """The previous window's and window `period`'s counts for `key` (0 where none)."""
        table = RATE_COUNTS
        query = select(table.c.period, table.c.count).where(
            and_(table.c.key == key, table.c.period.in_((period - 1, period)))
        )
        async with self.db.read() as session:
            rows = {number: count for number, count in (await session.exec(query)).all()}  # type: ignore[call-overload]
        return rows.get(period - 1, 0), rows.get(period, 0)

    async def forget_expired(self, moment: int) -> int:
        """Deletes the counts that expired before `moment` (seconds since the epoch); how many."""
        async with self.db.write() as session:
            result = await session.exec(delete(RATE_COUNTS).where(RATE_COUNTS.c.expires_at < moment))
            return int(result.rowcount or 0)


def _counting_statement(db: Database) -> Any:
    """Count one attempt if there is room, in one statement. The first attempt of a window inserts
    its row, later ones count on it, and only while there is room; two instances counting the last
    free attempt at once cannot both win (the second re-checks the row the first updated). Bound:
    `name`, `period`, `previous_period`, `weight` (the share of the previous window still within
    the last `window` seconds), `expires_at`, `limit`."""
    table = RATE_COUNTS
    previous = table.alias("previous")
    # What the previous window still weighs, read inside the statement that counts.
    carried = func.coalesce(
        select(previous.c.count)
        .where(previous.c.key == bindparam("name"), previous.c.period == bindparam("previous_period"))
        .scalar_subquery(),
        0,
    ) * bindparam("weight", type_=Float)
    limit = bindparam("limit", type_=Integer)
    first = select(
        bindparam("name", type_=String),
        bindparam("period", type_=Integer),
        literal(1),
        bindparam("expires_at", type_=Integer),
    ).where(carried + 1 <= limit)
    return (
        db.upsert(table)
        .from_select(["key", "period", "count", "expires_at"], first)
        .on_conflict_do_update(
            index_elements=[table.c.key, table.c.period],
            set_={"count": table.c.count + 1},
            where=table.c.count + 1 + carried <= limit,
        )
        .returning(table.c.count)
    )

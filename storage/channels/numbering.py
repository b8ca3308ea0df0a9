"""A run of events numbered and written in one statement, on PostgreSQL.

Everywhere else the channel's next numbers are taken with one `UPDATE … RETURNING` and the events
written with one `INSERT`, inside the channel's write transaction. On PostgreSQL every
statement is a round trip to the database, and an event is written on every step of the loop
(a post, a claim, each tool call in a command, each report). There, one data-modifying CTE does
both:

    WITH numbers AS (UPDATE channels SET last_seq = last_seq + n WHERE id = … RETURNING last_seq)
    INSERT INTO channel_events (…) SELECT …, numbers.last_seq - k, … FROM numbers [UNION ALL …]

The `UPDATE` runs once however often the `SELECT`s name it, and its row lock orders concurrent
writers of one channel exactly as the two statements did. SQLite has no data-modifying CTEs.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from sqlalchemy import Insert, bindparam, insert, literal, select, union_all, update

from storage.core_tables import CHANNEL_EVENTS, CHANNELS

COLUMNS = ("channel_id", "seq", "kind", "command_id", "actor_type", "actor_id", "actor_name", "data", "at")
MAX_AT_ONCE = 4
"""The longest run written this way (a tool call writes two events, a read's pending ones a few
more); a longer run takes the two statements."""


def numbered_params(shared: dict[str, Any], own: list[dict[str, Any]]) -> dict[str, Any]:
    """The parameters of `numbered_insert(len(own))`: the columns the run's events share (bound once)
    and each one's own (`kind_0`, `data_0`, …), named as the channel transaction names them (`event_rows`)."""
    params = dict(shared)
    for index, row in enumerate(own):
        params |= {f"{name}_{index}": value for name, value in row.items()}
    return params


@cache
def numbered_insert(count: int) -> Insert:
    """The statement for a run of `count` events, `RETURNING` their numbers (built once per count:
    building it costs more than running it)."""
    events = CHANNEL_EVENTS.c
    numbers = (
        update(CHANNELS)
        .where(CHANNELS.c.id == bindparam("channel_id", type_=CHANNELS.c.id.type))
        .values(last_seq=CHANNELS.c.last_seq + literal(count))
        .returning(CHANNELS.c.last_seq)
        .cte("numbers")
    )

    def shared(name: str) -> Any:
        return bindparam(name, type_=events[name].type)

    rows = [
        select(
            shared("channel_id"),
            (numbers.c.last_seq - literal(count - 1 - index)).label("seq"),
            bindparam(f"kind_{index}", type_=events.kind.type),
            shared("command_id"),
            shared("actor_type"),
            shared("actor_id"),
            shared("actor_name"),
            bindparam(f"data_{index}", type_=events.data.type),
            shared("at"),
        ).select_from(numbers)
        for index in range(count)
    ]
    body = rows[0] if count == 1 else union_all(*rows)
    return insert(CHANNEL_EVENTS).from_select(COLUMNS, body).add_cte(numbers).returning(events.seq)

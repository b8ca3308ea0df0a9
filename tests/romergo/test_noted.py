"""`romergo.access.agents.noted`: values noted by the busy path and written together, on a database double
(the real writes are tested through their users: tests/romergo/test_agents.py, test_agent_activity.py)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from romergo.access.agents.noted import NotedWrites


class Rows:
    def __init__(self) -> None:
        self.ran: list[list[dict[str, Any]]] = []


class DatabaseDouble:
    """Keeps each write's values in `rows`; `during` runs inside the next write, which then fails."""

    def __init__(self) -> None:
        self.rows = Rows()
        self.during: Any = None

    async def store(self, values: Mapping[str, int]) -> None:
        if self.during is not None:
            during, self.during = self.during, None
            during()
            raise OSError("disk I/O error")
        self.rows.ran.append([{"key": key, "value": value} for key, value in values.items()])


def noted(db: DatabaseDouble, keep_first: bool) -> NotedWrites[str, int]:
    return NotedWrites(
        db.store,
        every=60,
        keep_first=keep_first,
        what="test values",
    )


@pytest.mark.parametrize(("keep_first", "kept"), [(True, 1), (False, 2)])
async def test_a_key_noted_twice_keeps_its_first_or_its_newest_value(keep_first, kept):
    db = DatabaseDouble()
    values = noted(db, keep_first)
    values.note("a", 1)
    values.note("a", 2)
    values.note("b", 3)
    assert values.noted("a") == kept and values.pending() == {"a": kept, "b": 3}
    await values.write()
    assert db.rows.ran == [[{"key": "a", "value": kept}, {"key": "b", "value": 3}]]
    assert values.pending() == {} and values.noted("a") is None
    await values.write()  # nothing noted: nothing written
    assert len(db.rows.ran) == 1
    await values.close()


@pytest.mark.parametrize("keep_first", [True, False])
async def test_a_failed_write_keeps_its_values_and_a_newer_one_noted_meanwhile(keep_first):
    db = DatabaseDouble()
    values = noted(db, keep_first)
    values.note("a", 1)
    values.note("b", 1)
    seen_during: list[dict[str, int]] = []

    def meanwhile() -> None:
        seen_during.append(values.pending())  # still shown while being written
        values.note("a", 2)

    db.during = meanwhile
    with pytest.raises(OSError):
        await values.write()
    assert seen_during == [{"a": 1, "b": 1}]
    assert values.pending() == {"a": 2, "b": 1}  # "a" was noted again during the write: the newer one
    await values.close()  # a clean stop writes what is left
    assert db.rows.ran == [[{"key": "a", "value": 2}, {"key": "b", "value": 1}]]

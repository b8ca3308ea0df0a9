"""Time in one place: timezone-aware UTC datetimes inside, ISO 8601 with `Z` at the edges.

Services that decide by time (leases, expiries, join-code windows) take a `Clock`, so a test
moves time forward instead of sleeping through it.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Protocol


class Clock(Protocol):
    def now(self) -> datetime: ...


class SystemClock:
    def now(self) -> datetime:
        return datetime.now(UTC)


def utcnow() -> datetime:
    return datetime.now(UTC)


def as_utc(moment: datetime) -> datetime:
    """A stored moment as an aware UTC datetime (SQLite hands timestamps back without their zone;
    they are stored as UTC)."""
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def iso(moment: datetime | None) -> str | None:
    if moment is None:
        return None
    return as_utc(moment).astimezone(UTC).replace(tzinfo=None).isoformat(timespec="milliseconds") + "Z"

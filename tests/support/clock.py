"""A clock a test moves forward, so a lease or a time to live passes without sleeping."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta


class MovableClock:
    """Real time plus whatever the test has skipped: everything else in the test runs as usual."""

    def __init__(self) -> None:
        self.skipped = timedelta()

    def now(self) -> datetime:
        return datetime.now(UTC) + self.skipped

    def advance(self, seconds: float) -> None:
        self.skipped += timedelta(seconds=seconds)

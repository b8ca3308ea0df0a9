"""Every ledger keeps its contract on both databases: each test here runs on SQLite and on
PostgreSQL, on a database migrated to head (the `services` fixture's)."""

from __future__ import annotations

import pytest


@pytest.fixture(params=["sqlite", "postgresql"])
def database(request: pytest.FixtureRequest) -> str:
    return str(request.param)

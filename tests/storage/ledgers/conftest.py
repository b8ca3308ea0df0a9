"""Every ledger keeps its contract on SQLite and on PostgreSQL: each test here runs on both."""

from __future__ import annotations

import pytest


@pytest.fixture(params=["sqlite", "postgresql"])
def database(request: pytest.FixtureRequest) -> str:
    return str(request.param)

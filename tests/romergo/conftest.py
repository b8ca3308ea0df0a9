"""The core's tests run on SQLite and on PostgreSQL: every test here that uses the
`services` fixture runs once on each."""

from __future__ import annotations

import pytest


@pytest.fixture(params=["sqlite", "postgresql"])
def database(request: pytest.FixtureRequest) -> str:
    return str(request.param)

"""Ledger contract tests run on both databases: each port's implementation must behave the same on
SQLite and PostgreSQL. The `services` fixture (tests/conftest.py) follows this `database`."""

from __future__ import annotations

import pytest


@pytest.fixture(params=["sqlite", "postgresql"])
def database(request: pytest.FixtureRequest) -> str:
    return str(request.param)

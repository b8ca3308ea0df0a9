"""The core's tests run on SQLite and on PostgreSQL: every test here that uses the `services`
fixture runs once on each, unless its module says `DATABASES = ("sqlite",)`.

A module says so when what it checks of the database is a ledger's, whose contract tests
(tests/storage/ledgers) run on both: its own tests then check the core's rules, once."""

from __future__ import annotations

import pytest

BOTH = ("sqlite", "postgresql")


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    chosen = any(mark.args[0] == "database" for mark in metafunc.definition.iter_markers("parametrize"))
    if "database" in metafunc.fixturenames and not chosen:  # a test may name its one database
        databases = getattr(metafunc.module, "DATABASES", BOTH)
        metafunc.parametrize("database", databases, indirect=True)


@pytest.fixture
def database(request: pytest.FixtureRequest) -> str:
    return str(request.param)

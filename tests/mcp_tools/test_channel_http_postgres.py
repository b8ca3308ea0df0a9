"""The channel over MCP against a server process on PostgreSQL: every test of
test_channel_http.py (joining, 200 commands shared by two agents exactly once, redelivery,
questions, ending, progress, the CLI) again, with `ROMERGO_DATABASE_URL` on a fresh database."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.mcp_tools import test_channel_http as on_sqlite
from tests.mcp_tools.test_channel_http import *  # noqa: F403 - the same tests, collected here again
from tests.support.databases import PostgresDatabases
from tests.support.oauth import add_user
from tests.support.server import RunningServer


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory, postgres: PostgresDatabases) -> Iterator[RunningServer]:
    with postgres.fresh_now() as url:
        env = {**on_sqlite.SERVER_ENV, "ROMERGO_DATABASE_URL": url}
        running = RunningServer(tmp_path_factory.mktemp("server"), env=env).start()
        add_user(running, "ada")
        yield running
        running.stop()

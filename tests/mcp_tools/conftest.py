"""HTTP tests of the MCP endpoint and the OAuth server: one real server process per test module.

A module may set `SERVER_ENV` (a dict of environment variables) for its server.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import httpx
import pytest

from tests.support.oauth import add_user, signed_in
from tests.support.server import RunningServer


@pytest.fixture(scope="module")
def server(
    tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest
) -> Iterator[RunningServer]:
    env = getattr(request.module, "SERVER_ENV", {})
    running = RunningServer(tmp_path_factory.mktemp("server"), env=env).start()
    add_user(running, "ada")
    yield running
    running.stop()


@pytest.fixture(scope="module")
async def ada(server: RunningServer) -> AsyncIterator[httpx.AsyncClient]:
    """ada's browser session, signed in once per module (sign-ins are rate-limited per user)."""
    async with signed_in(server.base_url, "ada") as http:
        yield http

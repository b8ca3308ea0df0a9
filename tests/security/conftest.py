"""Security tests: black-box attacks on one real server process per module (docs/contract.md,
../shared/SECURITY.md). Each test is named after what it proves."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.oauth import add_user
from tests.support.server import RunningServer


@pytest.fixture(scope="module")
def server(
    tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest
) -> Iterator[RunningServer]:
    """A module may set `SERVER_ENV` (environment variables) for its server."""
    env = getattr(request.module, "SERVER_ENV", {})
    running = RunningServer(tmp_path_factory.mktemp("server"), env=env).start()
    add_user(running, "ada")
    yield running
    running.stop()

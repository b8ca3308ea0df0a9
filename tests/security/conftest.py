"""Security tests: black-box attacks on a real server process (docs/contract.md,
docs/security.md). Each test is named after what it proves.

The modules share one server (user `ada` with the demo), started once for the package: each
start costs seconds, and no attack here leaves state another depends on. A module that needs its
own settings sets `SERVER_ENV` and gets a server of its own.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.oauth import add_user
from tests.support.server import RunningServer


@pytest.fixture(scope="package")
def shared_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningServer]:
    running = RunningServer(tmp_path_factory.mktemp("security")).start()
    add_user(running, "ada")
    yield running
    running.stop()


@pytest.fixture(scope="module")
def server(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[RunningServer]:
    env = getattr(request.module, "SERVER_ENV", None)
    if env is None:
        yield request.getfixturevalue("shared_server")
        return
    running = RunningServer(tmp_path_factory.mktemp("server"), env=env).start()
    add_user(running, "ada")
    yield running
    running.stop()

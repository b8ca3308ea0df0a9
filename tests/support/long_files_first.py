"""The long test files run first, so both workers finish together.

Tests are handed to the workers file by file, in collection order (after pytest-randomly has
shuffled it). A file that takes a minute or more (a browser, outside harnesses, several server
processes) handed out last runs alone while the other worker idles: the run ended minutes after
it could have. So those files go first, the many quick files fill in behind them; within each
group the shuffled order stands.

A file is long when it is under tests/browser or tests/harnesses, or says so with
`pytestmark = pytest.mark.long`.
"""

from __future__ import annotations

import pytest

LONG_FOLDERS = ("tests/browser/", "tests/harnesses/")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "long: a test file that takes a minute or more; scheduled before the quick ones"
    )


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    items.sort(key=lambda item: 0 if _is_long(item) else 1)


def _is_long(item: pytest.Item) -> bool:
    return item.nodeid.startswith(LONG_FOLDERS) or item.get_closest_marker("long") is not None

"""What another instance does between a statement run's read and its write, staged in a test.

On PostgreSQL the busy path's reads and writes run each on its own, in a greenlet
(`Database.statements_alone`): another instance can act between them. A test stages that by
awaiting the other instance's work from inside the greenlet, right after the read's verdict.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from types import ModuleType
from typing import Any

import pytest
from sqlalchemy.util import await_only


def right_after(
    monkeypatch: pytest.MonkeyPatch, module: ModuleType, name: str, happens: Callable[[], Awaitable[Any]]
) -> None:
    """The next call of `module.name` (a function the statement run calls in its greenlet) runs as
    before, then `happens` is awaited from there; later calls are left alone."""
    original = getattr(module, name)

    def then_the_other_instance(*args: Any) -> Any:
        monkeypatch.setattr(module, name, original)
        result = original(*args)
        await_only(happens())
        return result

    monkeypatch.setattr(module, name, then_the_other_instance)

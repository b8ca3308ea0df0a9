"""A write that finds its command moved by another writer follows it, a bounded number of times."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from romergo.channels import command_moves
from romergo.common.errors import RomergoError


def test_a_command_that_never_holds_still_is_a_conflict(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    command = SimpleNamespace(id="cmd_1", state="claimed")
    tries: list[str] = []

    def always_moved_meanwhile(rows: Any, seen: Any, *args: Any, **kwargs: Any) -> None:
        tries.append(seen.id)

    monkeypatch.setattr(command_moves, "moved_on_driver", always_moved_meanwhile)
    monkeypatch.setattr(command_moves, "command_now_on_driver", lambda rows, command_id: command)

    with pytest.raises(RomergoError) as refused:
        command_moves.moved_from_now(object(), command, [], None)

    assert refused.value.code == "conflict"
    assert len(tries) == command_moves.MOST_MOVES_MEANWHILE


def test_a_command_deleted_meanwhile_is_not_found(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(command_moves, "moved_on_driver", lambda *args, **kwargs: None)
    monkeypatch.setattr(command_moves, "command_now_on_driver", lambda rows, command_id: None)

    with pytest.raises(RomergoError) as refused:
        command_moves.moved_from_now(object(), SimpleNamespace(id="cmd_1"), [], None)

    assert refused.value.code == "not_found"

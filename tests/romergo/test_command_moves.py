"""A write that finds its command moved by another writer follows it, a bounded number of times; a
transaction knows a command as its own moves left it."""

from __future__ import annotations

from dataclasses import replace
from types import SimpleNamespace
from typing import Any

import pytest

from romergo.channels import command_moves
from romergo.channels.actors import EventActor
from romergo.channels.vocabulary import EventKind
from romergo.common.errors import RomergoError
from tests.support.channels import open_room


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


async def test_a_transaction_answers_a_command_as_its_own_moves_left_it(services, actor) -> None:
    room = await open_room(services, actor)
    sent = await room.send("Tidy the opening")
    owner = EventActor("user", actor.user_id, "writer")

    async with services.channels.store.tx() as tx:
        queued = await tx.fresh_command(sent.command_id)
        assert queued is not None and tx.current(queued) is queued  # not moved here: as read
        await tx.command_event(queued, EventKind.CANCELLED, owner)
        cancelled = tx.current(queued)
        stored = await tx.fresh_command(sent.command_id)

    assert (cancelled.state, queued.state) == ("cancelled", "queued")
    assert cancelled == stored and cancelled.finished_at is not None
    assert cancelled == replace(
        queued, state="cancelled", last_activity_at=cancelled.finished_at, finished_at=cancelled.finished_at
    )

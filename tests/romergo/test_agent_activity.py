"""The settings page's last accepted and last refused call of each agent (`romergo.access.agents.activity`).

Accepted calls are noted in the process and written together (`romergo.access.agents.noted`): a thousand
agents re-polling their waits must not cost a write transaction each."""

from __future__ import annotations

import sqlite3
from datetime import timedelta

import pytest
from sqlmodel import select

from romergo.common.clock import utcnow
from storage.tables import AgentActivity
from tests.support.statements import counting

DATABASES = ("sqlite",)
"""The database side is the ledgers' contract, run on both (tests/storage/ledgers/test_access_*.py)."""

WAIT = "romergo_wait_for_builder_command"
READ_SCENE = "romergo_get_scene"


async def test_accepted_calls_are_shown_at_once_and_written_together(services, author):
    activity = services.agents.activity
    with counting(services) as seen:
        for client in ("one", "two", "three"):
            activity.accepted(author.id, client, WAIT)
        activity.accepted(author.id, "one", READ_SCENE)  # the newest call of an agent is the one kept
    assert seen.count == 0, str(seen)  # the calls themselves write nothing

    shown = await activity.of_user(author.id)
    assert {client: call.last_accepted_tool for client, call in shown.items()} == {
        "one": READ_SCENE,
        "two": WAIT,
        "three": WAIT,
    }
    assert await _rows(services) == {}

    with counting(services) as seen:
        await activity.accepted_calls.write()
    assert seen.transactions == 1 and len(seen.sql) == 1, str(seen)  # every agent in one statement
    written = await _rows(services)
    assert written == {client: (c.last_accepted_tool, c.last_accepted_at) for client, c in shown.items()}
    assert await activity.of_user(author.id) == shown


async def test_a_written_call_keeps_the_refusal_beside_it(services, author):
    activity = services.agents.activity
    await activity.refused(author.id, "one", "romergo_delete_scene", "permission_denied")
    activity.accepted(author.id, "one", READ_SCENE)
    await activity.accepted_calls.write()

    async with services.db.read() as session:
        row = (await session.exec(select(AgentActivity))).one()
    assert (row.last_refused_tool, row.last_refused_code) == ("romergo_delete_scene", "permission_denied")
    assert row.last_accepted_tool == READ_SCENE


async def test_an_older_call_never_overwrites_a_newer_one_another_instance_wrote(services, author):
    activity = services.agents.activity
    activity.accepted(author.id, "one", WAIT)  # noted here, not written yet
    async with services.db.write() as session:  # meanwhile another instance writes a later call
        session.add(
            AgentActivity(
                user_id=author.id,
                client_id="one",
                last_accepted_tool=READ_SCENE,
                last_accepted_at=utcnow() + timedelta(seconds=5),
            )
        )
    await activity.accepted_calls.write()
    assert (await _rows(services))["one"][0] == READ_SCENE


async def test_a_failed_write_keeps_the_calls_for_the_next(services, author, monkeypatch):
    activity = services.agents.activity
    activity.accepted(author.id, "one", WAIT)
    writing = services.db.write_rows

    async def fails(work):
        raise sqlite3.OperationalError("disk I/O error")

    monkeypatch.setattr(services.db, "write_rows", fails)
    with pytest.raises(sqlite3.OperationalError):
        await activity.accepted_calls.write()
    activity.accepted(author.id, "one", READ_SCENE)  # a newer call meanwhile: it is the one kept
    assert (await activity.of_user(author.id))["one"].last_accepted_tool == READ_SCENE

    monkeypatch.setattr(services.db, "write_rows", writing)
    await activity.accepted_calls.write()
    assert (await _rows(services))["one"][0] == READ_SCENE


async def test_a_clean_stop_writes_what_is_noted(services, author):
    services.agents.activity.accepted(author.id, "one", WAIT)
    await services.agents.activity.accepted_calls.close()
    assert (await _rows(services))["one"][0] == WAIT


async def _rows(services) -> dict[str, tuple[str | None, object]]:
    async with services.db.read() as session:
        rows = (await session.exec(select(AgentActivity))).all()
    return {row.client_id: (row.last_accepted_tool, row.last_accepted_at) for row in rows}

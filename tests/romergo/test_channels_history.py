"""A room's reads cost the same however many commands and rooms the agent had before.

An agent's OAuth client keeps its id across channels and projects, so the commands it claimed and
the rooms it joined pile up for as long as it is used. Every wait's check, and every call that
names no command, looks for the one command the agent holds in the room; every tool call reads the
rooms the agent stands in. Those reads must go through indexes that lead there, not walk every
command or room the client ever had (migration 0012). The same holds for the sweeper,
which looks every few seconds for the few commands, rooms and confirmations still open.

Counted in SQLite's own units of work (virtual machine steps, through its progress handler), on the
statements as the driver runs them. SQLite here has no statistics (no ANALYZE): its choice of index
rests on the indexes alone, which is what this guards. PostgreSQL plans from its statistics, so
the same measure there would say more about a near-empty table's plan than about the indexes.
"""

from __future__ import annotations

import sqlite3
from typing import Any

import pytest
from sqlalchemy import Executable, event
from sqlalchemy.dialects.sqlite.pysqlite import SQLiteDialect_pysqlite
from sqlalchemy.engine import make_url

from romergo.channels import memberships, wait_check
from romergo.channels.vocabulary import CommandState
from storage.channels import agent_rooms
from storage.driver import Statements
from tests.support.channels import open_room

SMALL, LARGE = 5, 2_000
"""Commands of the agent's past in the room: a new agent's, and a long-used one's."""
SLACK = 10
"""Steps a deeper index may add; walking the history adds ten or more for each row walked."""

READS: dict[str, Executable] = {
    "a wait's check (the room and the next command)": wait_check.ROOM_AND_NEXT,
    "a call that names no command": memberships._HELD,
}


DATABASES = ("sqlite",)  # see the module's docstring


@pytest.mark.parametrize("read", list(READS))
async def test_finding_what_the_agent_holds_costs_the_same_after_thousands_of_commands(services, actor, read):
    room = await open_room(services, actor)
    agent = room.agent("a")
    await services.channels.agent.join(agent, room.code)
    held = await room.send("The one it holds now")
    assert await services.channels.agent.delivery.next_for(
        agent, room.channel.channel_id, 0, services.channels.agent.presence.listening_until(30)
    )
    params = {
        "channel": room.channel.channel_id,
        "channel_id": room.channel.channel_id,
        "who": agent.client_id,
        "client_id": agent.client_id,
        "after": held.seq,
    }

    with sqlite3.connect(make_url(services.db.url).database) as connection:
        past(connection, room.channel.channel_id, agent.client_id, SMALL)
        new_agents = steps(connection, READS[read], params)
        past(connection, room.channel.channel_id, agent.client_id, LARGE - SMALL, start=SMALL)
        long_used = steps(connection, READS[read], params)

    assert long_used - new_agents <= SLACK, (
        f"{read}: {new_agents} steps after {SMALL} commands, {long_used} after {LARGE}"
    )


def past(connection: sqlite3.Connection, channel_id: str, client_id: str, count: int, start: int = 0) -> None:
    """`count` finished commands the client took in the room, numbered before everything else."""
    connection.executemany(
        "INSERT INTO commands (id, channel_id, seq, text, state, claimed_by, deliveries, created_at) "
        "VALUES (?, ?, ?, 'done before', ?, ?, 1, '2026-01-01 00:00:00.000000')",
        [
            (f"cmd_past_{n}", channel_id, -1 - n, CommandState.DONE.value, client_id)
            for n in range(start, start + count)
        ],
    )
    connection.commit()


def steps(connection: sqlite3.Connection, statement: Executable, params: dict[str, Any]) -> int:
    """SQLite's virtual machine steps to run `statement` to its last row."""
    compiled = Statements(SQLiteDialect_pysqlite()).compiled(statement)
    connection.execute(compiled.sql, compiled.parameters(params)).fetchall()  # the schema read, once
    counted = 0

    def step() -> int:
        nonlocal counted
        counted += 1
        return 0

    connection.set_progress_handler(step, 1)
    try:
        rows = connection.execute(compiled.sql, compiled.parameters(params)).fetchall()
    finally:
        connection.set_progress_handler(None, 1)
    assert rows, "the read found nothing: it would not show what it costs"
    return counted


async def test_a_calls_rooms_cost_the_same_after_hundreds_of_rooms(services, actor):
    room = await open_room(services, actor)
    agent = room.agent("a")
    owner = services.channels.owner

    async def rooms_before(count: int) -> None:
        for _ in range(count):
            earlier = await owner.create_channel(actor.user_id, room.story.project_id)
            assert earlier.code
            await services.channels.agent.join(agent, earlier.code)
            await owner.end_channel(actor.user_id, earlier.channel_id)

    params = {
        "who": agent.client_id,
        "user_id": actor.user_id,
        "project_id": room.story.project_id,
        "now": services.channels.store.now(),
    }
    with sqlite3.connect(make_url(services.db.url).database) as connection:
        await rooms_before(2)
        await services.channels.agent.join(agent, room.code)
        new_agents = steps(connection, agent_rooms._CURRENT_ROOMS, params)
        await rooms_before(150)
        long_used = steps(connection, agent_rooms._CURRENT_ROOMS, params)

    assert long_used - new_agents <= SLACK, f"{new_agents} steps after 2 rooms, {long_used} after 152"


async def test_a_sweep_with_nothing_to_do_costs_the_same_after_a_long_history(services, actor):
    """The sweeper runs every few seconds on every instance, inside a write transaction: finding
    nothing to stall, expire or close must not mean reading every command, room and confirmation
    there ever was."""
    room = await open_room(services, actor)
    agent = room.agent("a")
    await services.channels.agent.join(agent, room.code)
    channel_id = room.channel.channel_id
    with sqlite3.connect(make_url(services.db.url).database) as connection:
        history(connection, channel_id, agent.client_id, SMALL)
        new_install = await sweep_steps(services)
        history(connection, channel_id, agent.client_id, LARGE - SMALL, start=SMALL)
        long_used = await sweep_steps(services)

    assert long_used - new_install <= SLACK, (
        f"{new_install} steps after {SMALL} of each, {long_used} after {LARGE}"
    )


def history(
    connection: sqlite3.Connection, channel_id: str, client_id: str, count: int, start: int = 0
) -> None:
    """`count` finished commands, each with a decided confirmation, and `count` rooms that ended."""
    past(connection, channel_id, client_id, count, start)
    numbers = range(start, start + count)
    connection.executemany(
        "INSERT INTO channels (id, user_id, project_id, code_hash, code_issued_at, permissions, "
        "confirmation_mode, last_seq, created_at, expires_at, ended_at, end_reason) "
        "SELECT ?, user_id, project_id, ?, code_issued_at, permissions, confirmation_mode, 0, "
        "created_at, expires_at, created_at, 'ended' FROM channels WHERE id = ?",
        [(f"chn_past_{n}", f"hash_past_{n}", channel_id) for n in numbers],
    )
    connection.executemany(
        "INSERT INTO confirmations (id, channel_id, command_id, client_id, tool, arguments, "
        "fingerprint, action, state, created_at, expires_at, decided_at) VALUES (?, ?, ?, ?, "
        "'romergo_update_chapter', '{}', 'f', 'Rename chapter', 'consumed', "
        "'2026-01-01 00:00:00.000000', '2026-01-01 00:05:00.000000', '2026-01-01 00:01:00.000000')",
        [(f"cnf_past_{n}", channel_id, f"cmd_past_{n}", client_id) for n in numbers],
    )
    connection.commit()


async def sweep_steps(services) -> int:
    """SQLite's virtual machine steps for one sweep, on the connection the sweep used."""
    counted = 0

    def step() -> int:
        nonlocal counted
        counted += 1
        return 0

    def counting(connection: Any, *_: Any) -> None:
        connection.set_progress_handler(step, 1)

    def done(connection: Any, *_: Any) -> None:
        connection.set_progress_handler(None, 1)

    assert await services.channels.sweeper.sweep() == (0, 0)  # the statements prepared, once
    engine = services.db.engine.sync_engine
    event.listen(engine, "checkout", counting)
    event.listen(engine, "checkin", done)
    try:
        assert await services.channels.sweeper.sweep() == (0, 0)
    finally:
        event.remove(engine, "checkout", counting)
        event.remove(engine, "checkin", done)
    return counted

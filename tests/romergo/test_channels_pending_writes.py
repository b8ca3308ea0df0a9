"""A call's tool events written after it answered (`channels.pending_tool_events`), on the database's driver
(`channels.pending_writes`), moving the command on from its state now when it moved meanwhile.

On PostgreSQL a call writes its events itself: the same outcomes hold there."""

from __future__ import annotations

from sqlalchemy import update

from romergo.channels import ToolCall, pending_tool_events
from romergo.channels.events import ToolFinished, ToolStarted
from romergo.channels.pending_tool_events import PendingEvents
from romergo.channels.pending_writes import write_pending
from romergo.channels.vocabulary import EventKind
from romergo.channels.wait_check import agent_actor
from storage.channels.rooms import command_record
from storage.core_tables import COMMANDS
from storage.tables import Command
from tests.support.channels import open_room
from tests.support.statements import counting


async def claim(services, room):
    agent = room.agent("a")
    cursor = (await services.channels.agent.join(agent, room.code)).cursor
    await room.send("Read the opening")
    got = await services.channels.agent.wait(agent, room.channel.channel_id, cursor, 1)
    return agent, got.command


async def read_scene(services, actor, agent, room):
    read = ToolCall(agent, "romergo_get_scene", "read", {"scene_id": room.story.first_scene_id}, None, None)
    await services.channels.guard.run_tool_call(
        read, lambda _: services.scenes.scene_view(actor, read.arguments["scene_id"])
    )


async def test_pending_events_are_one_driver_write_that_moves_the_command(services, actor, monkeypatch):
    # Held until `settled`, however slow the machine.
    monkeypatch.setattr(pending_tool_events, "WINDOW_SECONDS", 60.0)
    room = await open_room(services, actor)
    agent, command = await claim(services, room)
    before = len(await room.kinds())

    await read_scene(services, actor, agent, room)
    await read_scene(services, actor, agent, room)
    with counting(services) as seen:
        await services.channels.store.settled()

    assert (await room.kinds())[before:] == ["tool_started", "tool_finished"] * 2
    assert (await services.channels.owner.get_command(actor.user_id, command.command_id)).state == "working"
    if services.db.is_sqlite:  # PostgreSQL: the calls wrote theirs, nothing was left to write
        # The command moved once from the state the calls read, numbers taken once, one INSERT.
        assert seen.transactions == 1, str(seen)
        assert [sql.split()[0] for sql in seen.sql] == ["UPDATE", "UPDATE", "INSERT"], str(seen)


async def test_a_command_another_process_moved_keeps_its_state_and_gets_the_events(
    services, actor, monkeypatch
):
    monkeypatch.setattr(pending_tool_events, "WINDOW_SECONDS", 60.0)
    room = await open_room(services, actor)
    agent, command = await claim(services, room)
    before = len(await room.kinds())
    await read_scene(services, actor, agent, room)

    # Another process (the CLI, say) cancels the command while the call's events wait: it does
    # not know about them, so the driver's conditional move finds the row moved, reads it afresh
    # and writes them from the command's state now.
    await services.db.write_statement(
        update(COMMANDS).where(COMMANDS.c.id == command.command_id).values(state="cancelled")
    )
    await services.channels.store.settled()

    assert (await room.kinds())[before:] == ["tool_started", "tool_finished"]  # each once
    assert (await services.channels.owner.get_command(actor.user_id, command.command_id)).state == "cancelled"
    if services.channels.store.pending_tool_events is not None:
        assert services.channels.store.pending_tool_events.waiting(command.command_id) == 0


async def test_a_driver_write_moves_a_command_moved_meanwhile_on_from_its_state_now(services, actor):
    room = await open_room(services, actor)
    agent, command = await claim(services, room)
    async with services.db.read() as session:
        as_read = command_record(await session.get_one(Command, command.command_id))  # "claimed", as read
    new_events = [
        (EventKind.TOOL_STARTED, ToolStarted(tool="romergo_get_scene", category="read")),
        (EventKind.TOOL_FINISHED, ToolFinished(tool="romergo_get_scene")),
    ]
    taken = [PendingEvents(as_read, agent_actor(agent), new_events)]
    await services.db.write_statement(  # moved since it was read
        update(COMMANDS).where(COMMANDS.c.id == command.command_id).values(state="cancelled")
    )
    kinds = await room.kinds()

    with counting(services) as seen:
        touched = await services.db.write_rows(
            lambda rows: write_pending(rows, taken, services.channels.store.now())
        )

    assert touched == {room.channel.channel_id}
    assert (await room.kinds())[len(kinds) :] == ["tool_started", "tool_finished"]
    assert (await services.channels.owner.get_command(actor.user_id, command.command_id)).state == "cancelled"
    # The move that matched nothing, the command read as it is, its move from there, the events.
    assert [sql.split()[0] for sql in seen.sql][:3] == ["UPDATE", "SELECT", "UPDATE"], str(seen)

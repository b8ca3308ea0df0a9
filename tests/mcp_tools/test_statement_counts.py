"""What one call of the loop asks of the database, as counts, not times.

The budgets are what the profile showed each call needs; a change that adds a query or a
transaction to the busy path fails here, long before anyone notices it in a benchmark.
"""

from __future__ import annotations

import asyncio
import contextlib

from mcp import Client
from mcp.server.auth.middleware.auth_context import auth_context_var
from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser

from mcp_tools.oauth_provider import RomergoOAuthProvider
from mcp_tools.server import build_server
from romergo.channels import AgentRef
from tests.support.channels import Room, open_room, parked_wait
from tests.support.statements import counting
from tests.support.tools import ALL_SCOPES, agent, data_of

# Outside a channel: the token and where the scene lies (one statement each, no transaction), the
# caller's rooms (one read), then the scene itself (one read: scene with its chapter and project in
# one, lines, choices, characters, and the revisions of the scene and its lines in one). All of it
# read on SQLite's driver (storage.sqlite_driver). Then the revisions the agent was shown, stored
# as its last read of each entity (one upsert, a short write of its own: romergo.story.read_marks).
GET_SCENE_ALONE = (9, 3)
# Holding a command: the held command joins the rooms' read; the tool events are one write (the
# command's state moved from the state just read, both sequence numbers in one UPDATE, both events
# in one INSERT; the command is read afresh only when someone moved it meanwhile), and the upsert of
# the agent's last reads.
GET_SCENE_IN_A_COMMAND = (13, 4)
# Channel with membership, any held command and the next queued one (one statement), the conditional
# claim of it (it moves the state and returns the row), sequence, event, presence: one write (on
# SQLite's driver; on PostgreSQL's the event's number and row are one statement).
DELIVERY = (5, 1)
# A wait's check that finds nothing to hand over (every idle re-poll): the same first statement,
# then the presence.
IDLE_CHECK = (2, 1)
# The owned channel with the owner's name and the command's number taken (one UPDATE … RETURNING),
# then the command (written once, already numbered) and its event: one write.
POST_COMMAND = (3, 1)
# The token, then the command with its channel's owner and the caller's membership (one join), its
# state, the event's number, the event: one write on the database's driver (`channels.reporting`).
STATUS_REPORT = (5, 1)
# A change inside the command it names: the token, where the line lies, the caller's rooms with the
# named command (its room comes from the rooms just read), the change (the line, the line written,
# the project's time, the revision, the revision number it ended at, for the result), then the
# tool events (state, sequence, the events). Inside the change: the agent's last read of the line
# and the line's newest revision (one query: did the write replace a newer change?), and the
# agent's last read moved to the revision the change ended at (one upsert, in the change's own
# transaction).
EDIT_IN_A_COMMAND = (14, 3)


async def test_get_scene_outside_a_channel_stays_within_its_statements(services, actor):
    room = await open_room(services, actor)
    token, _ = await services.agents.personal.create("writer", name="Helper", scopes=ALL_SCOPES)
    async with agent(services, token) as helper:
        await helper.ok("romergo_get_scene", scene_id=room.story.first_scene_id)
        with counting(services) as seen:
            scene = await helper.ok("romergo_get_scene", scene_id=room.story.first_scene_id)
    assert scene["scene"]["id"] == room.story.first_scene_id
    assert (seen.count, seen.transactions) <= GET_SCENE_ALONE, str(seen)


async def test_get_scene_while_holding_a_command_stays_within_its_statements(services, actor):
    room, token, _ = await holding_a_command(services, actor)
    async with agent(services, token) as helper:
        # A first call, so that the one counted is like every later one.
        await helper.ok("romergo_get_scene", scene_id=room.story.first_scene_id)
        await services.channels.store.settled()
        with counting(services) as seen:
            await helper.ok("romergo_get_scene", scene_id=room.story.first_scene_id)
            await services.channels.store.settled()  # its tool events, just after the answer on SQLite
    assert (seen.count, seen.transactions) <= GET_SCENE_IN_A_COMMAND, str(seen)
    # Both tool events still reach the panel, in order.
    kinds = await room.kinds()
    assert kinds[-2:] == ["tool_started", "tool_finished"]


async def test_posting_a_command_writes_each_row_once(services, actor):
    room = await open_room(services, actor)
    with counting(services) as seen:
        posted = await room.send("Tidy the opening")
    assert (seen.count, seen.transactions) <= POST_COMMAND, str(seen)
    assert posted.state == "queued"
    assert (await room.kinds())[-1] == "command"


async def test_a_delivery_to_a_parked_wait_is_one_transaction(services, actor):
    room = await open_room(services, actor)
    helper = room.agent("helper")
    cursor = (await services.channels.agent.join(helper, room.code)).cursor
    waiting = await parked_wait(services, helper, room.channel.channel_id, cursor, 5)
    with counting(services) as seen:
        await room.send("Tidy the opening")
        got = await waiting
    assert got.status == "command"
    assert (seen.count, seen.transactions) <= _plus(POST_COMMAND, DELIVERY), str(seen)
    # The delivery itself said the agent no longer listens: nothing was left for after the return.
    members = (await services.channels.owner.get_channel(actor.user_id, room.channel.channel_id)).members
    assert [member.polling for member in members] == [False]


async def test_a_wait_that_finds_a_command_queued_claims_it_in_one_transaction(services, actor):
    room = await open_room(services, actor)
    helper = room.agent("helper")
    cursor = (await services.channels.agent.join(helper, room.code)).cursor
    await room.send("Tidy the opening")
    with counting(services) as seen:
        got = await services.channels.agent.wait(helper, room.channel.channel_id, cursor, 1)
    assert got.status == "command"
    assert (seen.count, seen.transactions) <= DELIVERY, str(seen)


async def test_an_idle_check_is_one_short_transaction(services, actor):
    room = await open_room(services, actor)
    helper = room.agent("helper")
    cursor = (await services.channels.agent.join(helper, room.code)).cursor
    with counting(services) as seen:
        waiting = await parked_wait(services, helper, room.channel.channel_id, cursor, 5)
    assert (seen.count, seen.transactions) <= IDLE_CHECK, str(seen)
    # Its one write is the presence: that nothing waits to be claimed was seen, not tried.
    writes = [sql for sql in seen.sql if not sql.lstrip().upper().startswith("SELECT")]
    assert len(writes) == 1 and writes[0].startswith("UPDATE channel_members"), str(seen)
    # It said the agent listens (the presence the panel shows).
    members = (await services.channels.owner.get_channel(actor.user_id, room.channel.channel_id)).members
    assert [member.polling for member in members] == [True]
    waiting.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await waiting


async def test_a_status_report_stays_within_its_statements(services, actor):
    room, token, command_id = await holding_a_command(services, actor)
    async with agent(services, token) as helper:
        await helper.ok("romergo_get_scene", scene_id=room.story.first_scene_id)
        await services.channels.store.settled()  # the read's events are not the report's
        with counting(services) as seen:
            reported = await helper.call(
                "romergo_report_builder_event", command_id=command_id, kind="status", text="on it"
            )
    assert not reported.is_error
    assert (seen.count, seen.transactions) <= STATUS_REPORT, str(seen)


async def test_an_edit_inside_its_command_stays_within_its_statements(services, actor):
    room, token, command_id = await holding_a_command(services, actor)
    line = await services.lines.add_line(actor, room.story.first_scene_id, "Hello")
    async with agent(services, token) as helper:
        await helper.ok("romergo_update_dialogue_line", line_id=line.id, text="Hi", command_id=command_id)
        with counting(services) as seen:
            await helper.ok(
                "romergo_update_dialogue_line", line_id=line.id, text="Hey", command_id=command_id
            )
    assert (seen.count, seen.transactions) <= EDIT_IN_A_COMMAND, str(seen)
    assert (await services.scenes.scene_view(actor, room.story.first_scene_id)).lines[-1].line.text == "Hey"
    kinds = await room.kinds()
    assert kinds[-2:] == ["tool_started", "tool_finished"]


async def test_a_token_the_bearer_gate_verified_is_not_read_again_by_the_tool(services, actor):
    room = await open_room(services, actor)
    token, _ = await services.agents.personal.create("writer", name="Helper", scopes=ALL_SCOPES)
    verified = await RomergoOAuthProvider(services.agents).load_access_token(token)
    assert verified is not None
    reset = auth_context_var.set(AuthenticatedUser(verified))
    try:
        async with Client(build_server(services)) as client:
            await client.call_tool("romergo_get_scene", {"scene_id": room.story.first_scene_id})
            with counting(services) as seen:
                result = await client.call_tool("romergo_get_scene", {"scene_id": room.story.first_scene_id})
    finally:
        auth_context_var.reset(reset)
    assert data_of(result)["scene"]["id"] == room.story.first_scene_id
    assert not [sql for sql in seen.sql if "agent_tokens" in sql], str(seen)
    assert seen.count <= GET_SCENE_ALONE[0] - 1, str(seen)


async def holding_a_command(services, actor) -> tuple[Room, str, str]:
    """A room, and a personal-token agent in it that holds the owner's first command."""
    room = await open_room(services, actor)
    token, client_id = await services.agents.personal.create("writer", name="Helper", scopes=ALL_SCOPES)
    helper_ref = AgentRef(user_id=actor.user_id, client_id=client_id, client_name="Helper")
    cursor = (await services.channels.agent.join(helper_ref, room.code)).cursor
    await room.send("Tidy the opening")
    got = await services.channels.agent.wait(helper_ref, room.channel.channel_id, cursor, 1)
    assert got.command is not None
    return room, token, got.command.command_id


def _plus(first: tuple[int, int], second: tuple[int, int]) -> tuple[int, int]:
    return first[0] + second[0], first[1] + second[1]


async def test_the_bearer_check_is_one_statement_outside_a_transaction(services, author):
    """Every MCP call checks its token: one read on the database's driver, and the grant's "last
    used" noted for a later write of many (`agents.last_use`), not written by the call."""
    token, _ = await services.agents.personal.create(author.username, name="Helper", scopes=ALL_SCOPES)
    with counting(services) as seen:
        assert await services.agents.tokens.verify(token) is not None
        assert await services.agents.tokens.verify(token) is not None
    assert (seen.count, seen.transactions) == (2, 0), str(seen)

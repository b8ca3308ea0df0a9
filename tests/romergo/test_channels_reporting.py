"""An agent's reports as one write on the database's driver (`channels.reporting`).

Each test runs on SQLite and on PostgreSQL. What only some reports meet (a command waiting for
"Allow once", one whose earlier calls' events are still pending, one moved by another instance
meanwhile) is checked here for its outcome in the same write. `test_channels_delivery` and
`test_channels_calls` hold the rest.
"""

from __future__ import annotations

import asyncio

import pytest

from romergo.channels import ToolCall, reporting
from romergo.channels.store import channel_topic
from romergo.common.actors import agent_actor
from romergo.common.errors import RomergoError
from tests.romergo.test_channels_confirmations import Renamer, claimed, requested
from tests.support.channels import open_room
from tests.support.meanwhile import right_after
from tests.support.statements import counting


@pytest.mark.parametrize(("kind", "state"), [("status", "working"), ("question", "awaiting_answer")])
async def test_a_progress_report_moves_the_command_and_writes_its_event_in_one_write(
    services, actor, kind, state
):
    room = await open_room(services, actor)
    agent, command = await claimed(services, room)
    before = await room.events()
    heard = asyncio.create_task(services.bus.wait(channel_topic(room.channel.channel_id), 5))
    await asyncio.sleep(0)  # subscribed before the report publishes

    with counting(services) as seen:
        reported = await services.channels.agent.report(agent, command.command_id, kind, "  On it.  ")

    assert reported == (command.command_id, state)
    assert await heard, "the panel was not told"
    # The command with its room and membership, its state, its event's number, the event: on
    # PostgreSQL the number and the event are one statement.
    assert (seen.count, seen.transactions) == ((4, 1) if services.db.is_sqlite else (3, 1)), str(seen)
    [event] = (await room.events())[len(before) :]
    assert (event.kind, event.command_id, event.seq) == (kind, command.command_id, before[-1].seq + 1)
    assert (event.actor_type, event.actor_id) == ("agent", agent.client_id)
    assert event.actor_name == agent.client_name
    assert event.data == {"text": "On it.", "summary": None}
    stored = await services.channels.owner.get_command(actor.user_id, command.command_id)
    assert stored.state == state


@pytest.mark.parametrize(
    ("case", "code"),
    [
        ("no such command", "not_found"),
        ("command id not a string", "not_found"),
        ("another owner's command", "not_found"),
        ("the agent left", "not_member"),
        ("another agent's command", "not_claimed_by_you"),
        ("cancelled", "command_cancelled"),
        ("finished", "command_finished"),
    ],
)
async def test_a_refused_progress_report_writes_nothing(services, actor, case, code):
    room = await open_room(services, actor)
    agent, command = await claimed(services, room)
    command_id: object = command.command_id
    if case == "no such command":
        command_id = "cmd_nothing"
    elif case == "command id not a string":
        command_id = 42
    elif case == "another owner's command":
        stranger = await services.accounts.create_user("stranger")
        agent = type(agent)(user_id=stranger.id, client_id=agent.client_id, client_name=agent.client_name)
    elif case == "the agent left":
        await services.channels.agent.leave(agent, room.channel.channel_id)
    elif case == "another agent's command":
        agent = room.agent("b")
        await services.channels.agent.join(agent, room.code)
    elif case == "cancelled":
        await services.channels.owner.cancel_command(actor.user_id, command.command_id)
    else:
        done = {"status": "no_changes"}
        await services.channels.agent.report(agent, command.command_id, "reply", "Done.", done)
    before = await room.events()
    state = (await services.channels.owner.get_command(actor.user_id, command.command_id)).state

    with pytest.raises(RomergoError) as refused:
        await services.channels.agent.report(agent, command_id, "status", "Still here.")

    assert refused.value.code == code
    assert await room.events() == before
    assert (await services.channels.owner.get_command(actor.user_id, command.command_id)).state == state


async def test_a_report_right_after_a_call_comes_after_the_calls_events(services, actor):
    room = await open_room(services, actor)
    agent, command = await claimed(services, room)
    read = ToolCall(agent, "romergo_get_scene", "read", {"scene_id": room.story.first_scene_id}, None, None)
    await services.channels.guard.run_tool_call(
        read, lambda _: services.scenes.scene_view(actor, room.story.first_scene_id)
    )
    pending = services.channels.store.pending_tool_events
    # On SQLite the call's events wait a moment, and the report writes them first.
    assert (pending.waiting(command.command_id) if pending else 0) == (1 if services.db.is_sqlite else 0)

    reported = await services.channels.agent.report(agent, command.command_id, "status", "Read it.")

    assert reported == (command.command_id, "working")
    assert (await room.kinds())[-3:] == ["tool_started", "tool_finished", "status"]


async def test_a_command_waiting_for_allow_once_is_reported_without_leaving_that_state(services, actor):
    room = await open_room(services, actor, confirmation_mode="every_change")
    agent, command = await claimed(services, room)
    call = asyncio.create_task(Renamer(services, agent, room).run("Dawn"))
    request = await requested(room)

    reported = await services.channels.agent.report(agent, command.command_id, "status", "Asked you.")

    assert reported == (command.command_id, "needs_confirmation")
    assert (await room.kinds())[-1] == "status"
    await services.channels.confirmations.decide_confirmation(
        actor.user_id, request.data["confirmation_id"], "reject"
    )
    with pytest.raises(RomergoError):
        await call


@pytest.mark.parametrize("database", ["postgresql"])  # a SQLite write holds the file: nothing moves in it
async def test_a_command_cancelled_between_the_reports_read_and_its_write_refuses_the_report(
    services, actor, monkeypatch
):
    room = await open_room(services, actor)
    agent, command = await claimed(services, room)
    right_after(
        monkeypatch,
        reporting,
        "ensure_holder",
        lambda: services.channels.owner.cancel_command(actor.user_id, command.command_id),
    )
    before = await room.kinds()

    with pytest.raises(RomergoError) as refused:
        await services.channels.agent.report(agent, command.command_id, "status", "Too late.")

    assert refused.value.code == "command_cancelled"
    assert (await room.kinds())[len(before) :] == ["cancelled"]


async def test_a_reply_ends_the_command_with_what_was_recorded(services, actor, monkeypatch):
    room = await open_room(services, actor)
    agent, command = await claimed(services, room)
    story = room.story
    claimed_line = await services.lines.add_line(actor, story.first_scene_id, "Already there")
    working = agent_actor(agent.user_id, agent.client_id, agent.client_name)
    await services.scenes.update_scene(
        working.for_tool("romergo_update_scene", command.command_id), story.first_scene_id, title="Dawn"
    )
    added = await services.lines.add_line(
        working.for_tool("romergo_add_dialogue_line", command.command_id), story.second_scene_id, "New"
    )
    taken = _spy(monkeypatch, reporting, "_record_changes")
    before = await room.events()
    # The summary names a line of the renamed scene (so the rename counts as claimed), and a
    # character nobody changed; the line added in the other scene is not named.
    summary = {
        "status": "success",
        "description": "Renamed.",
        "changed_entities": [
            {"type": "dialogue_line", "id": claimed_line.id},
            {"type": "character", "id": story.hero_id},
        ],
    }

    reported = await services.channels.agent.report(agent, command.command_id, "reply", " Done ", summary)

    assert reported == (command.command_id, "done")
    assert taken == [command.command_id]
    reply, recorded, mismatch = (await room.events())[len(before) :]
    assert (reply.kind, reply.data["text"], reply.data["summary"]["status"]) == ("reply", "Done", "success")
    assert (recorded.kind, recorded.actor_type, recorded.command_id) == (
        "changes_recorded",
        "system",
        command.command_id,
    )
    assert [
        (c["entity_type"], c["entity_id"], c["title"], c["action"]) for c in recorded.data["changes"]
    ] == [
        ("scene", story.first_scene_id, "Dawn", "updated"),
        ("dialogue_line", added.id, "New", "created"),
    ]
    assert mismatch.kind == "summary_mismatch"
    assert mismatch.data == {
        "claimed_not_recorded": [
            {"type": "character", "id": story.hero_id},
            {"type": "dialogue_line", "id": claimed_line.id},
        ],
        "recorded_not_claimed": [{"type": "dialogue_line", "id": added.id}],
    }
    assert [e.seq for e in (reply, recorded, mismatch)] == [before[-1].seq + n for n in (1, 2, 3)]
    stored = await services.channels.owner.get_command(actor.user_id, command.command_id)
    assert stored.state == "done"


async def test_an_error_ends_the_command_with_what_was_recorded_and_no_comparison(services, actor):
    room = await open_room(services, actor)
    agent, command = await claimed(services, room)
    working = agent_actor(agent.user_id, agent.client_id, agent.client_name)
    await services.scenes.update_scene(
        working.for_tool("romergo_update_scene", command.command_id), room.story.first_scene_id, title="Dawn"
    )
    # An error may carry a summary; only a reply's is compared with what was recorded.
    nothing = {"status": "failed", "description": "Gave up.", "changed_entities": []}

    reported = await services.channels.agent.report(agent, command.command_id, "error", "Stuck.", nothing)

    assert reported == (command.command_id, "failed")
    error, recorded = (await room.events())[-2:]
    assert (error.kind, error.data["text"]) == ("error", "Stuck.")
    assert recorded.kind == "changes_recorded"
    assert [c["entity_id"] for c in recorded.data["changes"]] == [room.story.first_scene_id]


def _spy(monkeypatch, module, name):
    """The command ids `module.name` was called with (its fourth argument), calling it as before."""
    original, seen = getattr(module, name), []

    def spied(*args):
        seen.append(args[2])
        return original(*args)

    monkeypatch.setattr(module, name, spied)
    return seen

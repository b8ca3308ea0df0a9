"""The call guard (CONTRACT.md §2.5): attribution to commands, the room's binding and
permissions, and the tool events the panel shows."""

from __future__ import annotations

import asyncio

import pytest

from romergo.channels import ToolCall, pending_tool_events
from romergo.channels.memberships import current_rooms
from romergo.common.actors import agent_actor
from romergo.common.errors import RomergoError
from tests.support.channels import open_room
from tests.support.statements import counting
from tests.support.story import database_state, revisions
from tests.support.waiting import until


async def claim(services, room, name="a"):
    agent = room.agent(name)
    cursor = (await services.channels.agent.join(agent, room.code)).cursor
    await room.send("Rename the opening")
    got = await services.channels.agent.wait(agent, room.channel.channel_id, cursor, 1)
    return agent, got.command


def rename_call(agent, room, title="Dawn", command_id=None, category="edit"):
    return ToolCall(
        caller=agent,
        tool="romergo_update_scene",
        category=category,
        arguments={"scene_id": room.story.first_scene_id, "title": title},
        command_id=command_id,
        project_id=room.story.project_id,
    )


def renamer(services, agent, room, title="Dawn"):
    async def execute(admitted):
        actor = agent_actor(agent.user_id, agent.client_id, agent.client_name).for_tool(
            "romergo_update_scene", admitted.command_id
        )
        return await services.scenes.update_scene(actor, room.story.first_scene_id, title=title)

    return execute


async def test_a_call_during_a_command_is_attributed_and_shown_as_tool_events(services, actor):
    room = await open_room(services, actor)
    agent, command = await claim(services, room)

    await services.channels.guard.run_tool_call(rename_call(agent, room), renamer(services, agent, room))

    events = await room.events()
    assert [e.kind for e in events[-2:]] == ["tool_started", "tool_finished"]
    assert events[-2].data == {
        "tool": "romergo_update_scene",
        "arguments": {"scene_id": room.story.first_scene_id, "title": "Dawn"},
        "category": "edit",
    }
    assert events[-1].data == {
        "tool": "romergo_update_scene",
        "changed": [{"entity_type": "scene", "entity_id": room.story.first_scene_id}],
    }
    assert (await services.channels.owner.get_command(actor.user_id, command.command_id)).state == "working"
    revision = (await revisions(services, room.story.project_id))[-1]
    assert (revision.command_id, revision.tool, revision.actor_type, revision.client_id) == (
        command.command_id,
        "romergo_update_scene",
        "agent",
        "client-a",
    )


async def test_a_command_cancelled_while_a_tool_runs_stays_cancelled_and_the_call_is_still_shown(
    services, actor
):
    room = await open_room(services, actor)
    agent, command = await claim(services, room)
    rename = renamer(services, agent, room)

    async def cancelled_meanwhile(admitted):
        await services.channels.owner.cancel_command(actor.user_id, command.command_id)
        return await rename(admitted)

    # The call read its command as "claimed"; the owner's cancel moved the row on from there, so
    # the call's events must not write over it from what it read before. (A quick change writes
    # its started and finished events together when it ends: after the cancel here.)
    await services.channels.guard.run_tool_call(rename_call(agent, room), cancelled_meanwhile)

    assert [e.kind for e in (await room.events())[-3:]] == ["cancelled", "tool_started", "tool_finished"]
    assert (await services.channels.owner.get_command(actor.user_id, command.command_id)).state == "cancelled"


async def test_a_quick_change_writes_its_started_and_finished_events_together(services, actor, monkeypatch):
    # Quick: within the moment a change may run unseen, however slow the machine (0.25 s).
    monkeypatch.setattr(pending_tool_events, "START_AFTER_SECONDS", 60.0)
    room = await open_room(services, actor)
    agent, _ = await claim(services, room)
    with counting(services) as seen:
        await services.channels.guard.run_tool_call(rename_call(agent, room), renamer(services, agent, room))
        # On SQLite they are written just after the call answered (`channels.pending_tool_events`).
        await services.channels.store.settled()
    # (On PostgreSQL the INSERT carries its numbering in a CTE: `storage.channels.numbering`.)
    event_inserts = [sql for sql in seen.sql if "INSERT INTO channel_events" in sql]
    assert len(event_inserts) == 1, str(seen)  # both events in one INSERT, after the change
    assert (await room.kinds())[-2:] == ["tool_started", "tool_finished"]


async def test_a_slow_change_shows_as_running_while_it_runs(services, actor):
    room = await open_room(services, actor)
    agent, command = await claim(services, room)
    rename = renamer(services, agent, room)
    release = asyncio.Event()

    async def slow(admitted):
        await release.wait()
        return await rename(admitted)

    async def shown_running() -> bool:
        return (await room.kinds())[-1:] == ["tool_started"]

    running = asyncio.create_task(services.channels.guard.run_tool_call(rename_call(agent, room), slow))
    await until(shown_running, what="tool_started while it runs")
    assert (await services.channels.owner.get_command(actor.user_id, command.command_id)).state == "working"
    release.set()
    await running
    assert (await room.kinds())[-2:] == ["tool_started", "tool_finished"]


async def test_a_failed_call_is_a_tool_failed_event(services, actor):
    room = await open_room(services, actor)
    agent, _ = await claim(services, room)
    with pytest.raises(RomergoError):
        await services.channels.guard.run_tool_call(
            rename_call(agent, room, title=""), renamer(services, agent, room, "")
        )
    last = (await room.events())[-1]
    assert last.kind == "tool_failed"
    assert last.data["error_code"] == "invalid_argument"


async def test_leaving_keeps_the_room_so_a_change_without_a_command_is_refused(services, actor):
    room = await open_room(services, actor)
    agent = room.agent("a")
    await services.channels.agent.join(agent, room.code)
    await services.channels.agent.leave(agent, room.channel.channel_id)
    before = await database_state(services)

    with pytest.raises(RomergoError) as refused:
        await services.channels.guard.run_tool_call(rename_call(agent, room), renamer(services, agent, room))

    assert refused.value.code == "no_active_command"
    blocked = (await room.events())[-1]
    assert (blocked.kind, blocked.data["tool"]) == ("tool_blocked", "romergo_update_scene")
    after = await database_state(services)
    assert {k: v for k, v in after.items() if k not in ("channel_events", "channels")} == {
        k: v for k, v in before.items() if k not in ("channel_events", "channels")
    }


async def test_a_joined_agent_cannot_touch_another_project(services, actor):
    room = await open_room(services, actor)
    agent, _ = await claim(services, room)
    other = await services.projects.create_project(actor, "Elsewhere")
    call = ToolCall(
        agent, "romergo_add_chapter", "edit", {"project_id": other.id, "title": "x"}, None, other.id
    )
    with pytest.raises(RomergoError) as refused:
        await services.channels.guard.run_tool_call(call, lambda _: services.projects.list_projects(actor))
    assert refused.value.code == "permission_denied"


async def test_a_room_without_edit_refuses_edits_and_says_so(services, actor):
    room = await open_room(services, actor, permissions={"edit": False})
    agent, command = await claim(services, room)
    with pytest.raises(RomergoError) as refused:
        await services.channels.guard.run_tool_call(rename_call(agent, room), renamer(services, agent, room))
    assert refused.value.code == "permission_denied"
    blocked = (await room.events())[-1]
    assert blocked.kind == "tool_blocked"
    assert (blocked.command_id, blocked.data["permission"]) == (command.command_id, "edit")
    # A settings change applies to the very next call.
    await services.channels.owner.update_settings(actor.user_id, room.channel.channel_id, {"edit": True})
    await services.channels.guard.run_tool_call(rename_call(agent, room), renamer(services, agent, room))


async def test_naming_a_command_checks_who_holds_it_and_its_state(services, actor):
    room = await open_room(services, actor)
    agent, command = await claim(services, room)
    stranger = room.agent("b")
    await services.channels.agent.join(stranger, room.code)

    for caller, command_id, code in (
        (stranger, command.command_id, "not_claimed_by_you"),
        (agent, "cmd_unknown", "not_found"),
    ):
        with pytest.raises(RomergoError) as refused:
            await services.channels.guard.run_tool_call(
                rename_call(caller, room, command_id=command_id), renamer(services, caller, room)
            )
        assert refused.value.code == code

    await services.channels.owner.cancel_command(actor.user_id, command.command_id)
    for command_id in (command.command_id, None):
        with pytest.raises(RomergoError) as refused:
            await services.channels.guard.run_tool_call(
                rename_call(agent, room, command_id=command_id), renamer(services, agent, room)
            )
        assert refused.value.code == ("command_cancelled" if command_id else "no_active_command")


async def test_a_finished_command_can_still_be_read_by_its_agent_but_not_changed(services, actor):
    room = await open_room(services, actor)
    agent, command = await claim(services, room)
    await services.channels.guard.run_tool_call(
        rename_call(agent, room, command_id=command.command_id), renamer(services, agent, room)
    )
    await services.channels.agent.report(agent, command.command_id, "reply", "Done.", {"status": "success"})
    kinds_after_reply = await room.kinds()

    changes = await services.channels.guard.run_tool_call(
        rename_call(agent, room, command_id=command.command_id, category="read"),
        lambda _: services.channels.guard.changes_of_command(agent, command.command_id),
    )
    assert [change["entity_type"] for change in changes] == ["scene"]
    assert await room.kinds() == kinds_after_reply  # a read after the reply adds nothing to the card
    with pytest.raises(RomergoError) as refused:
        await services.channels.guard.run_tool_call(
            rename_call(agent, room, command_id=command.command_id), renamer(services, agent, room)
        )
    assert refused.value.code == "command_finished"
    stranger = room.agent("b")
    await services.channels.agent.join(stranger, room.code)
    with pytest.raises(RomergoError) as foreign:
        await services.channels.guard.run_tool_call(
            rename_call(stranger, room, command_id=command.command_id, category="read"),
            lambda _: services.channels.guard.changes_of_command(stranger, command.command_id),
        )
    assert foreign.value.code == "not_claimed_by_you"


async def test_an_agent_outside_any_channel_is_only_bound_by_its_token(services, actor):
    room = await open_room(services, actor)
    outsider = room.agent("outsider")
    scene = await services.channels.guard.run_tool_call(
        rename_call(outsider, room), renamer(services, outsider, room, "Free")
    )
    assert scene.title == "Free"


async def test_reads_are_allowed_and_attributed_when_one_command_is_held(services, actor):
    room = await open_room(services, actor)
    agent, command = await claim(services, room)
    call = ToolCall(
        agent,
        "romergo_get_scene",
        "read",
        {"scene_id": room.story.first_scene_id},
        None,
        room.story.project_id,
    )
    await services.channels.guard.run_tool_call(
        call, lambda _: services.scenes.scene_view(actor, room.story.first_scene_id)
    )
    events = await room.events()
    assert [e.kind for e in events[-2:]] == ["tool_started", "tool_finished"]
    assert events[-1].command_id == command.command_id


async def test_a_reads_events_follow_its_answer_and_keep_their_place_before_the_reply(services, actor):
    room = await open_room(services, actor)
    agent, command = await claim(services, room)
    read = ToolCall(agent, "romergo_get_scene", "read", {"scene_id": room.story.first_scene_id}, None, None)
    pending = services.channels.store.pending_tool_events

    await services.channels.guard.run_tool_call(
        read, lambda _: services.scenes.scene_view(actor, read.arguments["scene_id"])
    )
    # On SQLite the answer went first and its events wait a moment; on PostgreSQL (instances side
    # by side) the call wrote them itself.
    assert (pending.waiting(command.command_id) if pending else 0) == (1 if services.db.is_sqlite else 0)
    await services.channels.guard.run_tool_call(
        read, lambda _: services.scenes.scene_view(actor, read.arguments["scene_id"])
    )
    await services.channels.agent.report(
        agent, command.command_id, "reply", "Read it twice.", {"status": "no_changes"}
    )

    kinds = await room.kinds()
    reply = kinds.index("reply")
    assert kinds[reply - 4 : reply + 1] == ["tool_started", "tool_finished"] * 2 + ["reply"], kinds
    assert (await services.channels.owner.get_command(actor.user_id, command.command_id)).state == "done"


async def test_a_changes_events_follow_its_answer_and_the_reply_still_sees_the_change(services, actor):
    room = await open_room(services, actor)
    agent, command = await claim(services, room)
    pending = services.channels.store.pending_tool_events

    renamed = await services.channels.guard.run_tool_call(
        rename_call(agent, room), renamer(services, agent, room)
    )

    # The change is written when the call answers; on SQLite its events follow a moment later.
    assert renamed.title == "Dawn"
    assert (pending.waiting(command.command_id) if pending else 0) == (1 if services.db.is_sqlite else 0)
    summary = {
        "status": "success",
        "description": "Renamed.",
        "changed_entities": [{"type": "scene", "id": room.story.first_scene_id}],
    }
    await services.channels.agent.report(agent, command.command_id, "reply", "Done", summary)

    events = await room.events()
    kinds = [event.kind for event in events]
    reply = kinds.index("reply")
    assert kinds[reply - 2 : reply + 1] == ["tool_started", "tool_finished", "reply"], kinds
    assert events[reply - 1].data["changed"] == [
        {"entity_type": "scene", "entity_id": room.story.first_scene_id}
    ]
    assert "summary_mismatch" not in kinds  # what was recorded matches what the agent said


async def test_reads_close_together_write_their_events_in_one_transaction(services, actor, monkeypatch):
    # Close together: within one window, however slow the machine (the window is 5 ms).
    monkeypatch.setattr(pending_tool_events, "WINDOW_SECONDS", 60.0)
    room = await open_room(services, actor)
    agent, command = await claim(services, room)
    read = ToolCall(agent, "romergo_get_scene", "read", {"scene_id": room.story.first_scene_id}, None, None)
    with counting(services) as seen:
        for _ in range(3):
            await services.channels.guard.run_tool_call(
                read, lambda _: services.scenes.scene_view(actor, read.arguments["scene_id"])
            )
        await services.channels.store.settled()
    writes = [sql for sql in seen.sql if not sql.startswith("SELECT")]
    # SQLite: the command moved once, numbers taken once, one INSERT. PostgreSQL (writers side by
    # side, calls on any instance): each read writes its own two (the command moved, then its
    # events numbered and written by one statement).
    assert len(writes) == (3 if services.db.is_sqlite else 6), str(seen)
    assert (await room.kinds())[-6:] == ["tool_started", "tool_finished"] * 3
    assert (await services.channels.owner.get_command(actor.user_id, command.command_id)).state == "working"


async def test_the_reply_is_compared_with_what_was_recorded(services, actor):
    room = await open_room(services, actor)
    agent, command = await claim(services, room)
    await services.channels.guard.run_tool_call(rename_call(agent, room), renamer(services, agent, room))
    line = await services.lines.add_line(
        agent_actor(agent.user_id, agent.client_id, agent.client_name).for_tool(
            "romergo_add_dialogue_line", command.command_id
        ),
        room.story.second_scene_id,
        "New line",
    )

    summary = {
        "status": "success",
        "description": "Renamed.",
        "changed_entities": [
            {"type": "scene", "id": room.story.first_scene_id},
            {"type": "character", "id": room.story.hero_id},
        ],
    }
    await services.channels.agent.report(agent, command.command_id, "reply", "Done", summary)

    events = await room.events()
    recorded = next(e for e in events if e.kind == "changes_recorded")
    assert [(c["entity_type"], c["entity_id"]) for c in recorded.data["changes"]] == [
        ("scene", room.story.first_scene_id),
        ("dialogue_line", line.id),
    ]
    mismatch = events[-1]
    assert mismatch.kind == "summary_mismatch"
    assert mismatch.data == {
        "claimed_not_recorded": [{"type": "character", "id": room.story.hero_id}],
        "recorded_not_claimed": [{"type": "dialogue_line", "id": line.id}],
    }


async def test_a_line_change_counts_as_a_change_of_its_scene(services, actor):
    room = await open_room(services, actor)
    agent, command = await claim(services, room)
    await services.lines.add_line(
        agent_actor(agent.user_id, agent.client_id, agent.client_name).for_tool(
            "romergo_add_dialogue_line", command.command_id
        ),
        room.story.second_scene_id,
        "New line",
    )
    summary = {"status": "success", "changed_entities": [{"type": "scene", "id": room.story.second_scene_id}]}
    await services.channels.agent.report(agent, command.command_id, "reply", "Done", summary)
    assert (await room.kinds())[-1] == "changes_recorded"


async def test_a_call_reads_only_the_live_rooms_and_the_newest_on_its_project(services, actor):
    """An agent used every day joins a room per session: its calls must not load them all."""
    first = await open_room(services, actor)
    agent = first.agent("a")
    owner = services.channels.owner
    project_id = first.story.project_id
    await services.channels.agent.join(agent, first.code)
    await owner.end_channel(actor.user_id, first.channel.channel_id)
    for _ in range(3):
        ended = await owner.create_channel(actor.user_id, project_id)
        await services.channels.agent.join(agent, ended.code)
        await owner.end_channel(actor.user_id, ended.channel_id)
    other = await open_room(services, actor)  # a live room on another project
    await services.channels.agent.join(agent, other.code)
    newest = await owner.create_channel(actor.user_id, project_id)
    await services.channels.agent.join(agent, newest.code)
    call = rename_call(agent, first, category="read")

    assert await rooms_now(services, agent, project_id) == {newest.channel_id, other.channel.channel_id}
    await services.channels.guard.run_tool_call(call, lambda _: asyncio.sleep(0))

    await owner.end_channel(actor.user_id, newest.channel_id)
    # Ended: the room that says why is the newest on the project, not one of the older ones.
    assert await rooms_now(services, agent, project_id) == {newest.channel_id, other.channel.channel_id}
    with pytest.raises(RomergoError) as refused:
        await services.channels.guard.run_tool_call(call, lambda _: asyncio.sleep(0))
    assert refused.value.code == "channel_ended"
    blocked = (await owner.events(actor.user_id, newest.channel_id, 0, 0))[0][-1]
    assert blocked.kind == "tool_blocked"
    rooms = await services.channels.guard.rooms_of(agent)
    assert [channel.id for channel in rooms] == [other.channel.channel_id]


async def rooms_now(services, agent, project_id) -> set[str]:
    now = services.channels.store.now()
    rooms = await services.db.read_rows(
        lambda rows: current_rooms(rows, agent.user_id, agent.client_id, project_id, now)
    )
    return {membership.channel.id for membership in rooms}

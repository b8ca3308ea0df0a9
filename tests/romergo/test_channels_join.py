"""Joining a channel (CONTRACT.md §2.2): who may join with which code, and the cursor they get."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import update

from romergo.channels import AgentRef
from romergo.common.actors import user_actor
from romergo.common.clock import utcnow
from romergo.common.errors import RomergoError
from storage.tables import Channel
from tests.support.channels import open_room
from tests.support.story import database_state


async def test_a_new_channel_has_the_contract_defaults(services, actor):
    room = await open_room(services, actor)

    assert room.channel.permissions == {
        "read": True,
        "edit": True,
        "media": True,
        "publish": False,
        "delete": False,
    }
    assert room.channel.confirmation_mode == "none"
    assert room.channel.state == "live"
    assert room.code.startswith("rmg-") and len(room.code) > 20
    assert await room.kinds() == ["settings_changed"]


async def test_join_returns_the_room_and_the_conversation(services, actor):
    room = await open_room(services, actor)
    await room.send("Hello")

    joined = await services.channels.agent.join(room.agent("claude"), room.code)

    assert joined.channel.channel_id == room.channel.channel_id
    assert joined.project_title == "Test Story"
    assert [event.kind for event in joined.conversation] == ["settings_changed", "command", "agent_joined"]
    assert joined.cursor == 1  # just before the queued command (seq 2)


@pytest.mark.parametrize("code", ["rmg-unknown", "", "   ", "x" * 300])
async def test_an_unknown_code_is_refused_revealing_nothing(services, actor, code):
    room = await open_room(services, actor)
    before = await database_state(services)
    with pytest.raises(RomergoError) as refused:
        await services.channels.agent.join(room.agent("claude"), code)
    assert refused.value.code == "code_invalid"
    assert await database_state(services) == before


async def test_another_users_token_cannot_join_with_a_leaked_code(services, actor):
    room = await open_room(services, actor)
    stranger = await services.accounts.create_user("stranger")
    with pytest.raises(RomergoError) as refused:
        await services.channels.agent.join(AgentRef(stranger.id, "client-x", "X"), room.code)
    assert refused.value.code == "code_invalid"


async def test_a_rotated_code_stops_the_old_one_and_members_rejoin_with_the_new(services, actor):
    room = await open_room(services, actor)
    agent = room.agent("claude")
    await services.channels.agent.join(agent, room.code)

    new_code = await services.channels.owner.rotate_code(actor.user_id, room.channel.channel_id)

    with pytest.raises(RomergoError) as refused:
        await services.channels.agent.join(agent, room.code)
    assert refused.value.code == "code_invalid"
    assert (await services.channels.agent.join(agent, new_code)).channel.channel_id == room.channel.channel_id
    assert "code_rotated" in await room.kinds()


async def test_after_fifteen_minutes_a_code_admits_members_but_no_new_agents(services, actor):
    room = await open_room(services, actor)
    member = room.agent("claude")
    await services.channels.agent.join(member, room.code)
    async with services.db.write() as session:
        await session.exec(update(Channel).values(code_issued_at=utcnow() - timedelta(minutes=16)))

    assert (await services.channels.agent.join(member, room.code)).channel.state == "live"
    with pytest.raises(RomergoError) as refused:
        await services.channels.agent.join(room.agent("late"), room.code)
    assert refused.value.code == "code_invalid"
    assert "no longer admits new agents" in refused.value.message


async def test_an_ended_channels_code_says_so(services, actor):
    room = await open_room(services, actor)
    await services.channels.owner.end_channel(actor.user_id, room.channel.channel_id)
    with pytest.raises(RomergoError) as refused:
        await services.channels.agent.join(room.agent("claude"), room.code)
    assert refused.value.code == "channel_ended"


async def test_failed_join_attempts_are_rate_limited_per_client(services, actor):
    room = await open_room(services, actor)
    member = room.agent("member")
    for _ in range(12):  # a member reconnecting often is not guessing
        await services.channels.agent.join(member, room.code)
    guesser = room.agent("guesser")
    codes = []
    for attempt in range(11):
        try:
            await services.channels.agent.join(guesser, f"rmg-guess-{attempt}")
        except RomergoError as error:
            codes.append(error.code)
    assert codes == ["code_invalid"] * 10 + ["rate_limited"]
    with pytest.raises(RomergoError) as still:
        await services.channels.agent.join(guesser, room.code)  # even the right code, until the minute passes
    assert still.value.code == "rate_limited"


async def test_the_join_cursor_follows_the_clients_last_finished_command(services, actor):
    room = await open_room(services, actor)
    agent = room.agent("claude")
    joined = await services.channels.agent.join(agent, room.code)
    assert joined.cursor == joined.channel.cursor  # nothing queued: the latest seq

    sent = await room.send("first")
    got = await services.channels.agent.wait(agent, room.channel.channel_id, joined.cursor, 1)
    await services.channels.agent.report(
        agent, got.command.command_id, "reply", "Done.", {"status": "no_changes"}
    )
    await room.send("second")

    again = await services.channels.agent.join(agent, room.code)
    assert again.cursor == sent.seq


async def test_bad_settings_are_refused_and_change_nothing(services, actor):
    room = await open_room(services, actor)
    before = await database_state(services)
    for permissions, mode in (
        ({"fly": True}, None),
        ({"edit": "yes"}, None),
        (None, "sometimes"),
        ("all", None),
    ):
        with pytest.raises(RomergoError) as refused:
            await services.channels.owner.update_settings(
                actor.user_id, room.channel.channel_id, permissions, mode
            )
        assert refused.value.code == "invalid_argument"
    assert await database_state(services) == before


async def test_settings_change_partially_and_are_an_event(services, actor):
    room = await open_room(services, actor)
    changed = await services.channels.owner.update_settings(
        actor.user_id, room.channel.channel_id, {"publish": True}, "publish_and_delete"
    )
    assert changed.permissions["publish"] is True and changed.permissions["edit"] is True
    assert changed.confirmation_mode == "publish_and_delete"
    events = await room.events()
    assert events[-1].kind == "settings_changed"
    assert events[-1].data == {
        "permissions": changed.permissions,
        "confirmation_mode": "publish_and_delete",
        "scope": None,
    }


async def test_only_the_owner_reaches_the_channel(services, actor):
    room = await open_room(services, actor)
    stranger = user_actor((await services.accounts.create_user("stranger")).id)
    for attempt in (
        services.channels.owner.get_channel(stranger.user_id, room.channel.channel_id),
        services.channels.owner.post_command(stranger.user_id, room.channel.channel_id, "hi"),
        services.channels.owner.end_channel(stranger.user_id, room.channel.channel_id),
        services.channels.owner.rotate_code(stranger.user_id, room.channel.channel_id),
    ):
        with pytest.raises(RomergoError) as refused:
            await attempt
        assert refused.value.code == "not_found"


async def test_a_room_opens_only_on_the_owners_own_project_while_it_is_not_deleted(services, actor):
    room = await open_room(services, actor)
    stranger = user_actor((await services.accounts.create_user("stranger")).id)
    project_id = room.story.project_id
    refusals = []
    for user_id, project in (
        (stranger.user_id, project_id),
        (actor.user_id, "prj_nope"),
        (actor.user_id, 42),
    ):
        with pytest.raises(RomergoError) as refused:
            await services.channels.owner.create_channel(user_id, project)
        refusals.append(refused.value.code)
    await services.channels.owner.create_channel(actor.user_id, project_id)  # still open to its owner
    await services.projects.delete_project(actor, project_id)
    with pytest.raises(RomergoError) as deleted:
        await services.channels.owner.create_channel(actor.user_id, project_id)

    assert refusals == ["not_found"] * 3 and deleted.value.code == "not_found"
    assert len(await services.channels.owner.channels_of_project(actor.user_id, project_id)) == 2

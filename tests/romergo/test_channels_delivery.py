"""Delivery and reports (CONTRACT.md §2.3-§2.6): one claimer per command, redelivery, questions,
cancel, leases, retry, ending, and the events long-poll."""

from __future__ import annotations

import asyncio

import pytest

from romergo.channels import ChannelService, presence_topic
from romergo.common.errors import RomergoError
from storage import Database
from storage.channels import DatabaseChannelLedger
from tests.support.channels import open_room, parked_wait
from tests.support.statements import counting
from tests.support.waiting import still_running


async def joined(services, room, name):
    agent = room.agent(name)
    result = await services.channels.agent.join(agent, room.code)
    return agent, result.cursor


async def test_a_command_sent_before_the_agent_joined_is_delivered_after(services, actor):
    room = await open_room(services, actor)
    sent = await room.send(
        "Describe the scene", context={"surface": "scene", "scene_id": room.story.first_scene_id}
    )
    agent, cursor = await joined(services, room, "claude")

    got = await services.channels.agent.wait(agent, room.channel.channel_id, cursor, 1)

    assert got.status == "command"
    assert (got.command.command_id, got.command.text, got.command.redelivered) == (
        sent.command_id,
        "Describe the scene",
        False,
    )
    assert got.command.context["scene_id"] == room.story.first_scene_id
    assert got.cursor == sent.seq
    assert (await services.channels.owner.get_command(actor.user_id, sent.command_id)).state == "claimed"
    claimed = (await room.events())[-1]
    assert (claimed.kind, claimed.data) == (
        "claimed",
        {"client_id": "client-claude", "agent_name": "claude", "redelivered": False},
    )


async def test_a_parked_wait_wakes_when_a_command_arrives(services, actor):
    room = await open_room(services, actor)
    agent, cursor = await joined(services, room, "claude")
    waiting = await parked_wait(services, agent, room.channel.channel_id, cursor, 20)

    sent = await room.send("Now")
    got = await asyncio.wait_for(waiting, 5)
    assert got.command.command_id == sent.command_id


async def test_a_wait_times_out_with_the_cursor_unchanged(services, actor):
    room = await open_room(services, actor)
    agent, cursor = await joined(services, room, "claude")
    got = await services.channels.agent.wait(agent, room.channel.channel_id, cursor, 1)
    assert (got.status, got.cursor, got.command) == ("timeout", cursor, None)


async def test_two_agents_share_many_commands_each_delivered_exactly_once(services, actor):
    room = await open_room(services, actor)
    (a, cursor_a), (b, cursor_b) = await joined(services, room, "a"), await joined(services, room, "b")
    sent = [(await room.send(f"command {n}")).command_id for n in range(200)]
    delivered: dict[str, list[str]] = {"a": [], "b": []}

    async def work(agent, cursor, name):
        while sum(len(v) for v in delivered.values()) < len(sent):
            got = await services.channels.agent.wait(agent, room.channel.channel_id, cursor, 1)
            if got.status != "command":
                continue
            assert not got.command.redelivered
            delivered[name].append(got.command.command_id)
            cursor = got.cursor
            await services.channels.agent.report(
                agent, got.command.command_id, "reply", "ok", {"status": "no_changes"}
            )
            # An agent's next call comes over the network: the other gets its turn meanwhile. (On
            # SQLite's driver a claim and a reply never pause the loop, so without this one agent
            # could take every command before the other ran at all.)
            await asyncio.sleep(0)

    await asyncio.wait_for(asyncio.gather(work(a, cursor_a, "a"), work(b, cursor_b, "b")), 120)
    everything = delivered["a"] + delivered["b"]
    assert sorted(everything) == sorted(sent)  # none lost
    assert len(set(everything)) == len(everything)  # none twice
    assert delivered["a"] and delivered["b"]


async def test_claim_races_between_two_database_connections_never_double_deliver(services, actor):
    """Two service instances on two connection pools share no in-process lock; each round both
    agents race for the oldest of two fresh commands, so one must lose it and take the other."""
    room = await open_room(services, actor)
    (a, cursor_a), (b, cursor_b) = await joined(services, room, "a"), await joined(services, room, "b")
    other_db = Database(services.settings.resolved_database_url)
    other = ChannelService.build(
        other_db, services.bus, services.settings, ledger=DatabaseChannelLedger(other_db)
    ).agent
    try:
        for round_ in range(15):
            sent = {(await room.send(f"race {round_}.{n}")).command_id for n in range(2)}
            first, second = await asyncio.gather(
                services.channels.agent.wait(a, room.channel.channel_id, cursor_a, 5),
                other.wait(b, room.channel.channel_id, cursor_b, 5),
            )
            assert {first.command.command_id, second.command.command_id} == sent
            await services.channels.agent.report(
                a, first.command.command_id, "reply", "ok", {"status": "no_changes"}
            )
            await other.report(b, second.command.command_id, "reply", "ok", {"status": "no_changes"})
            cursor_a = cursor_b = max(first.cursor, second.cursor)
    finally:
        await other_db.dispose()


async def test_a_dropped_agent_gets_its_command_again_and_nothing_new_meanwhile(services, actor):
    room = await open_room(services, actor)
    (a, cursor_a), (b, cursor_b) = await joined(services, room, "a"), await joined(services, room, "b")
    first = await room.send("first")
    got = await services.channels.agent.wait(a, room.channel.channel_id, cursor_a, 1)
    assert got.command.command_id == first.command_id
    second = await room.send("second")

    # The agent lost the answer and polls again with its old cursor.
    again = await services.channels.agent.wait(a, room.channel.channel_id, cursor_a, 1)
    assert (again.command.command_id, again.command.redelivered) == (first.command_id, True)
    other = await services.channels.agent.wait(b, room.channel.channel_id, cursor_b, 1)
    assert other.command.command_id == second.command_id  # b never sees a's command


async def test_a_question_is_answered_only_to_the_asker(services, actor):
    room = await open_room(services, actor)
    (a, cursor_a), (b, cursor_b) = await joined(services, room, "a"), await joined(services, room, "b")
    asked = await room.send("Change the music")
    got = await services.channels.agent.wait(a, room.channel.channel_id, cursor_a, 1)
    _, state = await services.channels.agent.report(a, asked.command_id, "question", "Which chapter?")
    assert state == "awaiting_answer"

    answer = await room.send("Chapter two", in_reply_to=asked.command_id)
    assert (await services.channels.agent.wait(b, room.channel.channel_id, cursor_b, 1)).status == "timeout"
    delivered = await services.channels.agent.wait(a, room.channel.channel_id, got.cursor, 1)
    assert (delivered.command.command_id, delivered.command.in_reply_to) == (
        answer.command_id,
        asked.command_id,
    )
    assert (await services.channels.owner.get_command(actor.user_id, asked.command_id)).state == "answered"
    assert "answered" in await room.kinds()


async def test_answers_need_a_waiting_question(services, actor):
    room = await open_room(services, actor)
    sent = await room.send("Plain")
    with pytest.raises(RomergoError) as refused:
        await room.send("answer", in_reply_to=sent.command_id)
    assert refused.value.code == "conflict"
    with pytest.raises(RomergoError) as missing:
        await room.send("answer", in_reply_to="cmd_nope")
    assert missing.value.code == "not_found"


async def test_reports_follow_the_states_and_only_the_claimer_reports(services, actor):
    room = await open_room(services, actor)
    (a, cursor), (b, _) = await joined(services, room, "a"), await joined(services, room, "b")
    sent = await room.send("Work")
    await services.channels.agent.wait(a, room.channel.channel_id, cursor, 1)

    assert (await services.channels.agent.report(a, sent.command_id, "status", "Looking."))[1] == "working"
    for who, kind, summary, code in (
        (b, "status", None, "not_claimed_by_you"),
        (a, "reply", None, "summary_required"),
        (a, "shout", None, "invalid_argument"),
    ):
        with pytest.raises(RomergoError) as refused:
            await services.channels.agent.report(who, sent.command_id, kind, "text", summary)
        assert refused.value.code == code
    assert (
        await services.channels.agent.report(a, sent.command_id, "reply", "Done.", {"status": "no_changes"})
    )[1] == "done"
    with pytest.raises(RomergoError) as finished:
        await services.channels.agent.report(a, sent.command_id, "status", "more")
    assert finished.value.code == "command_finished"
    kinds = await room.kinds()
    assert kinds[-3:] == ["status", "reply", "changes_recorded"]


async def test_an_error_report_fails_the_command(services, actor):
    room = await open_room(services, actor)
    agent, cursor = await joined(services, room, "a")
    sent = await room.send("Impossible")
    await services.channels.agent.wait(agent, room.channel.channel_id, cursor, 1)
    assert (await services.channels.agent.report(agent, sent.command_id, "error", "Cannot."))[1] == "failed"


async def test_a_cancelled_command_refuses_reports(services, actor):
    room = await open_room(services, actor)
    agent, cursor = await joined(services, room, "a")
    sent = await room.send("Work")
    await services.channels.agent.wait(agent, room.channel.channel_id, cursor, 1)

    cancelled = await services.channels.owner.cancel_command(actor.user_id, sent.command_id)
    assert cancelled.state == "cancelled"
    with pytest.raises(RomergoError) as refused:
        await services.channels.agent.report(agent, sent.command_id, "reply", "Done", {"status": "success"})
    assert refused.value.code == "command_cancelled"
    # The slot is free again: the next command reaches the agent.
    nxt = await room.send("Next")
    assert (
        await services.channels.agent.wait(agent, room.channel.channel_id, sent.seq, 1)
    ).command.command_id == nxt.command_id


async def test_a_silent_command_stalls_after_its_lease_and_retry_makes_a_new_one(services, actor, clock):
    room = await open_room(services, actor)
    agent, cursor = await joined(services, room, "a")
    sent = await room.send("Work")
    await services.channels.agent.wait(agent, room.channel.channel_id, cursor, 1)

    assert await services.channels.sweeper.sweep() == (0, 0)  # the lease (600 s) still runs
    clock.advance(services.settings.command_lease_seconds + 1)
    stalled, _ = await services.channels.sweeper.sweep()
    assert stalled == 1
    assert (await services.channels.owner.get_command(actor.user_id, sent.command_id)).state == "stalled"

    retried = await services.channels.owner.retry_command(actor.user_id, sent.command_id)
    assert retried.retry_of == sent.command_id and retried.state == "queued"
    assert (await services.channels.owner.get_command(actor.user_id, sent.command_id)).state == "cancelled"
    # The stalled command freed the slot, so the retry reaches the agent.
    got = await services.channels.agent.wait(agent, room.channel.channel_id, sent.seq, 1)
    assert got.command.command_id == retried.command_id


async def test_only_stalled_failed_or_cancelled_commands_can_be_retried(services, actor):
    room = await open_room(services, actor)
    sent = await room.send("Queued")
    with pytest.raises(RomergoError) as refused:
        await services.channels.owner.retry_command(actor.user_id, sent.command_id)
    assert refused.value.code == "conflict"


async def test_ending_releases_a_waiting_poll_cancels_open_commands_and_refuses_later_calls(services, actor):
    room = await open_room(services, actor)
    (a, cursor_a), (b, cursor_b) = await joined(services, room, "a"), await joined(services, room, "b")
    held = await room.send("held")
    await services.channels.agent.wait(a, room.channel.channel_id, cursor_a, 1)
    question = await room.send("ask me")
    await services.channels.agent.wait(b, room.channel.channel_id, cursor_b, 1)
    await services.channels.agent.report(b, question.command_id, "question", "Which one?")
    waiting = await parked_wait(services, b, room.channel.channel_id, question.seq, 30)

    loop = asyncio.get_running_loop()
    started = loop.time()
    ended = await services.channels.owner.end_channel(actor.user_id, room.channel.channel_id)
    result = await asyncio.wait_for(waiting, 2)
    assert loop.time() - started < 2
    assert ended.state == "ended"
    assert result.status == "channel_ended"
    for command_id in (held.command_id, question.command_id):
        assert (await services.channels.owner.get_command(actor.user_id, command_id)).state == "cancelled"
    assert (
        await services.channels.agent.wait(a, room.channel.channel_id, cursor_a, 1)
    ).status == "channel_ended"
    with pytest.raises(RomergoError) as late_report:
        await services.channels.agent.report(a, held.command_id, "reply", "done", {"status": "success"})
    assert late_report.value.code == "command_cancelled"
    for attempt in (
        room.send("after"),
        services.channels.owner.update_settings(actor.user_id, room.channel.channel_id, {"edit": False}),
        services.channels.owner.rotate_code(actor.user_id, room.channel.channel_id),
    ):
        with pytest.raises(RomergoError) as refused:
            await attempt
        assert refused.value.code == "channel_ended"
    assert (await room.kinds())[-1] == "channel_ended"


async def test_leaving_stops_delivery_and_membership_calls(services, actor):
    room = await open_room(services, actor)
    agent, cursor = await joined(services, room, "a")
    await services.channels.agent.leave(agent, room.channel.channel_id)
    with pytest.raises(RomergoError) as refused:
        await services.channels.agent.wait(agent, room.channel.channel_id, cursor, 1)
    assert refused.value.code == "not_member"
    with pytest.raises(RomergoError) as stranger:
        await services.channels.agent.wait(room.agent("never-joined"), room.channel.channel_id, 0, 1)
    assert stranger.value.code == "not_member"


@pytest.mark.parametrize(("cursor", "timeout"), [(-1, 5), ("3", 5), (0, 0), (0, 51), (0, True)])
async def test_bad_wait_arguments_are_refused(services, actor, cursor, timeout):
    room = await open_room(services, actor)
    agent, _ = await joined(services, room, "a")
    with pytest.raises(RomergoError) as refused:
        await services.channels.agent.wait(agent, room.channel.channel_id, cursor, timeout)
    assert refused.value.code == "invalid_argument"


async def test_only_a_wait_with_a_heartbeat_may_park_past_fifty_seconds(services, actor):
    """A heartbeat keeps the call alive in the agent's client, so that wait may be nine minutes long;
    without one the longest is 50 seconds, and past nine minutes nothing parks."""
    room = await open_room(services, actor)
    agent, cursor = await joined(services, room, "a")
    channel_id = room.channel.channel_id

    async def beat() -> None:
        return None

    with pytest.raises(RomergoError) as unkept:
        await services.channels.agent.wait(agent, channel_id, cursor, 540)
    assert unkept.value.code == "invalid_argument" and "from 1 to 50" in str(unkept.value)
    with pytest.raises(RomergoError) as too_long:
        await services.channels.agent.wait(agent, channel_id, cursor, 541, beat)
    assert "from 1 to 540" in str(too_long.value)
    await room.send("Go on")
    got = await services.channels.agent.wait(agent, channel_id, cursor, 540, beat)
    assert got.status == "command"


async def test_members_show_polling_while_a_wait_is_open(services, actor):
    room = await open_room(services, actor)
    agent, cursor = await joined(services, room, "a")
    waiting = await parked_wait(services, agent, room.channel.channel_id, cursor, 10)
    view = await services.channels.owner.get_channel(actor.user_id, room.channel.channel_id)
    assert view.members[0].polling
    sent = await room.send("go")
    await waiting
    view = await services.channels.owner.get_channel(actor.user_id, room.channel.channel_id)
    assert not view.members[0].polling
    assert view.members[0].active_command_id == sent.command_id


async def test_a_parked_wait_calls_its_heartbeat(services, actor):
    room = await open_room(services, actor)
    agent, cursor = await joined(services, room, "a")
    services.channels.store.heartbeat_seconds = 0.2
    beats = 0

    async def beat() -> None:
        nonlocal beats
        beats += 1

    result = await services.channels.agent.wait(agent, room.channel.channel_id, cursor, 1, heartbeat=beat)
    assert result.status == "timeout"
    assert beats >= 3


async def test_heartbeats_read_nothing_and_a_command_still_wakes_the_wait(services, actor):
    """A thousand parked agents must not query the database on every beat."""
    room = await open_room(services, actor)
    agent, cursor = await joined(services, room, "a")
    services.channels.store.heartbeat_seconds = 0.01
    five_beats = asyncio.Event()
    beats = 0

    async def beat() -> None:
        nonlocal beats
        beats += 1
        if beats == 5:
            five_beats.set()

    waiting = await parked_wait(services, agent, room.channel.channel_id, cursor, 20, heartbeat=beat)
    with counting(services) as seen:
        await asyncio.wait_for(five_beats.wait(), 5)
    assert seen.count == 0, str(seen)
    sent = await room.send("go")
    got = await asyncio.wait_for(waiting, 5)
    assert got.command.command_id == sent.command_id


async def test_a_command_committed_between_the_check_and_the_park_is_not_missed(services, actor):
    """The wait subscribes before it reads: a publish that lands while its read commits wakes it."""
    room = await open_room(services, actor)
    agent, cursor = await joined(services, room, "a")
    delivery = services.channels.agent.delivery
    read = delivery.next_for
    sent: list[str] = []

    async def read_then_a_command_lands(*args, **kwargs):
        result = await read(*args, **kwargs)
        if not sent:
            sent.append((await room.send("landed in between")).command_id)
        return result

    delivery.next_for = read_then_a_command_lands
    got = await asyncio.wait_for(services.channels.agent.wait(agent, room.channel.channel_id, cursor, 30), 5)
    assert got.command.command_id == sent[0]


async def test_the_events_long_poll_wakes_on_a_new_event(services, actor):
    room = await open_room(services, actor)
    _, cursor = await services.channels.owner.events(actor.user_id, room.channel.channel_id)
    waiting = asyncio.create_task(
        services.channels.owner.events(actor.user_id, room.channel.channel_id, cursor, 20)
    )
    assert await still_running(waiting, 0.05)  # parked: nothing new yet
    await room.send("wake up")
    events, new_cursor = await asyncio.wait_for(waiting, 5)
    assert [e.kind for e in events] == ["command"]
    assert new_cursor == events[-1].seq


async def test_too_many_open_waits_per_client_are_refused(services, actor):
    services.channels.store.settings = services.settings.__class__(
        **{**services.settings.__dict__, "max_waits_per_client": 2}
    )
    room = await open_room(services, actor)
    agent, cursor = await joined(services, room, "a")
    parked = [await parked_wait(services, agent, room.channel.channel_id, cursor, 5) for _ in range(2)]
    with pytest.raises(RomergoError) as refused:
        await services.channels.agent.wait(agent, room.channel.channel_id, cursor, 5)
    assert refused.value.code == "rate_limited"
    await services.channels.owner.end_channel(actor.user_id, room.channel.channel_id)
    await asyncio.gather(*parked)


async def test_presence_changes_wake_the_presence_topic_only(services, actor):
    from romergo.channels import channel_topic

    room = await open_room(services, actor)
    agent, cursor = await joined(services, room, "a")
    woken: list[str] = []
    services.bus.listen(presence_topic(room.channel.channel_id), lambda _: woken.append("presence"))
    services.bus.listen(channel_topic(room.channel.channel_id), lambda _: woken.append("channel"))

    await services.channels.agent.wait(agent, room.channel.channel_id, cursor, 1)

    # Started listening; a timeout changes nothing yet (tests/romergo/test_channels_presence.py).
    assert woken == ["presence"]

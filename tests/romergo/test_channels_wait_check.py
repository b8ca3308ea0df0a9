"""A wait's check on the database's driver (`romergo/channels/wait_check.py`): one write on SQLite,
a read and one statement on PostgreSQL, and what happens when the room moves in between."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass

import pytest

from romergo.channels import AgentRef, wait_check
from romergo.channels.models import CommandView, WaitResult
from romergo.common.actors import Actor
from romergo.services import Services
from tests.support.channels import Room, open_room
from tests.support.meanwhile import right_after
from tests.support.statements import counting


def meanwhile(monkeypatch, happens: Callable[[], Awaitable[None]]) -> None:
    """`happens` runs once, between the next check's read of its room and its write: what another
    instance does in that moment."""
    right_after(monkeypatch, wait_check, "room_verdict", happens)


@dataclass
class TwoAgents:
    services: Services
    room: Room
    a: AgentRef
    b: AgentRef
    cursor: int
    """Where both start (they joined together)."""

    async def check(self, agent: AgentRef, cursor: int | None = None) -> WaitResult | None:
        """One wait's check for `agent`, which listens for 30 s if it finds nothing."""
        side = self.services.channels.agent
        at = self.cursor if cursor is None else cursor
        until = side.presence.listening_until(30)
        return await side.delivery.next_for(agent, self.room.channel.channel_id, at, until)


async def two_agents(services: Services, actor: Actor) -> TwoAgents:
    room = await open_room(services, actor)
    (a, cursor), (b, _) = await joined(services, room, "a"), await joined(services, room, "b")
    return TwoAgents(services, room, a, b, cursor)


async def joined(services, room, name):
    agent = room.agent(name)
    return agent, (await services.channels.agent.join(agent, room.code)).cursor


async def test_an_idle_check_and_a_claim_each_cost_two_statements(services, actor):
    room = await open_room(services, actor)
    agent, cursor = await joined(services, room, "a")
    channel_id = room.channel.channel_id
    delivery = services.channels.agent.delivery
    until = services.channels.agent.presence.listening_until(30)
    sent = await room.send("Tidy the opening")
    await delivery.next_for(agent, channel_id, sent.seq, until)  # warms the statements up

    with counting(services) as idle:
        assert await delivery.next_for(agent, channel_id, sent.seq, until) is None
    with counting(services) as claiming:
        got = await delivery.next_for(agent, channel_id, cursor, until)

    assert got is not None and got.command is not None and got.command.command_id == sent.command_id
    assert got.command.state == "claimed"
    if services.db.is_sqlite:  # one write transaction: the room, then the presence; or the claim, …
        assert (idle.count, idle.transactions) == (2, 1), str(idle)
        assert (claiming.count, claiming.transactions) == (5, 1), str(claiming)
    else:  # … on PostgreSQL the room read, then one statement that writes, neither in a BEGIN
        assert (idle.count, idle.transactions) == (2, 0), str(idle)
        assert (claiming.count, claiming.transactions) == (2, 0), str(claiming)
    events = await room.events()
    assert [(event.kind, event.command_id) for event in events[-2:]] == [
        ("command", sent.command_id),
        ("claimed", sent.command_id),
    ]
    assert events[-1].seq == events[-2].seq + 1 and events[-1].data["client_id"] == "client-a"
    view = await services.channels.owner.get_channel(actor.user_id, channel_id)
    assert [member.polling for member in view.members] == [False]  # the wait ends with its command


@pytest.mark.parametrize("database", ["postgresql"])  # only there are the read and the claim apart
async def test_a_command_another_agent_claims_between_the_read_and_the_claim_goes_to_it_once(
    services, actor, monkeypatch
):
    two = await two_agents(services, actor)
    room, a, b, channel_id = two.room, two.a, two.b, two.room.channel.channel_id
    sent = await room.send("Only one of you")
    taken: list[WaitResult | None] = []

    async def b_claims_it() -> None:
        taken.append(await two.check(b))

    meanwhile(monkeypatch, b_claims_it)

    got = await two.check(a)

    assert got is None  # a parks: it saw the command, but b had claimed it
    assert taken[0] is not None and taken[0].command is not None
    assert taken[0].command.command_id == sent.command_id
    claims = [event for event in await room.events() if event.kind == "claimed"]
    assert [(event.command_id, event.data["client_id"]) for event in claims] == [
        (sent.command_id, "client-b")
    ]
    view = await services.channels.owner.get_channel(actor.user_id, channel_id)
    assert {member.client_id: member.polling for member in view.members} == {
        "client-a": True,
        "client-b": False,
    }


@pytest.mark.parametrize("database", ["postgresql"])
async def test_an_answer_that_became_the_next_command_meanwhile_also_moves_its_question(
    services, actor, monkeypatch
):
    two = await two_agents(services, actor)
    room, a, b = two.room, two.a, two.b
    asked = await room.send("Change the music")
    held = await two.check(a)
    assert held is not None
    await services.channels.agent.report(a, asked.command_id, "question", "Which chapter?")
    plain = await room.send("Plain")  # what a's check reads as next
    answers: list[CommandView] = []

    async def b_takes_it_and_the_owner_answers() -> None:
        assert await two.check(b) is not None
        answers.append(await room.send("Chapter two", in_reply_to=asked.command_id))

    meanwhile(monkeypatch, b_takes_it_and_the_owner_answers)

    got = await two.check(a, held.cursor)

    assert got is not None and got.command is not None
    assert (got.command.command_id, got.command.in_reply_to) == (answers[0].command_id, asked.command_id)
    assert (await services.channels.owner.get_command(actor.user_id, asked.command_id)).state == "answered"
    assert (await services.channels.owner.get_command(actor.user_id, plain.command_id)).state == "claimed"

"""Posting a command: what is written, and that a refused post writes nothing.

On SQLite a post is one write on the driver (`channels.posting`), on PostgreSQL a read of the room
and one statement that writes: each test runs on both, so the two must agree.
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from romergo.channels import posting
from romergo.channels.store import PostingRoom
from romergo.common.errors import RomergoError
from storage.core_tables import COMMANDS
from storage.records import columns_of
from storage.tables import Command
from tests.support.channels import open_room
from tests.support.meanwhile import right_after
from tests.support.statements import counting

PAGE = {"route": "/projects", "surface": "project"}


async def test_a_posted_command_is_queued_under_the_next_number_with_its_event(services, actor):
    room = await open_room(services, actor)
    before = await room.events()

    posted = await room.send("Tidy the opening", context=PAGE)

    events = await room.events()
    assert posted.seq == before[-1].seq + 1 == events[-1].seq
    assert posted.state == "queued" and posted.text == "Tidy the opening"
    assert posted.context["route"] == "/projects" and posted.context["project_id"] == room.story.project_id
    event = events[-1]
    assert (event.kind, event.command_id, event.actor_type) == ("command", posted.command_id, "user")
    assert event.actor_name == "writer" and event.data["text"] == "Tidy the opening"
    stored = await services.channels.owner.get_command(actor.user_id, posted.command_id)
    assert (stored.seq, stored.state, stored.context) == (posted.seq, "queued", posted.context)


def test_a_posted_command_fills_every_column_as_the_entitys_constructor_would():
    """The post makes its command as a record, and the driver writes its values as the row: a column
    left out or given differently would be written differently from the entity the constructor
    makes."""
    room = PostingRoom("chn_x", "prj_x", None, None, None, datetime(2027, 1, 1, tzinfo=UTC), "writer", 7)
    now = datetime(2026, 12, 6, 20, 0, tzinfo=UTC)

    command = posting.posted_command(
        room, "Tidy", {"route": "/"}, now, in_reply_to="cmd_q", reserved_for="c1"
    )

    columns = columns_of(command)
    assert set(columns) == {column.name for column in COMMANDS.c}
    assert Command(**columns).model_dump() == columns
    assert (columns["seq"], columns["state"], columns["last_activity_at"]) == (7, "queued", now)
    assert (columns["claimed_by"], columns["deliveries"], columns["finished_at"]) == (None, 0, None)


@pytest.mark.parametrize(
    ("case", "code"),
    [
        ("context not an object", "invalid_argument"),
        ("context of another project", "invalid_argument"),
        ("no such channel", "not_found"),
        ("channel id not a string", "not_found"),
        ("another owner's channel", "not_found"),
        ("ended channel", "channel_ended"),
    ],
)
async def test_a_refused_post_takes_no_number_and_writes_nothing(services, actor, case, code):
    room = await open_room(services, actor)
    user_id = actor.user_id
    channel_id: object = room.channel.channel_id
    context: object = PAGE
    if case == "context not an object":
        context = ["not", "an", "object"]
    elif case == "context of another project":
        context = {**PAGE, "project_id": "prj_elsewhere"}
    elif case == "no such channel":
        channel_id = "chn_nothing"
    elif case == "channel id not a string":
        channel_id = 42
    elif case == "another owner's channel":
        user_id = (await services.accounts.create_user("stranger")).id
    else:
        await services.channels.owner.end_channel(actor.user_id, room.channel.channel_id)
    before = await room.events()

    with pytest.raises(RomergoError) as refused:
        await services.channels.owner.post_command(user_id, channel_id, "Tidy the opening", context)

    assert refused.value.code == code
    assert await room.events() == before
    if case != "ended channel":
        assert (await room.send("Now a good one")).seq == before[-1].seq + 1


async def test_a_post_is_one_write_on_sqlite_and_a_read_and_one_statement_on_postgresql(services, actor):
    room = await open_room(services, actor)

    with counting(services) as seen:
        await room.send("Tidy the opening")

    if services.db.is_sqlite:
        assert (seen.count, seen.transactions) == (3, 1), str(seen)  # number, command, event
    else:  # the room read, then number, command and event in one statement, no BEGIN or COMMIT
        assert (seen.count, seen.transactions) == (2, 0), str(seen)


@pytest.mark.parametrize("database", ["postgresql"])  # only there is the room read before the write
async def test_a_channel_ended_between_the_posts_read_and_its_write_refuses_it_and_writes_nothing(
    services, actor, monkeypatch
):
    room = await open_room(services, actor)
    before = await room.events()
    right_after(
        monkeypatch,
        posting,
        "posting_room",
        lambda: services.channels.owner.end_channel(actor.user_id, room.channel.channel_id),
    )

    with pytest.raises(RomergoError) as refused:
        await services.channels.owner.post_command(actor.user_id, room.channel.channel_id, "Too late", PAGE)

    assert refused.value.code == "channel_ended"
    assert [event.kind for event in (await room.events())[len(before) :]] == ["channel_ended"]

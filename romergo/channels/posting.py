"""Posting a command on the database's driver: the owner's busiest step, where every delivery starts.

A post takes the command's number with the channel, writes the command and its `command` event. In
the ORM's transaction that cost ~1 ms of the loop's time per command, most of it SQLAlchemy's work
around five statements; as one write on the driver (`Database.write_rows`) it costs a fraction
(docs/performance.md). `OwnerSide.post_command` uses it first where it applies:
- not for an answer to a question, which reads and checks the question first;
- not when the room has a reach limit and the context has a selection: where the selection lies
  is read in the ORM (`room_view.keep_to_reach`). The post then raises `NeedsOrmTransaction` inside
  the write, which rolls back the number it took, and the ORM's transaction posts it.

On PostgreSQL each statement, and the transaction's BEGIN and COMMIT, is a round trip (~150 µs
here): the write above took six. There a post reads the room, checks it, and writes with one
statement whose data-modifying CTEs take the number, write the command and its event and send the
NOTIFY (`storage.channels.posts`): two round trips, each statement atomic on its own, on one
connection (`Database.statements_alone`). Its UPDATE repeats the room's checks (this owner's, not ended, not
expired), so a channel ended in between matches nothing, writes nothing, and the write above
answers with the refusal.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, NamedTuple

from romergo.channels.context import clean_context
from romergo.channels.events import CommandPosted, Payload
from romergo.channels.models import CommandView
from romergo.channels.reach import scope_chapters
from romergo.channels.store import (
    ChannelStore,
    PostingRoom,
    channel_topic,
    command_view,
    posting_room,
)
from romergo.channels.tx import EventActor, NeedsOrmTransaction, event_rows
from romergo.channels.vocabulary import CommandState, EventKind, next_state
from romergo.common.ids import new_id
from storage.channels.posts import (
    numbered_room_on_driver,
    post_at_once_on_driver,
    posting_room_on_driver,
    write_post_on_driver,
)
from storage.core_tables import made
from storage.driver import Writes
from storage.tables import Command


async def post_on_driver(
    store: ChannelStore, user_id: str, channel_id: object, text: str, context: object
) -> CommandView | None:
    """The command posted (its text checked already), or None where the ORM's transaction must
    post it (see the module's docstring). Refusals (`not_found`, `channel_ended`, a bad context)
    are raised as the ORM's would be, with nothing written."""
    post = _Post(user_id, channel_id, text, context, store.now())
    # The other instances hear of it at the commit (the agent's wait may be parked on one of them).
    notices = store.bus.notices(channel_topic(channel_id)) if isinstance(channel_id, str) else []
    try:
        posted = None
        if store.db.data_modifying_ctes:  # PostgreSQL: at most one notice, its NOTIFY
            notice = notices[0][1] if notices else None
            posted = await store.db.statements_alone(lambda rows: _post_at_once(rows, store, post, notice))
        if posted is None:
            posted = await store.db.write_rows(lambda rows: _post(rows, store, post, notices))
    except NeedsOrmTransaction:
        return None
    store.bus.deliver(channel_topic(posted.channel_id))
    return posted


def posted_command(
    channel: PostingRoom,
    text: str,
    context: dict[str, Any],
    now: datetime,
    *,
    in_reply_to: str | None = None,
    reserved_for: str | None = None,
) -> Command:
    """The command a post writes: under the number it took with its channel, queued as its
    `command` event leaves it. Made without the entity's constructor (`made`): the driver's post
    only dumps and views it, and the constructor cost more than the statements that write it."""
    return made(
        Command,
        id=new_id("cmd"),
        channel_id=channel.id,
        seq=channel.seq,
        text=text,
        context=context,
        state=next_state(CommandState.QUEUED, EventKind.COMMAND),
        reserved_for=reserved_for,
        in_reply_to=in_reply_to,
        created_at=now,
        last_activity_at=now,
    )


def posted_payload(command: Command) -> CommandPosted:
    """What a `command` event carries of the command it posts."""
    return CommandPosted(
        text=command.text, context=command.context, in_reply_to=command.in_reply_to, retry_of=command.retry_of
    )


class _Post(NamedTuple):
    """What the owner asked to post."""

    user_id: str
    channel_id: object
    text: str
    context: object
    now: datetime

    @property
    def room(self) -> str | None:
        """The channel the owner named; None when `channel_id` cannot name one."""
        if isinstance(self.channel_id, str) and self.channel_id:
            return self.channel_id
        return None

    def command_in(self, store: ChannelStore, found: PostingRoom | None) -> tuple[Command, EventActor]:
        """The command posted in the room `found` (a `PostingRoom` row), with the owner as its
        actor; refusals raised, and `NeedsOrmTransaction` where the ORM must post it."""
        channel, owner = posting_room(found, self.user_id, self.channel_id)
        store.ensure_live(channel)
        data = clean_context(self.context, channel.project_id, store.settings.limits, self.now)
        if scope_chapters(channel.scope) is not None and data.get("selection") is not None:
            raise NeedsOrmTransaction
        return posted_command(channel, self.text, data, self.now), owner


def _post(
    rows: Writes, store: ChannelStore, post: _Post, notices: list[tuple[Any, dict[str, Any]]]
) -> CommandView:
    room = post.room
    numbered = None if room is None else numbered_room_on_driver(rows, post.user_id, room)
    command, owner = post.command_in(store, numbered)
    happened: list[tuple[EventKind, Payload | None]] = [(EventKind.COMMAND, posted_payload(command))]
    shared, [own] = event_rows(command.channel_id, owner, happened, command.id, post.now)
    write_post_on_driver(rows, command.model_dump(), shared, own)
    for statement, params in notices:
        rows.first(statement, params)
    return command_view(command)


def _post_at_once(
    rows: Writes, store: ChannelStore, post: _Post, notice: dict[str, Any] | None
) -> CommandView | None:
    """The post as a read and one write, each on its own (PostgreSQL, see the module's docstring);
    None when the room changed in between (nothing was written)."""
    room = post.room
    found = None if room is None else posting_room_on_driver(rows, post.user_id, room)
    command, owner = post.command_in(store, found)
    happened: list[tuple[EventKind, Payload | None]] = [(EventKind.COMMAND, posted_payload(command))]
    shared, [own] = event_rows(command.channel_id, owner, happened, command.id, post.now)
    seq = post_at_once_on_driver(rows, post.user_id, post.now, command.model_dump(), shared | own, notice)
    if seq is None:
        return None
    command.seq = seq
    return command_view(command)

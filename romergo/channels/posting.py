"""Posting a command on the database's driver: the owner's busiest step, where every delivery starts.

A post takes the command's number with the channel, writes the command and its `command` event, in
one write on the driver (`Database.write_rows`): the ORM's transaction cost ~1 ms of the loop's
time per command, most of it SQLAlchemy's work around five statements (docs/performance.md). What
only some posts need is read inside that write, after the number is taken (the room's row held):
- an answer to a question reads the question, which must be this room's and waiting for an answer;
  the answer is reserved for the agent that asked;
- in a room with a reach limit, a context with a selection reads where the selection lies
  (`storage.channels.places`): selected words outside the room do not travel
  (`room_view.keep_to_reach_now`).

On PostgreSQL each statement, and the transaction's BEGIN and COMMIT, is a round trip (~150 µs
here). There a post that needs neither of the reads above reads the room, checks it, and writes
with one statement whose data-modifying CTEs take the number, write the command and its event and
send the NOTIFY (`storage.channels.posts`): two round trips, each statement atomic on its own, on
one connection (`Database.statements_alone`). Its UPDATE repeats the room's checks (this owner's,
not ended, not expired), so a channel ended in between matches nothing, writes nothing, and the
write above answers with the refusal. An answer, or a selection in a limited room, is the write
above: what it reads must hold with the number taken.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime
from typing import Any, NamedTuple

from romergo.channels.actors import EventActor
from romergo.channels.context import clean_context
from romergo.channels.events import CommandPosted, Payload
from romergo.channels.ledger import CommandRecord
from romergo.channels.models import CommandView
from romergo.channels.reach import scope_chapters
from romergo.channels.room_view import keep_to_reach_now
from romergo.channels.store import (
    ChannelStore,
    PostingRoom,
    channel_topic,
    command_view,
    posting_room,
)
from romergo.channels.tx import event_rows
from romergo.channels.vocabulary import CommandState, EventKind, next_state
from romergo.common.errors import RomergoError
from romergo.common.ids import new_id
from storage.channels.places import PlacesOnDriver
from storage.channels.posts import (
    command_on_driver,
    numbered_room_on_driver,
    post_at_once_on_driver,
    posting_room_on_driver,
    write_post_on_driver,
)
from storage.driver import Writes
from storage.records import columns_of


async def post_on_driver(
    store: ChannelStore,
    user_id: str,
    channel_id: object,
    text: str,
    context: object,
    in_reply_to: object = None,
) -> CommandView:
    """The command posted (its text checked already), `in_reply_to` a question when it answers one.
    Refusals (`not_found`, `channel_ended`, a bad context, a question not waiting for an answer)
    are raised with nothing written."""
    post = _Post(user_id, channel_id, text, context, in_reply_to, store.now())
    # The other instances hear of it at the commit (the agent's wait may be parked on one of them).
    notices = store.bus.notices(channel_topic(channel_id)) if isinstance(channel_id, str) else []
    posted = None
    if store.db.data_modifying_ctes and in_reply_to is None:  # PostgreSQL: at most one notice, its NOTIFY
        notice = notices[0][1] if notices else None
        posted = await store.db.statements_alone(lambda rows: _post_at_once(rows, store, post, notice))
    if posted is None:
        posted = await store.db.write_rows(lambda rows: _post(rows, store, post, notices))
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
) -> CommandRecord:
    """The command a post writes: under the number it took with its channel, queued as its
    `command` event leaves it."""
    return new_command(
        channel.id, channel.seq, text, context, now, in_reply_to=in_reply_to, reserved_for=reserved_for
    )


def new_command(
    channel_id: str,
    seq: int,
    text: str,
    context: dict[str, Any] | None,
    now: datetime,
    *,
    in_reply_to: str | None = None,
    reserved_for: str | None = None,
    retry_of: str | None = None,
) -> CommandRecord:
    """A new command numbered `seq` in its channel, as its `command` event leaves it: queued, not
    yet delivered to anyone."""
    return CommandRecord(
        id=new_id("cmd"),
        channel_id=channel_id,
        seq=seq,
        text=text,
        context=context,
        state=_QUEUED,
        claimed_by=None,
        reserved_for=reserved_for,
        in_reply_to=in_reply_to,
        retry_of=retry_of,
        deliveries=0,
        created_at=now,
        claimed_at=None,
        last_activity_at=now,
        finished_at=None,
    )


_QUEUED = next_state(CommandState.QUEUED, EventKind.COMMAND).value
"""Where a command's `command` event leaves it."""


def posted_payload(command: CommandRecord) -> CommandPosted:
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
    in_reply_to: object
    now: datetime

    @property
    def room(self) -> str | None:
        """The channel the owner named; None when `channel_id` cannot name one."""
        if isinstance(self.channel_id, str) and self.channel_id:
            return self.channel_id
        return None

    def checked(
        self, store: ChannelStore, found: PostingRoom | None
    ) -> tuple[PostingRoom, EventActor, dict[str, Any]]:
        """The room `found` (a `PostingRoom` row), the owner as the post's actor and the cleaned
        context; refusals raised."""
        channel, owner = posting_room(found, self.user_id, self.channel_id)
        store.ensure_live(channel)
        return (
            channel,
            owner,
            clean_context(self.context, channel.project_id, store.settings.limits, self.now),
        )


def _post(
    rows: Writes, store: ChannelStore, post: _Post, notices: list[tuple[Any, dict[str, Any]]]
) -> CommandView:
    room = post.room
    numbered = None if room is None else numbered_room_on_driver(rows, post.user_id, room)
    channel, owner, data = post.checked(store, numbered)
    data = keep_to_reach_now(PlacesOnDriver(rows), channel, data)
    reserved_for = None if post.in_reply_to is None else _asker(rows, channel.id, post.in_reply_to)
    in_reply_to = None if post.in_reply_to is None else str(post.in_reply_to)
    command = posted_command(
        channel, post.text, data, post.now, in_reply_to=in_reply_to, reserved_for=reserved_for
    )
    happened: list[tuple[EventKind, Payload | None]] = [(EventKind.COMMAND, posted_payload(command))]
    shared, [own] = event_rows(command.channel_id, owner, happened, command.id, post.now)
    write_post_on_driver(rows, columns_of(command), shared, own)
    for statement, params in notices:
        rows.first(statement, params)
    return command_view(command)


def _asker(rows: Writes, channel_id: str, in_reply_to: object) -> str | None:
    """Who asked the question the post answers (the answer is reserved for it); refused unless it
    is a command of this room waiting for an answer."""
    question = command_on_driver(rows, in_reply_to) if isinstance(in_reply_to, str) else None
    if question is None or question.channel_id != channel_id:
        raise RomergoError("not_found", f'Command "{in_reply_to}" does not exist in this channel.')
    if question.state != CommandState.AWAITING_ANSWER:
        raise RomergoError("conflict", "That command is not waiting for an answer.")
    return question.claimed_by


def _post_at_once(
    rows: Writes, store: ChannelStore, post: _Post, notice: dict[str, Any] | None
) -> CommandView | None:
    """The post as a read and one write, each on its own (PostgreSQL, see the module's docstring);
    None, with nothing written, when the room changed in between or the post must read where its
    selection lies (both then take the write with the room held)."""
    room = post.room
    found = None if room is None else posting_room_on_driver(rows, post.user_id, room)
    channel, owner, data = post.checked(store, found)
    if scope_chapters(channel.scope) is not None and data.get("selection") is not None:
        return None
    command = posted_command(channel, post.text, data, post.now)
    happened: list[tuple[EventKind, Payload | None]] = [(EventKind.COMMAND, posted_payload(command))]
    shared, [own] = event_rows(command.channel_id, owner, happened, command.id, post.now)
    seq = post_at_once_on_driver(rows, post.user_id, post.now, columns_of(command), shared | own, notice)
    if seq is None:
        return None
    return command_view(replace(command, seq=seq))

"""Posting a command on the database's driver: the owner's busiest step, where every delivery starts.

A post takes the command's number with the channel, writes the command and its `command` event. In
the ORM's transaction that cost ~1 ms of the loop's time per command, most of it SQLAlchemy's work
around five statements; as one write on the driver (`Database.write_rows`) it costs a fraction
(issues 16 and 17, docs/performance.md). `OwnerSide.post_command` uses it first where it applies:
- not for an answer to a question, which reads and checks the question first;
- not when the room has a reach limit and the context has a selection: where the selection lies
  is read in the ORM (`reach.keep_to_reach`). The post then raises `LeftToTheSession` inside
  the write, which rolls back the number it took, and the ORM's transaction posts it.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import bindparam, insert

from romergo.channels.context import clean_context
from romergo.channels.events import CommandPosted
from romergo.channels.models import CommandView
from romergo.channels.reach import scope_chapters
from romergo.channels.store import (
    NUMBERED_POST,
    ChannelStore,
    PostingRoom,
    channel_topic,
    command_view,
    posting_room,
)
from romergo.channels.tx import LeftToTheSession, write_event
from romergo.channels.vocabulary import CommandState, EventKind, next_state
from romergo.ids import new_id
from storage.core_tables import COMMANDS
from storage.driver import Writes
from storage.tables import Command


async def post_on_driver(
    store: ChannelStore, user_id: str, channel_id: object, text: str, context: object
) -> CommandView | None:
    """The command posted (its text checked already), or None where the ORM's transaction must
    post it (see the module's docstring). Refusals (`not_found`, `channel_ended`, a bad context)
    are raised as the ORM's would be, with nothing written."""
    now = store.now()
    # The other instances hear of it at the commit (the agent's wait may be parked on one of them).
    notices = store.bus.notices(channel_topic(channel_id)) if isinstance(channel_id, str) else []
    try:
        posted = await store.db.write_rows(
            lambda rows: _post(rows, store, user_id, channel_id, text, context, now, notices)
        )
    except LeftToTheSession:
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
    `command` event leaves it."""
    return Command(
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


def _post(
    rows: Writes,
    store: ChannelStore,
    user_id: str,
    channel_id: object,
    text: str,
    context: object,
    now: datetime,
    notices: list[tuple[Any, dict[str, Any]]],
) -> CommandView:
    found = (
        rows.first(NUMBERED_POST, {"channel": channel_id, "owner": user_id}) if _an_id(channel_id) else None
    )
    channel, owner = posting_room(found, user_id, channel_id)
    store.ensure_live(channel)
    data = clean_context(context, channel.project_id, store.settings.limits, now)
    if scope_chapters(channel.scope) is not None and data.get("selection") is not None:
        raise LeftToTheSession
    command = posted_command(channel, text, data, now)
    rows.run(_INSERT_COMMAND, command.model_dump())
    posted = posted_payload(command)
    write_event(rows, channel.id, owner, EventKind.COMMAND, posted, command.id, now, seq=command.seq)
    for statement, params in notices:
        rows.first(statement, params)
    return command_view(command)


def _an_id(channel_id: object) -> bool:
    return isinstance(channel_id, str) and bool(channel_id)


# Built once, every column bound (the driver compiles a statement once, not per set of keys).
_INSERT_COMMAND = insert(COMMANDS).values({column.name: bindparam(column.name) for column in COMMANDS.c})

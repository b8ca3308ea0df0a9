"""What one turn of an agent's wait delivers: its held command again, or the next one it claims.

A wait's check runs on the database's driver (`wait_check`). Delivery claims a command for one
client in the same write that writes its `claimed` event; a client holds at most one unfinished
command per channel and gets it again until it finishes it. The claim is a conditional update, so
two agents never both win a command. Here too: where a joining agent's waits start, and the
caller's membership a leave or a join checks.
"""

from __future__ import annotations

from datetime import datetime

from romergo.channels.models import Caller, WaitResult
from romergo.channels.store import ChannelStore, channel_topic
from romergo.channels.tx import ChannelTx
from romergo.channels.vocabulary import FINISHED_STATES, CommandState
from romergo.channels.wait_check import NOT_MEMBER, Check, check_on_driver
from romergo.common.errors import RomergoError
from storage.channels.records import MembershipRecord, RoomRecord


class Delivery:
    def __init__(self, store: ChannelStore) -> None:
        self.store = store

    async def next_for(
        self, caller: Caller, channel_id: str, cursor: int, listening_until: datetime
    ) -> WaitResult | None:
        """The command to hand `caller` now, `channel_ended`, or None (nothing yet: park, and the
        agent counts as listening until `listening_until`)."""
        store = self.store
        check = Check(caller, channel_id, cursor, listening_until, store.now(), store.pending_tool_events)
        checked = await check_on_driver(store.db, check)
        if checked is not None and checked.status == "command":
            store.bus.publish(channel_topic(channel_id))  # its `claimed` event
        return checked

    async def join_cursor(self, tx: ChannelTx, channel_id: str, client_id: str) -> int:
        """Where a (re)joining client's waits start: after its last finished command, else just
        before the oldest command still queued for it, else at the end."""
        deliveries = tx.deliveries
        finished = await deliveries.last_finished(channel_id, client_id, FINISHED_STATES)
        if finished is not None:
            return finished
        oldest_queued = await deliveries.oldest_queued(channel_id, client_id, CommandState.QUEUED.value)
        if oldest_queued is not None:
            return oldest_queued - 1
        return await self.store.latest_seq(tx.session, channel_id)


async def channel_and_member(
    tx: ChannelTx, channel_id: object, client_id: str
) -> tuple[RoomRecord | None, MembershipRecord | None]:
    """The channel and this client's membership of it, in one statement."""
    if not isinstance(channel_id, str):
        return None, None
    return await tx.deliveries.room_and_member(channel_id, client_id)


async def membership(
    tx: ChannelTx, caller: Caller, channel_id: str, channel: RoomRecord | None = None
) -> tuple[RoomRecord, MembershipRecord]:
    """The caller's live membership of the channel, else `not_member`."""
    if channel is None:
        channel, member = await channel_and_member(tx, channel_id, caller.client_id)
    else:
        member = await tx.deliveries.member(channel_id, caller.client_id)
    if channel is None or channel.user_id != caller.user_id or member is None or member.left_at is not None:
        raise RomergoError("not_member", NOT_MEMBER)
    return channel, member

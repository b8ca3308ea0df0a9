"""What one turn of an agent's wait delivers: its held command again, or the next one it claims.

A wait's check runs on the database's driver (`wait_check`); what it leaves to the ORM runs here.
Delivery claims a command for one client in the same transaction that writes its `claimed`
event; a client holds at most one unfinished command per channel and gets it again until it
finishes it. The claim is a conditional update, so two agents never both win a command.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from romergo.channels.events import Nothing
from romergo.channels.models import Caller, WaitResult
from romergo.channels.store import ChannelStore, channel_topic, command_view
from romergo.channels.tx import ChannelTx, NeedsOrmTransaction
from romergo.channels.vocabulary import (
    FINISHED_STATES,
    CommandState,
    EventKind,
)
from romergo.channels.wait_check import (
    NOT_MEMBER,
    agent_actor,
    check_on_driver,
    claimed_payload,
    room_verdict,
)
from romergo.common.errors import RomergoError
from storage.tables import Channel, ChannelMember


class Delivery:
    def __init__(self, store: ChannelStore) -> None:
        self.store = store

    async def next_for(
        self, caller: Caller, channel_id: str, cursor: int, listening_until: datetime
    ) -> WaitResult | None:
        """The command to hand `caller` now, `channel_ended`, or None (nothing yet: park, and the
        agent counts as listening until `listening_until`)."""
        # Every wait's check runs this, a thousand idle agents' re-polls included: it runs on the
        # database's driver (`wait_check`). What that leaves to the ORM (a command
        # handed over again, an answer to a question) goes on to the transaction below.
        now = self.store.now()
        try:
            checked = await check_on_driver(self.store.db, caller, channel_id, cursor, listening_until, now)
        except NeedsOrmTransaction:
            pass
        else:
            if checked is not None and checked.status == "command":
                self.store.bus.publish(channel_topic(channel_id))  # its `claimed` event
            return checked
        # Its statements are Core (rows, not entities), so nothing goes through the ORM's loading
        # and bulk-update steps unless a command is handed over.
        async with self.store.tx() as tx:
            now = tx.now()
            deliveries = tx.deliveries
            found = (
                await deliveries.wait_room(channel_id, caller.client_id)
                if isinstance(channel_id, str)
                else None
            )
            room, ended = room_verdict(found, caller, now)
            if ended is not None:
                return ended
            result = await self._deliver(tx, channel_id, caller, cursor, room.held)
            # Listening until the wait's window ends, unless this wait ends now with a command.
            until = None if result else listening_until
            await deliveries.listening(channel_id, caller.client_id, now, until)
            return result

    async def _deliver(
        self, tx: ChannelTx, channel_id: str, caller: Caller, cursor: int, held_id: str | None
    ) -> WaitResult | None:
        """The command this client still holds (again), else the next queued one it wins."""
        if held_id is not None:
            held = await tx.deliveries.hand_again(held_id)
            await tx.command_event(
                held, EventKind.CLAIMED, agent_actor(caller), claimed_payload(caller, True), redelivered=True
            )
            return WaitResult("command", held.seq, command_view(held, redelivered=True))
        claimed = await self._claim_next(tx, channel_id, caller, cursor)
        return None if claimed is None else WaitResult("command", claimed.seq, command_view(claimed))

    async def join_cursor(self, tx: ChannelTx, channel: Channel, client_id: str) -> int:
        """Where a (re)joining client's waits start: after its last finished command, else just
        before the oldest command still queued for it, else at the end."""
        deliveries = tx.deliveries
        finished = await deliveries.last_finished(channel.id, client_id, FINISHED_STATES)
        if finished is not None:
            return finished
        oldest_queued = await deliveries.oldest_queued(channel.id, client_id)
        if oldest_queued is not None:
            return oldest_queued - 1
        return await self.store.latest_seq(tx.session, channel.id)

    async def _claim_next(self, tx: ChannelTx, channel_id: str, caller: Caller, cursor: int) -> Any | None:
        """The oldest queued command this client may take, claimed and moved to its new state by one
        conditional UPDATE, as the row it returned; None when there is none to take (the wait parks)."""
        # The condition on the state makes the claim atomic even where the database runs writers
        # in parallel. On PostgreSQL the choice skips rows another claim has locked, so a claim
        # racing another takes the next command instead of none; SQLite's writers take turns.
        row = await tx.deliveries.claim(channel_id, caller.client_id, cursor, tx.now())
        if row is None:
            return None
        # The claimed row as returned, not read again (nothing else in this transaction moves it),
        # and not made an entity: nothing here changes it further.
        claimed = claimed_payload(caller, False)
        await tx.event(channel_id, EventKind.CLAIMED, agent_actor(caller), claimed, row.id)
        if row.in_reply_to:
            await _mark_answered(tx, row.in_reply_to, caller)
        return row


async def channel_and_member(
    tx: ChannelTx, channel_id: object, client_id: str
) -> tuple[Channel | None, ChannelMember | None]:
    """The channel and this client's membership of it, in one statement."""
    if not isinstance(channel_id, str):
        return None, None
    return await tx.deliveries.room_and_member(channel_id, client_id)


async def membership(
    tx: ChannelTx, caller: Caller, channel_id: str, channel: Channel | None = None
) -> tuple[Channel, ChannelMember]:
    """The caller's live membership of the channel, else `not_member`."""
    if channel is None:
        channel, member = await channel_and_member(tx, channel_id, caller.client_id)
    else:
        member = await tx.deliveries.member(channel_id, caller.client_id)
    if channel is None or channel.user_id != caller.user_id or member is None or member.left_at is not None:
        raise RomergoError("not_member", NOT_MEMBER)
    return channel, member


async def _mark_answered(tx: ChannelTx, question_id: str, caller: Caller) -> None:
    question = await tx.deliveries.command(question_id)
    if question is not None and question.state == CommandState.AWAITING_ANSWER:
        await tx.command_event(question, EventKind.ANSWERED, agent_actor(caller), Nothing())

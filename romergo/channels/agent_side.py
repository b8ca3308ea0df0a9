"""The agent's side of a channel: join with the code, long-poll for commands, report, leave.

The caller is always the verified token's identity (user + client), never an argument. What a
wait hands over is `delivery`'s business; this module parks the wait and keeps the limits.
"""

from __future__ import annotations

import asyncio
import logging
from collections import Counter
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from functools import partial
from typing import Any

from pydantic import ValidationError

from romergo.access.ratelimit import rate_limit
from romergo.channels.delivery import Delivery, membership
from romergo.channels.events import AgentPresence, Report
from romergo.channels.ledger import MembershipRecord, RoomRecord
from romergo.channels.models import Caller, JoinResult, WaitResult
from romergo.channels.parking import Heartbeat, park
from romergo.channels.presence import Presence
from romergo.channels.reach import chapters_words
from romergo.channels.reporting import report_on_driver
from romergo.channels.room_view import conversation_in_reach, keep_to_reach
from romergo.channels.store import (
    ChannelStore,
    channel_topic,
    event_view,
    presence_topic,
)
from romergo.channels.summary import Summary
from romergo.channels.tx import ChannelTx
from romergo.channels.vocabulary import (
    MAX_REPORT_CHARS,
    REPORT_KINDS,
    EventKind,
)
from romergo.channels.wait_check import agent_actor
from romergo.channels.waiting import EVENT_NUMBER_RANGE, MAX_EVENT_NUMBER, MIN_WAIT, longest_wait
from romergo.common.errors import RomergoError, invalid
from romergo.common.ids import sha256_hex

log = logging.getLogger(__name__)
CONVERSATION_EVENTS = 50


class AgentSide:
    def __init__(self, store: ChannelStore, delivery: Delivery) -> None:
        self.store = store
        self.delivery = delivery
        # Open waits bound this process's resources, so they are counted here, per instance.
        self.open_waits: Counter[str] = Counter()
        self.presence = Presence(store)
        self.join_attempts = rate_limit(store.settings, store.db, "join", limit=10, window_seconds=60)

    async def join(self, caller: Caller, code: str) -> JoinResult:
        # Only refused attempts count: guessing codes is limited, reconnecting members are not.
        if await self.join_attempts.full(caller.client_id):
            raise RomergoError(
                "rate_limited", "Too many failed join attempts. Wait a minute before trying again."
            )
        try:
            return await self._join(caller, code)
        except RomergoError as error:
            if error.code == "code_invalid":
                await self.join_attempts.allow(caller.client_id)
            raise

    async def wait(
        self,
        caller: Caller,
        channel_id: str,
        cursor: int,
        timeout_seconds: float = 25,
        heartbeat: Heartbeat | None = None,
    ) -> WaitResult:
        """Deliver the next command for this client, parking up to `timeout_seconds` for one (longer
        with a `heartbeat`, which keeps the call alive: `waiting.longest_wait`)."""
        _check_wait(cursor, timeout_seconds, longest_wait(heartbeat is not None))
        async with self._wait_slot(caller, channel_id, timeout_seconds) as slot:

            async def check(_remaining: float) -> WaitResult | None:
                result = await self.delivery.next_for(caller, channel_id, cursor, slot.listening_until)
                if result is None:
                    slot.announce()
                return result

            result = await park(
                self.store.bus,
                channel_topic(channel_id),
                timeout_seconds,
                check,
                heartbeat=heartbeat,
                heartbeat_seconds=self.store.heartbeat_seconds,
            )
            if result is None:
                slot.timed_out = True
                return WaitResult("timeout", cursor)
            slot.delivered = result.status == "command"
            return await self._kept_to_reach(result)

    async def report(
        self,
        caller: Caller,
        command_id: str,
        kind: str,
        text: str,
        summary: Summary | dict[str, Any] | None = None,
    ) -> tuple[str, str]:
        """Returns (command_id, new state). A summary given as JSON is checked as a `Summary`."""
        summary = _summary(summary)
        if kind not in REPORT_KINDS:
            raise invalid('kind must be one of "status", "question", "reply", "error".')
        if not isinstance(text, str) or not text.strip():
            raise invalid("A report needs some text for the owner.")
        if len(text) > MAX_REPORT_CHARS:
            raise invalid(f"A report is limited to {MAX_REPORT_CHARS} characters.")
        if kind == "reply" and summary is None:
            raise RomergoError(
                "summary_required",
                "A reply needs a summary: status, description, changed_entities, checks, links.",
            )
        event_kind = EventKind(kind)
        report = Report(text=text.strip(), summary=summary)
        return await report_on_driver(self.store, caller, command_id, event_kind, report)

    async def leave(self, caller: Caller, channel_id: str) -> None:
        """Stops delivery to this client. The room still binds its calls on the project."""
        async with self.store.tx() as tx:
            channel, member = await membership(tx, caller, channel_id)
            await tx.room_ledger.member_left(channel.id, caller.client_id, tx.now())
            await tx.event(
                channel.id,
                EventKind.AGENT_LEFT,
                agent_actor(caller),
                AgentPresence(client_id=caller.client_id, agent_name=member.agent_name, reason="left"),
            )

    async def _kept_to_reach(self, result: WaitResult) -> WaitResult:
        """A delivered command's selection held against the room's reach as it is now: the room
        may have narrowed since the command was posted."""
        command = result.command
        if command is None or command.context is None or command.context.get("selection") is None:
            return result
        async with self.store.db.read() as session:
            room = await self.store.ledger.rooms(session).room(command.channel_id)
            context = (
                command.context
                if room is None
                else await keep_to_reach(self.store.room_reads(session), room, command.context)
            )
        if context is command.context:
            return result
        return replace(result, command=replace(command, context=context))

    async def _join(self, caller: Caller, code: str) -> JoinResult:
        refused = RomergoError(
            "code_invalid", "This join code is not valid. Ask the owner for the current code."
        )
        if not isinstance(code, str) or not code.strip() or len(code) > 200:
            raise refused
        async with self.store.tx() as tx:
            room = await tx.room_ledger.room_by_code(sha256_hex(code.strip()))
            if room is None or room.user_id != caller.user_id:
                raise refused
            self.store.ensure_live(room)
            await self._admit(tx, room, caller)
            await tx.event(
                room.id,
                EventKind.AGENT_JOINED,
                agent_actor(caller),
                AgentPresence(client_id=caller.client_id, agent_name=caller.client_name),
            )
            cursor = await self.delivery.join_cursor(tx, room.id, caller.client_id)
            project_title = await tx.room_ledger.project_title(room.project_id)
            recent = await tx.room_ledger.latest_events(room.id, CONVERSATION_EVENTS)
            chapters = await self.store.room_reads(tx.session).chapter_order(room.project_id)
            return JoinResult(
                channel=await self.store.channel_view(tx.session, room),
                cursor=cursor,
                project_title=project_title or "",
                conversation=await conversation_in_reach(
                    self.store.room_reads(tx.session), room, [event_view(row) for row in reversed(recent)]
                ),
                reach=chapters_words(room.scope, chapters),
            )

    async def _admit(self, tx: ChannelTx, room: RoomRecord, caller: Caller) -> None:
        """A member again, or a new one while the code still admits new agents."""
        now = tx.now()
        member = await tx.room_ledger.member(room.id, caller.client_id)
        if _removed_before_code(room, member):
            raise RomergoError(
                "code_invalid",
                "The owner removed this agent from the channel; it can join again only with a new "
                "code from the owner.",
            )
        if member is None:
            minutes = self.store.settings.join_code_minutes
            if now - room.code_issued_at > timedelta(minutes=minutes):
                raise RomergoError(
                    "code_invalid",
                    f"This join code no longer admits new agents (a code does for {minutes} minutes). "
                    "Ask the owner for a new code.",
                )
        await tx.room_ledger.admit(
            room.id, caller.client_id, caller.client_name, now, joined_before=member is not None
        )

    @asynccontextmanager
    async def _wait_slot(self, caller: Caller, channel_id: str, seconds: float) -> AsyncIterator[WaitSlot]:
        """One of the client's open waits, and the presence it keeps (`presence`: a delivery
        clears it in its own transaction, a timed-out wait leaves it to run out by itself, any
        other end clears it at once)."""
        client_id = caller.client_id
        if self.open_waits[client_id] >= self.store.settings.max_waits_per_client:
            raise RomergoError(
                "rate_limited", "Too many waits are open for this agent. Finish one before starting another."
            )
        self.open_waits[client_id] += 1
        self.presence.wait_began(channel_id, client_id)
        listening_until = self.presence.listening_until(seconds)
        slot = WaitSlot(partial(self.store.bus.publish, presence_topic(channel_id)), listening_until)
        try:
            yield slot
        finally:
            self.open_waits[client_id] -= 1
            if self.open_waits[client_id] <= 0:
                del self.open_waits[client_id]
            if slot.delivered:
                if slot.announced:
                    slot.publish_presence()
            elif slot.timed_out:
                self.presence.timed_out(channel_id, client_id, slot.listening_until)
            else:
                await asyncio.shield(self.presence.stopped(channel_id, client_id))


@dataclass
class WaitSlot:
    publish_presence: Callable[[], None]
    listening_until: datetime
    """What the wait's checks write as the end of the agent's listening (`presence`)."""
    announced: bool = False
    """The panel was told (once) that the agent listens."""
    delivered: bool = False
    """The wait ends with a command, and its delivery cleared the presence."""
    timed_out: bool = False
    """The wait ran out with nothing to hand over."""

    def announce(self) -> None:
        if not self.announced:
            self.publish_presence()
            self.announced = True


def _removed_before_code(room: RoomRecord, member: MembershipRecord | None) -> bool:
    """The owner removed this agent after the current code was made: that code no longer admits it."""
    if member is None or member.left_reason != "removed" or member.left_at is None:
        return False
    return room.code_issued_at <= member.left_at


def _summary(summary: Summary | dict[str, Any] | None) -> Summary | None:
    if summary is None or isinstance(summary, Summary):
        return summary
    try:
        return Summary.model_validate(summary)
    except ValidationError as error:
        problems = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in error.errors())
        raise invalid(f"The summary is not valid: {problems}.") from None


def _check_wait(cursor: object, timeout_seconds: object, longest: int) -> None:
    if isinstance(cursor, bool) or not isinstance(cursor, int) or not 0 <= cursor <= MAX_EVENT_NUMBER:
        raise invalid(f"cursor must be {EVENT_NUMBER_RANGE} (the cursor of your last result).")
    if isinstance(timeout_seconds, bool) or not isinstance(timeout_seconds, int | float):
        raise invalid(f"timeout_seconds must be a number from {MIN_WAIT} to {longest}.")
    if not MIN_WAIT <= timeout_seconds <= longest:
        raise invalid(f"timeout_seconds must be from {MIN_WAIT} to {longest}.")

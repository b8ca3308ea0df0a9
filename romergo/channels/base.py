"""Shared machinery of the channel service: transactions that number events, views, loaders.

Every event gets the next number of its channel's one sequence, allocated by a single
`UPDATE … RETURNING` inside the write transaction that also writes the event (DESIGN.md §6), so
the numbers are gap-free and ordered even with several writers. Waiters are woken after the
commit, on the channel's own topic only.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, Literal

from sqlalchemy import update
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from romergo.bus import EventBus
from romergo.channels.models import (
    FINISHED_STATES,
    HELD_STATES,
    ChannelView,
    CommandView,
    EventView,
    MemberView,
)
from romergo.clock import utcnow
from romergo.config import Settings
from romergo.errors import RomergoError
from romergo.ratelimit import RateLimiter
from storage import Database
from storage.tables import Channel, ChannelEvent, ChannelMember, Command

ActorType = Literal["user", "agent", "system"]
SYSTEM = ("system", "romergo", "Romergo")


def channel_topic(channel_id: str) -> str:
    return f"channel:{channel_id}"


def presence_topic(channel_id: str) -> str:
    """Wake-ups for presence only (an agent started or stopped listening): no event is written,
    and waiters on the channel topic are not disturbed."""
    return f"presence:{channel_id}"


@dataclass(frozen=True)
class EventActor:
    type: ActorType
    id: str
    name: str


SYSTEM_ACTOR = EventActor("system", "romergo", "Romergo")


@dataclass
class ChannelTx:
    session: AsyncSession
    touched: set[str] = field(default_factory=set)

    async def event(
        self,
        channel_id: str,
        kind: str,
        actor: EventActor,
        data: dict[str, Any] | None = None,
        command_id: str | None = None,
    ) -> int:
        seq: int = (
            await self.session.exec(
                update(Channel)  # type: ignore[call-overload]
                .where(col(Channel.id) == channel_id)
                .values(last_seq=Channel.last_seq + 1)
                .returning(Channel.last_seq)
            )
        ).scalar_one()
        self.session.add(
            ChannelEvent(
                channel_id=channel_id,
                seq=seq,
                kind=kind,
                command_id=command_id,
                actor_type=actor.type,
                actor_id=actor.id,
                actor_name=actor.name,
                data=data or {},
                at=utcnow(),
            )
        )
        self.touched.add(channel_id)
        return seq


class ChannelBase:
    heartbeat_seconds: float = 10.0
    """How often a parked wait calls its heartbeat (MCP progress keeps clients from timing out)."""

    def __init__(self, db: Database, bus: EventBus, settings: Settings) -> None:
        self.db = db
        self.bus = bus
        self.settings = settings
        # Per-client limits (SECURITY.md): in-process counters, bounds for this process's resources.
        self.open_waits: Counter[str] = Counter()
        self.join_attempts = RateLimiter(limit=10, window_seconds=60)
        self.tool_calls = RateLimiter(limit=settings.rate_limit_per_minute, window_seconds=60)

    @asynccontextmanager
    async def _tx(self) -> AsyncIterator[ChannelTx]:
        async with self.db.write() as session:
            tx = ChannelTx(session)
            yield tx
        for channel_id in tx.touched:
            self.bus.publish(channel_topic(channel_id))

    async def _owned_channel(self, session: AsyncSession, user_id: str, channel_id: object) -> Channel:
        channel = (
            await session.get(Channel, channel_id) if isinstance(channel_id, str) and channel_id else None
        )
        if channel is None or channel.user_id != user_id:
            raise RomergoError("not_found", f'Channel "{channel_id}" does not exist.')
        return channel

    async def _owned_command(
        self, session: AsyncSession, user_id: str, command_id: object
    ) -> tuple[Command, Channel]:
        command = (
            await session.get(Command, command_id) if isinstance(command_id, str) and command_id else None
        )
        channel = await session.get(Channel, command.channel_id) if command else None
        if command is None or channel is None or channel.user_id != user_id:
            raise RomergoError("not_found", f'Command "{command_id}" does not exist.')
        return command, channel

    async def _channel_view(
        self, session: AsyncSession, channel: Channel, code: str | None = None
    ) -> ChannelView:
        now = utcnow()
        members = (
            await session.exec(
                select(ChannelMember)
                .where(ChannelMember.channel_id == channel.id)
                .order_by(col(ChannelMember.joined_at))
            )
        ).all()
        held = (
            await session.exec(
                select(Command).where(Command.channel_id == channel.id, col(Command.state).in_(HELD_STATES))
            )
        ).all()
        active = {command.claimed_by: command.id for command in held}
        return ChannelView(
            channel_id=channel.id,
            project_id=channel.project_id,
            permissions=dict(channel.permissions),
            confirmation_mode=channel.confirmation_mode,
            state=channel_state(channel, now),
            expires_at=channel.expires_at,
            cursor=await self._latest_seq(session, channel.id),
            members=[
                MemberView(
                    client_id=m.client_id,
                    agent_name=m.agent_name,
                    joined_at=m.joined_at,
                    left_at=m.left_at,
                    last_seen_at=m.last_seen_at,
                    polling=m.polling_until is not None and m.polling_until > now,
                    active_command_id=active.get(m.client_id),
                )
                for m in members
            ],
            code=code,
        )

    async def _latest_seq(self, session: AsyncSession, channel_id: str) -> int:
        latest = (await session.exec(select(Channel.last_seq).where(Channel.id == channel_id))).one()
        return int(latest)

    async def _events_after(
        self, session: AsyncSession, channel_id: str, after: int, limit: int
    ) -> list[EventView]:
        rows = (
            await session.exec(
                select(ChannelEvent)
                .where(ChannelEvent.channel_id == channel_id, ChannelEvent.seq > after)
                .order_by(col(ChannelEvent.seq))
                .limit(limit)
            )
        ).all()
        return [event_view(row) for row in rows]


def channel_state(channel: Channel, now: datetime) -> Literal["live", "ended", "expired"]:
    if channel.ended_at is not None:
        return "expired" if channel.end_reason == "expired" else "ended"
    if channel.expires_at <= now:
        return "expired"
    return "live"


def ensure_live(channel: Channel, now: datetime | None = None) -> None:
    if channel_state(channel, now or utcnow()) != "live":
        raise RomergoError("channel_ended", "This channel has ended. Ask the owner for a new one.")


def ensure_holder(command: Command, client_id: str) -> None:
    """The agent may act on this command: it holds it, and it is neither cancelled nor finished."""
    if command.state == "cancelled":
        raise RomergoError("command_cancelled", "The owner cancelled this command. Stop working on it.")
    if command.claimed_by != client_id:
        raise RomergoError("not_claimed_by_you", "This command was delivered to another agent.")
    if command.state in FINISHED_STATES:
        raise RomergoError(
            "command_finished", f"This command is already {command.state}; wait for the next one."
        )


def command_view(command: Command, *, redelivered: bool = False) -> CommandView:
    return CommandView(
        command_id=command.id,
        channel_id=command.channel_id,
        seq=command.seq,
        text=command.text,
        state=command.state,
        claimed_by=command.claimed_by,
        in_reply_to=command.in_reply_to,
        retry_of=command.retry_of,
        created_at=command.created_at,
        context=command.context,
        redelivered=redelivered,
    )


def event_view(row: ChannelEvent) -> EventView:
    return EventView(
        seq=row.seq,
        kind=row.kind,
        command_id=row.command_id,
        at=row.at,
        actor_type=row.actor_type,
        actor_id=row.actor_id,
        actor_name=row.actor_name,
        data=dict(row.data),
    )


def grace(seconds: float) -> timedelta:
    return timedelta(seconds=seconds)

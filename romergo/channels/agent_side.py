"""The agent's side of a channel: join with the code, long-poll for commands, report, leave.

The caller is always the verified token's identity (user + client), never an argument. Delivery
claims a command for one client in the same transaction that writes its `claimed` event; a client
holds at most one unfinished command per channel and gets it again until it finishes it.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from datetime import timedelta
from typing import Any

from sqlalchemy import update
from sqlmodel import col, or_, select

from romergo.channels.base import (
    ChannelBase,
    ChannelTx,
    EventActor,
    channel_state,
    channel_topic,
    command_view,
    ensure_holder,
    ensure_live,
    event_view,
    presence_topic,
)
from romergo.channels.changes import command_changes, summary_mismatch
from romergo.channels.models import (
    FINISHED_STATES,
    HELD_STATES,
    MAX_REPORT_CHARS,
    REPORTABLE_STATES,
    Caller,
    JoinResult,
    WaitResult,
)
from romergo.clock import utcnow
from romergo.errors import RomergoError, invalid
from romergo.ids import sha256_hex
from storage.tables import Channel, ChannelEvent, ChannelMember, Command, Project

log = logging.getLogger(__name__)
Heartbeat = Callable[[], Awaitable[None]]
MIN_WAIT, MAX_WAIT = 1, 50
CONVERSATION_EVENTS = 50
REPORT_STATES = {"status": "working", "reply": "done", "error": "failed", "question": "awaiting_answer"}


class AgentOps(ChannelBase):
    async def join(self, caller: Caller, code: str) -> JoinResult:
        # Only refused attempts count: guessing codes is limited, reconnecting members are not.
        if self.join_attempts.full(caller.client_id):
            raise RomergoError(
                "rate_limited", "Too many failed join attempts. Wait a minute before trying again."
            )
        try:
            return await self._join(caller, code)
        except RomergoError as error:
            if error.code == "code_invalid":
                self.join_attempts.allow(caller.client_id)
            raise

    async def _join(self, caller: Caller, code: str) -> JoinResult:
        refused = RomergoError(
            "code_invalid", "This join code is not valid. Ask the owner for the current code."
        )
        if not isinstance(code, str) or not code.strip() or len(code) > 200:
            raise refused
        now = utcnow()
        async with self._tx() as tx:
            channel = (
                await tx.session.exec(select(Channel).where(Channel.code_hash == sha256_hex(code.strip())))
            ).first()
            if channel is None or channel.user_id != caller.user_id:
                raise refused
            ensure_live(channel, now)
            member = await tx.session.get(ChannelMember, (channel.id, caller.client_id))
            if member is None:
                if now - channel.code_issued_at > timedelta(minutes=self.settings.join_code_minutes):
                    raise RomergoError(
                        "code_invalid",
                        "This join code no longer admits new agents (a code does for "
                        f"{self.settings.join_code_minutes} minutes). Ask the owner for a new code.",
                    )
                member = ChannelMember(
                    channel_id=channel.id,
                    client_id=caller.client_id,
                    agent_name=caller.client_name,
                    joined_at=now,
                    last_seen_at=now,
                )
            member.left_at = None
            member.last_seen_at = now
            member.agent_name = caller.client_name
            tx.session.add(member)
            await tx.session.flush()
            await tx.event(
                channel.id,
                "agent_joined",
                _agent(caller),
                {"client_id": caller.client_id, "agent_name": caller.client_name},
            )
            cursor = await self._join_cursor(tx, channel, caller.client_id)
            project = await tx.session.get(Project, channel.project_id)
            recent = (
                await tx.session.exec(
                    select(ChannelEvent)
                    .where(ChannelEvent.channel_id == channel.id)
                    .order_by(col(ChannelEvent.seq).desc())
                    .limit(CONVERSATION_EVENTS)
                )
            ).all()
            return JoinResult(
                channel=await self._channel_view(tx.session, channel),
                cursor=cursor,
                project_title=project.title if project else "",
                conversation=[event_view(row) for row in reversed(recent)],
            )

    async def wait(
        self,
        caller: Caller,
        channel_id: str,
        cursor: int,
        timeout_seconds: float = 25,
        heartbeat: Heartbeat | None = None,
    ) -> WaitResult:
        """Deliver the next command for this client, parking up to `timeout_seconds` for one."""
        if isinstance(cursor, bool) or not isinstance(cursor, int) or cursor < 0:
            raise invalid("cursor must be a whole number of 0 or more (the cursor of your last result).")
        if isinstance(timeout_seconds, bool) or not isinstance(timeout_seconds, int | float):
            raise invalid(f"timeout_seconds must be a number from {MIN_WAIT} to {MAX_WAIT}.")
        if not MIN_WAIT <= timeout_seconds <= MAX_WAIT:
            raise invalid(f"timeout_seconds must be from {MIN_WAIT} to {MAX_WAIT}.")
        if self.open_waits[caller.client_id] >= self.settings.max_waits_per_client:
            raise RomergoError(
                "rate_limited", "Too many waits are open for this agent. Finish one before starting another."
            )
        self.open_waits[caller.client_id] += 1
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout_seconds
        next_beat = loop.time() + self.heartbeat_seconds
        announced = False
        try:
            while True:
                result = await self._deliver(caller, channel_id, cursor, deadline - loop.time())
                if result is not None:
                    return result
                if not announced:
                    self.bus.publish(presence_topic(channel_id))
                    announced = True
                remaining = deadline - loop.time()
                if remaining <= 0:
                    return WaitResult("timeout", cursor)
                await self.bus.wait(
                    channel_topic(channel_id), min(remaining, max(0.0, next_beat - loop.time()))
                )
                if heartbeat is not None and loop.time() >= next_beat:
                    await heartbeat()
                    next_beat = loop.time() + self.heartbeat_seconds
        finally:
            self.open_waits[caller.client_id] -= 1
            if self.open_waits[caller.client_id] <= 0:
                del self.open_waits[caller.client_id]
            # Runs even when the client went away mid-wait, so presence does not lie.
            await asyncio.shield(self._stop_polling(channel_id, caller.client_id))
            if announced:
                self.bus.publish(presence_topic(channel_id))

    async def report(
        self, caller: Caller, command_id: str, kind: str, text: str, summary: dict[str, Any] | None = None
    ) -> tuple[str, str]:
        """Returns (command_id, new state)."""
        if kind not in REPORT_STATES:
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
        async with self._tx() as tx:
            command, channel = await self._command_for_agent(tx, caller, command_id)
            if command.state not in REPORTABLE_STATES:
                raise RomergoError("command_finished", f"This command is already {command.state}.")
            now = utcnow()
            command.state = REPORT_STATES[kind]
            command.last_activity_at = now
            if kind in ("reply", "error"):
                command.finished_at = now
            tx.session.add(command)
            await tx.session.flush()
            actor = _agent(caller)
            await tx.event(channel.id, kind, actor, {"text": text.strip(), "summary": summary}, command.id)
            if kind in ("reply", "error"):
                await self._record_changes(tx, channel.id, command.id, summary if kind == "reply" else None)
            return command.id, command.state

    async def leave(self, caller: Caller, channel_id: str) -> None:
        """Stops delivery to this client. The room still binds its calls on the project."""
        async with self._tx() as tx:
            channel, member = await self._membership(tx, caller, channel_id)
            member.left_at = utcnow()
            tx.session.add(member)
            await tx.session.flush()
            await tx.event(
                channel.id,
                "agent_left",
                _agent(caller),
                {"client_id": caller.client_id, "agent_name": member.agent_name},
            )

    async def _deliver(
        self, caller: Caller, channel_id: str, cursor: int, remaining: float
    ) -> WaitResult | None:
        now = utcnow()
        async with self._tx() as tx:
            channel = await tx.session.get(Channel, channel_id) if isinstance(channel_id, str) else None
            if channel is None or channel.user_id != caller.user_id:
                raise RomergoError(
                    "not_member", "You are not a member of this channel. Join it with its code first."
                )
            if channel_state(channel, now) != "live":
                return WaitResult("channel_ended", await self._latest_seq(tx.session, channel.id))
            _, member = await self._membership(tx, caller, channel_id, channel)
            member.last_seen_at = now
            member.polling_until = now + timedelta(seconds=max(remaining, 0) + 5)
            tx.session.add(member)
            held = (
                await tx.session.exec(
                    select(Command)
                    .where(
                        Command.channel_id == channel.id,
                        Command.claimed_by == caller.client_id,
                        col(Command.state).in_(HELD_STATES),
                    )
                    .order_by(col(Command.seq))
                    .limit(1)
                )
            ).first()
            if held is not None:
                held.deliveries += 1
                held.last_activity_at = now
                tx.session.add(held)
                await tx.session.flush()
                await tx.event(channel.id, "claimed", _agent(caller), _claim_data(caller, True), held.id)
                return WaitResult("command", held.seq, command_view(held, redelivered=True))
            claimed = await self._claim_next(tx, channel, caller, cursor)
            if claimed is None:
                return None
            return WaitResult("command", claimed.seq, command_view(claimed))

    async def _claim_next(
        self, tx: ChannelTx, channel: Channel, caller: Caller, cursor: int
    ) -> Command | None:
        candidates = (
            await tx.session.exec(
                select(Command.id)
                .where(
                    Command.channel_id == channel.id,
                    Command.state == "queued",
                    Command.seq > cursor,
                    or_(col(Command.reserved_for).is_(None), Command.reserved_for == caller.client_id),
                )
                .order_by(col(Command.seq))
                .limit(5)
            )
        ).all()
        now = utcnow()
        for candidate in candidates:
            # The state condition makes the claim atomic even where the database runs writers in parallel.
            won = (
                await tx.session.exec(
                    update(Command)  # type: ignore[call-overload]
                    .where(col(Command.id) == candidate, col(Command.state) == "queued")
                    .values(
                        state="claimed",
                        claimed_by=caller.client_id,
                        claimed_at=now,
                        last_activity_at=now,
                        deliveries=1,
                    )
                    .returning(Command.id)
                )
            ).scalar_one_or_none()
            if won is None:
                continue
            command = await tx.session.get(Command, won, populate_existing=True)
            assert command is not None
            await tx.event(channel.id, "claimed", _agent(caller), _claim_data(caller, False), command.id)
            if command.in_reply_to:
                await self._mark_answered(tx, command.in_reply_to, caller)
            return command
        return None

    async def _mark_answered(self, tx: ChannelTx, question_id: str, caller: Caller) -> None:
        question = await tx.session.get(Command, question_id)
        if question is not None and question.state == "awaiting_answer":
            question.state = "answered"
            question.finished_at = utcnow()
            tx.session.add(question)
            await tx.session.flush()
            await tx.event(question.channel_id, "answered", _agent(caller), {}, question.id)

    async def _record_changes(
        self, tx: ChannelTx, channel_id: str, command_id: str, summary: dict[str, Any] | None
    ) -> None:
        changes = await command_changes(tx.session, command_id)
        compact = [
            {k: c[k] for k in ("entity_type", "entity_id", "title", "action", "tool", "at")} for c in changes
        ]
        await tx.event(channel_id, "changes_recorded", _system(), {"changes": compact}, command_id)
        if summary is not None:
            mismatch = await summary_mismatch(tx.session, changes, summary)
            if mismatch is not None:
                await tx.event(channel_id, "summary_mismatch", _system(), mismatch, command_id)

    async def _command_for_agent(
        self, tx: ChannelTx, caller: Caller, command_id: str
    ) -> tuple[Command, Channel]:
        command, channel = await self._owned_command(tx.session, caller.user_id, command_id)
        await self._membership(tx, caller, channel.id, channel)
        ensure_holder(command, caller.client_id)
        return command, channel

    async def _membership(
        self, tx: ChannelTx, caller: Caller, channel_id: str, channel: Channel | None = None
    ) -> tuple[Channel, ChannelMember]:
        channel = channel or (
            await tx.session.get(Channel, channel_id) if isinstance(channel_id, str) else None
        )
        member = await tx.session.get(ChannelMember, (channel_id, caller.client_id)) if channel else None
        if (
            channel is None
            or channel.user_id != caller.user_id
            or member is None
            or member.left_at is not None
        ):
            raise RomergoError(
                "not_member", "You are not a member of this channel. Join it with its code first."
            )
        return channel, member

    async def _join_cursor(self, tx: ChannelTx, channel: Channel, client_id: str) -> int:
        finished = (
            await tx.session.exec(
                select(Command.seq)
                .where(
                    Command.channel_id == channel.id,
                    Command.claimed_by == client_id,
                    col(Command.state).in_(FINISHED_STATES),
                )
                .order_by(col(Command.seq).desc())
                .limit(1)
            )
        ).first()
        if finished is not None:
            return int(finished)
        oldest_queued = (
            await tx.session.exec(
                select(Command.seq)
                .where(
                    Command.channel_id == channel.id,
                    Command.state == "queued",
                    or_(col(Command.reserved_for).is_(None), Command.reserved_for == client_id),
                )
                .order_by(col(Command.seq))
                .limit(1)
            )
        ).first()
        if oldest_queued is not None:
            return int(oldest_queued) - 1
        return await self._latest_seq(tx.session, channel.id)

    async def _stop_polling(self, channel_id: str, client_id: str) -> None:
        try:
            async with self.db.write() as session:
                await session.exec(
                    update(ChannelMember)
                    .where(
                        col(ChannelMember.channel_id) == channel_id, col(ChannelMember.client_id) == client_id
                    )
                    .values(polling_until=None, last_seen_at=utcnow())
                )
        except Exception:
            # Presence is best effort: `polling_until` runs out by itself a few seconds later.
            log.warning("could not clear polling presence of %s", client_id, exc_info=True)


def _agent(caller: Caller) -> EventActor:
    return EventActor("agent", caller.client_id, caller.client_name)


def _system() -> EventActor:
    return EventActor("system", "romergo", "Romergo")


def _claim_data(caller: Caller, redelivered: bool) -> dict[str, Any]:
    return {"client_id": caller.client_id, "agent_name": caller.client_name, "redelivered": redelivered}

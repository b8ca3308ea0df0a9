"""The owner's side of a channel: open it, tune it, send commands, cancel, retry, end.

Only the owner reaches these (from the editor, or with a `romergo:control` token); no agent token
and no MCP tool can (SECURITY.md). Every step is an event in the channel's history.
"""

from __future__ import annotations

import asyncio
from datetime import timedelta
from typing import Any

from sqlmodel import col, select

from romergo.channels.base import (
    SYSTEM_ACTOR,
    ChannelBase,
    ChannelTx,
    EventActor,
    channel_topic,
    command_view,
    ensure_live,
)
from romergo.channels.confirmations import cancel_confirmations
from romergo.channels.context import clean_context
from romergo.channels.models import (
    CONFIRMATION_MODES,
    DEFAULT_PERMISSIONS,
    MAX_COMMAND_CHARS,
    OPEN_STATES,
    PERMISSIONS,
    RETRYABLE_STATES,
    ChannelView,
    CommandView,
    EventView,
)
from romergo.clock import utcnow
from romergo.errors import RomergoError, invalid
from romergo.ids import new_id, new_secret, sha256_hex
from storage.tables import Channel, Command, Project, User

MAX_EVENTS_PAGE = 500
MAX_EVENTS_WAIT = 50


class OwnerOps(ChannelBase):
    async def create_channel(
        self,
        user_id: str,
        project_id: str,
        permissions: dict[str, Any] | None = None,
        confirmation_mode: str | None = None,
    ) -> ChannelView:
        settings = _permissions(DEFAULT_PERMISSIONS, permissions)
        mode = _mode(confirmation_mode or "none")
        code = _new_code()
        now = utcnow()
        async with self._tx() as tx:
            project = await tx.session.get(Project, project_id) if isinstance(project_id, str) else None
            if project is None or project.owner_id != user_id or project.deleted_at is not None:
                raise RomergoError("not_found", f'Project "{project_id}" does not exist.')
            channel = Channel(
                id=new_id("chn"),
                user_id=user_id,
                project_id=project.id,
                code_hash=sha256_hex(code),
                code_issued_at=now,
                permissions=settings,
                confirmation_mode=mode,
                created_at=now,
                expires_at=now + timedelta(hours=self.settings.channel_ttl_hours),
            )
            tx.session.add(channel)
            await tx.session.flush()
            await tx.event(
                channel.id,
                "settings_changed",
                await self._owner(tx, user_id),
                {"permissions": settings, "confirmation_mode": mode},
            )
            return await self._channel_view(tx.session, channel, code)

    async def get_channel(self, user_id: str, channel_id: str) -> ChannelView:
        async with self.db.read() as session:
            return await self._channel_view(session, await self._owned_channel(session, user_id, channel_id))

    async def channels_of_project(self, user_id: str, project_id: str) -> list[ChannelView]:
        async with self.db.read() as session:
            rows = (
                await session.exec(
                    select(Channel)
                    .where(Channel.user_id == user_id, Channel.project_id == project_id)
                    .order_by(col(Channel.created_at).desc())
                )
            ).all()
            return [await self._channel_view(session, row) for row in rows]

    async def update_settings(
        self,
        user_id: str,
        channel_id: str,
        permissions: dict[str, Any] | None = None,
        confirmation_mode: str | None = None,
    ) -> ChannelView:
        """Takes effect on the very next tool call: the guard reads the room from the database."""
        async with self._tx() as tx:
            channel = await self._owned_channel(tx.session, user_id, channel_id)
            ensure_live(channel)
            merged = _permissions(channel.permissions, permissions)
            mode = channel.confirmation_mode if confirmation_mode is None else _mode(confirmation_mode)
            if merged != channel.permissions or mode != channel.confirmation_mode:
                channel.permissions = merged
                channel.confirmation_mode = mode
                tx.session.add(channel)
                await tx.session.flush()
                await tx.event(
                    channel.id,
                    "settings_changed",
                    await self._owner(tx, user_id),
                    {"permissions": merged, "confirmation_mode": mode},
                )
            return await self._channel_view(tx.session, channel)

    async def rotate_code(self, user_id: str, channel_id: str) -> str:
        """A new code; the old one stops working for everyone, members included."""
        code = _new_code()
        async with self._tx() as tx:
            channel = await self._owned_channel(tx.session, user_id, channel_id)
            ensure_live(channel)
            channel.code_hash = sha256_hex(code)
            channel.code_issued_at = utcnow()
            tx.session.add(channel)
            await tx.session.flush()
            await tx.event(channel.id, "code_rotated", await self._owner(tx, user_id))
        return code

    async def end_channel(self, user_id: str, channel_id: str) -> ChannelView:
        async with self._tx() as tx:
            channel = await self._owned_channel(tx.session, user_id, channel_id)
            if channel.ended_at is None:
                await finish_channel(tx, channel, "ended", await self._owner(tx, user_id))
            return await self._channel_view(tx.session, channel)

    async def post_command(
        self,
        user_id: str,
        channel_id: str,
        text: str,
        context: object = None,
        in_reply_to: str | None = None,
    ) -> CommandView:
        clean = _command_text(text)
        async with self._tx() as tx:
            channel = await self._owned_channel(tx.session, user_id, channel_id)
            ensure_live(channel)
            data = clean_context(context, channel.project_id, self.settings.limits)
            reserved_for = None
            if in_reply_to is not None:
                question = (
                    await tx.session.get(Command, in_reply_to) if isinstance(in_reply_to, str) else None
                )
                if question is None or question.channel_id != channel.id:
                    raise RomergoError(
                        "not_found", f'Command "{in_reply_to}" does not exist in this channel.'
                    )
                if question.state != "awaiting_answer":
                    raise RomergoError("conflict", "That command is not waiting for an answer.")
                reserved_for = question.claimed_by
            command = Command(
                id=new_id("cmd"),
                channel_id=channel.id,
                seq=0,
                text=clean,
                context=data,
                state="queued",
                reserved_for=reserved_for,
                in_reply_to=in_reply_to,
                created_at=utcnow(),
            )
            return await self._queue(tx, channel, command, await self._owner(tx, user_id))

    async def get_command(self, user_id: str, command_id: str) -> CommandView:
        async with self.db.read() as session:
            command, _ = await self._owned_command(session, user_id, command_id)
            return command_view(command)

    async def cancel_command(self, user_id: str, command_id: str) -> CommandView:
        async with self._tx() as tx:
            command, _ = await self._owned_command(tx.session, user_id, command_id)
            if command.state not in OPEN_STATES:
                raise RomergoError("conflict", f"The command is already {command.state}.")
            await cancel(tx, command, await self._owner(tx, user_id))
            return command_view(command)

    async def retry_command(self, user_id: str, command_id: str) -> CommandView:
        async with self._tx() as tx:
            old, channel = await self._owned_command(tx.session, user_id, command_id)
            ensure_live(channel)
            if old.state not in RETRYABLE_STATES:
                raise RomergoError(
                    "conflict",
                    f"Only a stalled, failed or cancelled command can be retried; this one is {old.state}.",
                )
            owner = await self._owner(tx, user_id)
            if old.state == "stalled":
                await cancel(tx, old, owner)
            command = Command(
                id=new_id("cmd"),
                channel_id=channel.id,
                seq=0,
                text=old.text,
                context=old.context,
                state="queued",
                retry_of=old.id,
                created_at=utcnow(),
            )
            return await self._queue(tx, channel, command, owner)

    async def events(
        self, user_id: str, channel_id: str, after: int = 0, wait: float = 0
    ) -> tuple[list[EventView], int]:
        """Events with `seq > after`; with `wait`, park until there are some (at most 50 s)."""
        if isinstance(after, bool) or not isinstance(after, int) or after < 0:
            raise invalid("after must be a whole number of 0 or more.")
        if isinstance(wait, bool) or not isinstance(wait, int | float) or not 0 <= wait <= MAX_EVENTS_WAIT:
            raise invalid(f"wait must be between 0 and {MAX_EVENTS_WAIT} seconds.")
        deadline = asyncio.get_running_loop().time() + wait
        while True:
            async with self.db.read() as session:
                channel = await self._owned_channel(session, user_id, channel_id)
                events = await self._events_after(session, channel.id, after, MAX_EVENTS_PAGE)
                latest = await self._latest_seq(session, channel.id)
            remaining = deadline - asyncio.get_running_loop().time()
            if events or remaining <= 0:
                return events, events[-1].seq if events else min(after, latest)
            await self.bus.wait(channel_topic(channel_id), remaining)

    async def _queue(
        self, tx: ChannelTx, channel: Channel, command: Command, owner: EventActor
    ) -> CommandView:
        tx.session.add(command)
        await tx.session.flush()
        command.seq = await tx.event(
            channel.id,
            "command",
            owner,
            {
                "text": command.text,
                "context": command.context,
                "in_reply_to": command.in_reply_to,
                "retry_of": command.retry_of,
            },
            command.id,
        )
        tx.session.add(command)
        await tx.session.flush()
        return command_view(command)

    async def _owner(self, tx: ChannelTx, user_id: str) -> EventActor:
        user = await tx.session.get(User, user_id)
        return EventActor("user", user_id, user.username if user else user_id)


async def cancel(tx: ChannelTx, command: Command, actor: EventActor) -> None:
    """Cancels the command and rejects its open confirmations: the waiting call stops at once."""
    await cancel_confirmations(tx, command.id, actor)
    command.state = "cancelled"
    command.finished_at = utcnow()
    tx.session.add(command)
    await tx.session.flush()
    await tx.event(command.channel_id, "cancelled", actor, {}, command.id)


async def finish_channel(tx: ChannelTx, channel: Channel, reason: str, actor: EventActor) -> None:
    """End or expire: open commands are cancelled, then the end itself is the last event."""
    channel.ended_at = utcnow()
    channel.end_reason = reason
    tx.session.add(channel)
    await tx.session.flush()
    open_commands = (
        await tx.session.exec(
            select(Command)
            .where(Command.channel_id == channel.id, col(Command.state).in_(OPEN_STATES))
            .order_by(col(Command.seq))
        )
    ).all()
    for command in open_commands:
        await cancel(tx, command, actor if reason == "ended" else SYSTEM_ACTOR)
    await tx.event(
        channel.id, "channel_ended", actor if reason == "ended" else SYSTEM_ACTOR, {"reason": reason}
    )


def _new_code() -> str:
    return "rmg-" + new_secret(18)


def _permissions(current: dict[str, bool], changes: dict[str, Any] | None) -> dict[str, bool]:
    merged: dict[str, bool] = {
        name: bool(current.get(name, DEFAULT_PERMISSIONS[name])) for name in PERMISSIONS
    }
    if changes is None:
        return merged
    if not isinstance(changes, dict):
        raise invalid("permissions must be an object of true/false values.")
    for name, value in changes.items():
        if name not in PERMISSIONS:
            raise invalid(f'Unknown permission "{name}"; use {", ".join(PERMISSIONS)}.')
        if not isinstance(value, bool):
            raise invalid(f"Permission {name} must be true or false.")
        merged[name] = value
    return merged


def _mode(value: object) -> str:
    if value not in CONFIRMATION_MODES:
        raise invalid(f"confirmation_mode must be one of {', '.join(CONFIRMATION_MODES)}.")
    return str(value)


def _command_text(text: object) -> str:
    if not isinstance(text, str) or not text.strip():
        raise invalid("A command needs some text.")
    if len(text) > MAX_COMMAND_CHARS:
        raise invalid(f"A command is limited to {MAX_COMMAND_CHARS} characters.")
    return text.strip()

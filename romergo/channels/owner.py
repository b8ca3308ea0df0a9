"""The owner's side of a channel: open it, tune it, send commands, cancel, retry, end.

Only the owner reaches these (from the editor, or with a `romergo:control` token); no agent token
and no MCP tool can (SECURITY.md). Every step is an event in the channel's history. A room is read
as a record; each change to it (opened, settings, code, end) is one write of `tx.room_changes`,
which hands back the room as it is now.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import timedelta
from typing import Any

from romergo.channels.actors import SYSTEM_ACTOR, EventActor
from romergo.channels.confirmations import cancel_confirmations
from romergo.channels.events import ChannelEnded, CommandUndone, SettingsChanged
from romergo.channels.ledger import CommandRecord, RoomRecord
from romergo.channels.models import ChannelView, CommandView, EventView
from romergo.channels.parking import park
from romergo.channels.posting import new_command, post_on_driver, posted_payload
from romergo.channels.reach import clean_scope
from romergo.channels.revocation import end_memberships, remove_member
from romergo.channels.settings_tag import SettingsChangedError, matches, settings_tag
from romergo.channels.store import ChannelStore, channel_topic, command_view, room_not_found
from romergo.channels.tx import ChannelTx
from romergo.channels.vocabulary import (
    DEFAULT_PERMISSIONS,
    MAX_COMMAND_CHARS,
    OPEN_STATES,
    PERMISSIONS,
    RETRYABLE_STATES,
    CommandState,
    ConfirmationMode,
    EventKind,
)
from romergo.common.errors import RomergoError, invalid, project_not_found
from romergo.common.ids import new_id, new_secret, sha256_hex

MAX_EVENTS_PAGE = 500
MAX_EVENTS_WAIT = 50
KEEP: Any = object()
"""`update_settings(scope=KEEP)`: leave the room's reach as it is (None means the whole project)."""


class OwnerSide:
    """What only the owner does with a channel."""

    def __init__(self, store: ChannelStore) -> None:
        self.store = store

    async def create_channel(
        self,
        user_id: str,
        project_id: str,
        permissions: dict[str, Any] | None = None,
        confirmation_mode: str | None = None,
        scope: object = None,
    ) -> ChannelView:
        """A new room; `scope` None covers the whole project, else `{chapter_ids: [...]}`."""
        settings = _permissions(DEFAULT_PERMISSIONS, permissions)
        mode = _mode(confirmation_mode or "none")
        code = _new_code()
        async with self.store.tx() as tx:
            now = tx.now()
            owned = self.store.ledger.owned(tx.session)
            if not isinstance(project_id, str) or not await owned.owns_project(user_id, project_id):
                raise project_not_found(project_id)
            reach = clean_scope(scope, await self.store.room_reads(tx.session).chapter_order(project_id))
            room = RoomRecord(
                id=new_id("chn"),
                user_id=user_id,
                project_id=project_id,
                permissions=settings,
                confirmation_mode=mode,
                scope=reach,
                last_seq=0,
                code_issued_at=now,
                created_at=now,
                expires_at=now + timedelta(hours=self.store.settings.channel_ttl_hours),
                ended_at=None,
                end_reason=None,
            )
            await tx.room_changes.open_room(room, sha256_hex(code))
            await self._settings_changed(tx, room, user_id)
            return await self.store.channel_view(tx.session, room, code)

    async def get_channel(self, user_id: str, channel_id: str) -> ChannelView:
        async with self.store.db.read() as session:
            return await self.store.channel_view(
                session, await self.store.owned_channel(session, user_id, channel_id)
            )

    async def channels_of_project(self, user_id: str, project_id: str) -> list[ChannelView]:
        async with self.store.db.read() as session:
            rows = await self.store.ledger.owned(session).rooms_of_project(user_id, project_id)
            return [await self.store.channel_view(session, row) for row in rows]

    async def update_settings(
        self,
        user_id: str,
        channel_id: str,
        permissions: dict[str, Any] | None = None,
        confirmation_mode: str | None = None,
        scope: object = KEEP,
        *,
        if_match: str | None = None,
    ) -> ChannelView:
        """Takes effect on the very next tool call: the guard reads the room from the database.
        With `if_match` (the settings' tag as read, `settings_tag`), only if they are still those."""
        async with self.store.tx() as tx:
            channel = await self.store.owned_channel(tx.session, user_id, channel_id)
            self.store.ensure_live(channel)
            tag = settings_tag(channel)
            if if_match is not None and not matches(if_match, tag):
                raise SettingsChangedError(await self.store.channel_view(tx.session, channel), tag)
            merged = _permissions(channel.permissions, permissions)
            mode = channel.confirmation_mode if confirmation_mode is None else _mode(confirmation_mode)
            reach = channel.scope
            if scope is not KEEP:
                reach = clean_scope(
                    scope, await self.store.room_reads(tx.session).chapter_order(channel.project_id)
                )
            if merged != channel.permissions or mode != channel.confirmation_mode or reach != channel.scope:
                changed = await tx.room_changes.change_settings(channel.id, merged, mode, reach)
                channel = _still_there(changed, channel_id)
                await self._settings_changed(tx, channel, user_id)
            return await self.store.channel_view(tx.session, channel)

    async def rotate_code(self, user_id: str, channel_id: str) -> str:
        """A new code; the old one stops working for everyone, members included."""
        code = _new_code()
        async with self.store.tx() as tx:
            channel = await self.store.owned_channel(tx.session, user_id, channel_id)
            self.store.ensure_live(channel)
            _still_there(await tx.room_changes.new_code(channel.id, sha256_hex(code), tx.now()), channel_id)
            await tx.event(
                channel.id, EventKind.CODE_ROTATED, await self.store.owner_actor(tx.session, user_id)
            )
        return code

    async def end_channel(self, user_id: str, channel_id: str) -> ChannelView:
        async with self.store.tx() as tx:
            channel = await self.store.owned_channel(tx.session, user_id, channel_id)
            if channel.ended_at is None:
                owner = await self.store.owner_actor(tx.session, user_id)
                channel = await finish_channel(tx, channel, "ended", owner)
            return await self.store.channel_view(tx.session, channel)

    async def remove_member(self, user_id: str, channel_id: str, client_id: str) -> ChannelView:
        """Remove one agent from a live room; the others stay. It rejoins only with a new code."""
        async with self.store.tx() as tx:
            channel = await self.store.owned_channel(tx.session, user_id, channel_id)
            self.store.ensure_live(channel)
            await remove_member(tx, channel.id, client_id, await self.store.owner_actor(tx.session, user_id))
            return await self.store.channel_view(tx.session, channel)

    async def agent_revoked(self, user_id: str, client_id: str) -> int:
        """The owner revoked this agent: its memberships in their channels end now (`revocation`)."""
        async with self.store.tx() as tx:
            owner = await self.store.owner_actor(tx.session, user_id)
            return await end_memberships(tx, owner, client_id)

    async def command_undone(self, user_id: str, command_id: str, *, undone: bool, reverted: int) -> None:
        """Tell the channel (every open panel) that the owner undid the command's changes, or redid them."""
        async with self.store.tx() as tx:
            command, channel = await self.store.owned_command(tx.session, user_id, command_id)
            owner = await self.store.owner_actor(tx.session, user_id)
            payload = CommandUndone(undone=undone, reverted=reverted)
            await tx.event(channel.id, EventKind.COMMAND_UNDONE, owner, payload, command.id)

    async def post_command(
        self,
        user_id: str,
        channel_id: str,
        text: str,
        context: object = None,
        in_reply_to: str | None = None,
    ) -> CommandView:
        clean = _command_text(text)
        return await post_on_driver(self.store, user_id, channel_id, clean, context, in_reply_to)

    async def get_command(self, user_id: str, command_id: str) -> CommandView:
        async with self.store.db.read() as session:
            command, _ = await self.store.owned_command(session, user_id, command_id)
            return command_view(command)

    async def cancel_command(self, user_id: str, command_id: str) -> CommandView:
        async with self.store.tx() as tx:
            command, _ = await self.store.owned_command(tx.session, user_id, command_id)
            if command.state not in OPEN_STATES:
                raise RomergoError("conflict", f"The command is already {command.state}.")
            await cancel(tx, command, await self.store.owner_actor(tx.session, user_id))
            return command_view(tx.current(command))

    async def retry_command(self, user_id: str, command_id: str) -> CommandView:
        async with self.store.tx() as tx:
            old, channel = await self.store.owned_command(tx.session, user_id, command_id)
            self.store.ensure_live(channel)
            if old.state not in RETRYABLE_STATES:
                raise RomergoError(
                    "conflict",
                    f"Only a stalled, failed or cancelled command can be retried; this one is {old.state}.",
                )
            owner = await self.store.owner_actor(tx.session, user_id)
            if old.state == CommandState.STALLED:
                await cancel(tx, old, owner)
            return await _queue_again(tx, channel.id, old, owner)

    async def events(
        self, user_id: str, channel_id: str, after: int = 0, wait: float = 0
    ) -> tuple[list[EventView], int]:
        """Events with `seq > after`; with `wait`, park until there are some (at most 50 s)."""
        if isinstance(after, bool) or not isinstance(after, int) or after < 0:
            raise invalid("after must be a whole number of 0 or more.")
        if isinstance(wait, bool) or not isinstance(wait, int | float) or not 0 <= wait <= MAX_EVENTS_WAIT:
            raise invalid(f"wait must be between 0 and {MAX_EVENTS_WAIT} seconds.")

        async def read(remaining: float) -> tuple[list[EventView], int] | None:
            async with self.store.db.read() as session:
                channel = await self.store.owned_channel(session, user_id, channel_id)
                events = await self.store.events_after(session, channel.id, after, MAX_EVENTS_PAGE)
                latest = await self.store.latest_seq(session, channel.id)
            if events or remaining <= 0:
                return events, events[-1].seq if events else min(after, latest)
            return None

        # Woken only by a change to the channel; at the deadline one last read gives the cursor.
        found = await park(self.store.bus, channel_topic(channel_id), wait, read)
        if found is None:
            found = await read(0)
        assert found is not None  # with no time left, `read` always answers
        return found

    async def _settings_changed(self, tx: ChannelTx, channel: RoomRecord, user_id: str) -> None:
        """Tells the panel (and a joining agent) what the room's settings are now, as written."""
        tx.rooms.add(channel.project_id)
        await tx.event(
            channel.id,
            EventKind.SETTINGS_CHANGED,
            await self.store.owner_actor(tx.session, user_id),
            SettingsChanged(
                permissions=channel.permissions,
                confirmation_mode=channel.confirmation_mode,
                scope=channel.scope,
            ),
        )


async def _queue_again(tx: ChannelTx, channel_id: str, old: CommandRecord, owner: EventActor) -> CommandView:
    """A new command with the old one's text and context, and its `command` event, under one
    number: the number is taken first, so the command is written once, already in the state the
    event leaves it."""
    (seq,) = await tx.numbers(channel_id, 1)
    command = new_command(channel_id, seq, old.text, old.context, tx.now(), retry_of=old.id)
    await tx.log.add_command(command)
    posted = posted_payload(command)
    await tx.write_events(channel_id, [seq], owner, [(EventKind.COMMAND, posted)], command.id)
    return command_view(command)


async def cancel(tx: ChannelTx, command: CommandRecord, actor: EventActor) -> None:
    """Cancels the command and rejects its open confirmations: the waiting call stops at once."""
    await cancel_confirmations(tx, command.id, actor)  # each moves the command on
    await tx.command_event(tx.current(command), EventKind.CANCELLED, actor)


async def finish_channel(tx: ChannelTx, room: RoomRecord, reason: str, actor: EventActor) -> RoomRecord:
    """End or expire: open commands are cancelled, then the end itself is the last event. The
    room as it ended."""
    channel = _still_there(await tx.room_changes.end_room(room.id, tx.now(), reason), room.id)
    tx.rooms.add(channel.project_id)
    open_commands = await tx.log.commands_of_room(channel.id, OPEN_STATES)
    for command in open_commands:
        await cancel(tx, command, actor if reason == "ended" else SYSTEM_ACTOR)
    await tx.event(
        channel.id,
        EventKind.CHANNEL_ENDED,
        actor if reason == "ended" else SYSTEM_ACTOR,
        ChannelEnded(reason=reason),
    )
    return channel


def _still_there(changed: RoomRecord | None, channel_id: object) -> RoomRecord:
    """The changed room; `not_found` if it went away since this transaction read it."""
    if changed is None:
        raise room_not_found(channel_id)
    return changed


def _new_code() -> str:
    return "rmg-" + new_secret(18)


def _permissions(current: Mapping[str, bool], changes: dict[str, Any] | None) -> dict[str, bool]:
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
    if not isinstance(value, str) or value not in {mode.value for mode in ConfirmationMode}:
        raise invalid(f"confirmation_mode must be one of {', '.join(ConfirmationMode)}.")
    return str(value)


def _command_text(text: object) -> str:
    if not isinstance(text, str) or not text.strip():
        raise invalid("A command needs some text.")
    if len(text) > MAX_COMMAND_CHARS:
        raise invalid(f"A command is limited to {MAX_COMMAND_CHARS} characters.")
    return text.strip()

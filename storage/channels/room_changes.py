"""The owner's changes to a room, inside a transaction the channel service opened: a room opened,
its settings changed, its join code made anew, the room ended or expired. Each is one write, flushed
at once, so the events the service writes next are numbered on the room as it now is.

A room changed here is the session's row when the transaction read it already (`owned`, `rooms`
read through the session), so the change costs no second read; what goes up is a frozen record.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from sqlmodel.ext.asyncio.session import AsyncSession

from storage.channels.records import RoomRecord
from storage.channels.rooms import room_record
from storage.records import columns_of
from storage.tables import Channel


class RoomChangesInSession:
    def __init__(self, session: AsyncSession) -> None:
        self.session = session

    async def open_room(self, room: RoomRecord, code_hash: str) -> None:
        """A new room whose join code has this hash, written now."""
        self.session.add(Channel(**columns_of(room), code_hash=code_hash))
        await self.session.flush()

    async def change_settings(
        self,
        channel_id: str,
        permissions: Mapping[str, bool],
        confirmation_mode: str,
        scope: dict[str, Any] | None,
    ) -> RoomRecord | None:
        """The room's permissions, confirmation mode and reach are these now; None when there is
        no such room."""
        return await self._changed(
            channel_id, permissions=dict(permissions), confirmation_mode=confirmation_mode, scope=scope
        )

    async def new_code(self, channel_id: str, code_hash: str, issued_at: datetime) -> RoomRecord | None:
        """The room's join code is the one with this hash, made at `issued_at`; None when there is
        no such room."""
        return await self._changed(channel_id, code_hash=code_hash, code_issued_at=issued_at)

    async def end_room(self, channel_id: str, at: datetime, reason: str) -> RoomRecord | None:
        """The room ended at `at`, for `reason` ("ended" by its owner, or "expired"); None when
        there is no such room."""
        return await self._changed(channel_id, ended_at=at, end_reason=reason)

    async def _changed(self, channel_id: str, **columns: Any) -> RoomRecord | None:
        row = await self.session.get(Channel, channel_id)
        if row is None:
            return None
        for name, value in columns.items():
            setattr(row, name, value)
        self.session.add(row)
        await self.session.flush()
        return room_record(row)

"""The owner's changes to a room (a port of the channel ledger, `storage.channels.room_changes`):
opening it, its settings, a new join code, its end. Each is one write inside the transaction that
writes the events it leads to (`ChannelTx.room_changes`); which change is allowed, and what it
tells the panel, is the owner's side's rule (`owner.py`).
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any, Protocol

from storage.channels.records import RoomRecord


class RoomChanges(Protocol):
    async def open_room(self, room: RoomRecord, code_hash: str) -> None:
        """A new room whose join code has this hash (the code itself is never kept), written at
        once: its first events are numbered on it."""
        ...

    async def change_settings(
        self,
        channel_id: str,
        permissions: Mapping[str, bool],
        confirmation_mode: str,
        scope: dict[str, Any] | None,
    ) -> RoomRecord | None:
        """The room with these permissions, confirmation mode and reach; None when there is no
        such room."""
        ...

    async def new_code(self, channel_id: str, code_hash: str, issued_at: datetime) -> RoomRecord | None:
        """The room with a new join code (its hash), made at `issued_at`: the old code stops
        working. None when there is no such room."""
        ...

    async def end_room(self, channel_id: str, at: datetime, reason: str) -> RoomRecord | None:
        """The room ended at `at`, for `reason` ("ended" by its owner, or "expired"); None when
        there is no such room."""
        ...

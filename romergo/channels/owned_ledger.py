"""What the channel service finds of an owner's rooms and commands inside a transaction it opened
(a port of the channel ledger, `storage.channels.owned`).

Rooms and commands come as frozen records: the owner's side changes a room with a write of its
own (`room_changes.RoomChanges`) and moves a command by the events it writes about it (`ChannelTx`).
Whether either is the caller's to see is the service's rule (`ChannelStore.owned_channel`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from storage.channels.records import CommandRecord, EventRecord, MembershipRecord, RoomRecord


class OwnedReads(Protocol):
    async def room(self, channel_id: str) -> RoomRecord | None:
        """The room, whoever owns it; None when there is none."""
        ...

    async def command_with_room(self, command_id: str) -> tuple[CommandRecord, RoomRecord] | None:
        """The command and its room, whoever owns them; None when there is none."""
        ...

    async def rooms_of_project(self, user_id: str, project_id: str) -> list[RoomRecord]:
        """The owner's rooms on the project, newest first."""
        ...

    async def owns_project(self, user_id: str, project_id: str) -> bool:
        """The project is this owner's and not deleted (a room may be opened on it)."""
        ...

    async def username(self, user_id: str) -> str | None:
        """The account's name; None when there is no such account."""
        ...

    async def members(self, channel_id: str) -> list[MembershipRecord]:
        """The room's memberships, left ones too, in the order they joined."""
        ...

    async def commands_in(self, channel_id: str, states: Sequence[str]) -> list[CommandRecord]:
        """The room's commands in one of `states`."""
        ...

    async def latest_seq(self, channel_id: str) -> int:
        """The room's last event number (0 before its first)."""
        ...

    async def events_after(self, channel_id: str, after: int, limit: int) -> list[EventRecord]:
        """Up to `limit` of the room's events numbered after `after`, in order."""
        ...

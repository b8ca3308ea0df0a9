"""What the channel service finds of an owner's rooms and commands inside a transaction it opened
(a port of the channel ledger, `storage.channels.owned`).

A room found here is the transaction's own object: the owner's side changes it in place and writes
events about it (`ChannelTx`). A command comes as a frozen record, as it stood when read. Whether
either is the caller's to see is the service's rule (`ChannelStore.owned_channel`); what a room's
view shows comes as frozen records.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from storage.channels.records import CommandRecord, EventRecord, MembershipRecord
from storage.tables import Channel


class OwnedReads(Protocol):
    async def room(self, channel_id: str) -> Channel | None:
        """The room, whoever owns it; None when there is none."""
        ...

    async def command_with_room(self, command_id: str) -> tuple[CommandRecord, Channel] | None:
        """The command and its room, whoever owns them; None when there is none."""
        ...

    async def rooms_of_project(self, user_id: str, project_id: str) -> list[Channel]:
        """The owner's rooms on the project, newest first."""
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

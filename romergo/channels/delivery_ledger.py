"""What a wait's delivery needs kept inside the channel's write transaction (a port of the channel
ledger, `storage.channels.deliveries`): the wait's room, the presence, a command handed over again
or claimed, and where a joining agent's waits start.

Commands, rooms and memberships found here are the transaction's own objects: delivery writes
events about them through the transaction (`ChannelTx`).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any, Protocol

from storage.channels.wait_checks import WaitRoom
from storage.tables import Channel, ChannelMember, Command


class DeliveryLedger(Protocol):
    async def wait_room(self, channel_id: str, client_id: str) -> WaitRoom | None:
        """The room of a wait with the caller's membership and what it holds; None: no room."""
        ...

    async def listening(
        self, channel_id: str, client_id: str, seen: datetime, until: datetime | None
    ) -> None:
        """The caller seen at `seen` and listening until `until` (None: no longer listening)."""
        ...

    async def hand_again(self, command_id: str) -> Command:
        """The command its agent still holds, counted delivered once more."""
        ...

    async def claim(self, channel_id: str, client_id: str, after: int, at: datetime) -> Any | None:
        """The oldest command queued for the caller after `after`, claimed: its columns, or None."""
        ...

    async def command(self, command_id: str) -> Command | None: ...

    async def last_finished(self, channel_id: str, client_id: str, finished: Sequence[str]) -> int | None:
        """The number of the last command this client took that is in one of `finished`."""
        ...

    async def oldest_queued(self, channel_id: str, client_id: str) -> int | None:
        """The number of the oldest command queued for this client."""
        ...

    async def room_and_member(
        self, channel_id: str, client_id: str
    ) -> tuple[Channel | None, ChannelMember | None]:
        """The room and this client's membership of it."""
        ...

    async def member(self, channel_id: str, client_id: str) -> ChannelMember | None: ...

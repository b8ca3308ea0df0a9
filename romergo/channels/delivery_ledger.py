"""Where a joining agent's waits start, and the caller's membership a join or a leave checks,
kept inside the channel's write transaction (a port of the channel ledger,
`storage.channels.deliveries`). A wait's own check runs on the database's driver (`wait_check`).

Rooms and memberships found here come as frozen records: the join and the leave write what changes
through the transaction (`ChannelTx`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from storage.channels.records import MembershipRecord, RoomRecord


class DeliveryLedger(Protocol):
    async def last_finished(self, channel_id: str, client_id: str, finished: Sequence[str]) -> int | None:
        """The number of the last command this client took that is in one of `finished`."""
        ...

    async def oldest_queued(self, channel_id: str, client_id: str, queued: str) -> int | None:
        """The number of the oldest command waiting in `queued` for this client."""
        ...

    async def room_and_member(
        self, channel_id: str, client_id: str
    ) -> tuple[RoomRecord | None, MembershipRecord | None]:
        """The room and this client's membership of it."""
        ...

    async def member(self, channel_id: str, client_id: str) -> MembershipRecord | None: ...

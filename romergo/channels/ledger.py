"""What the channel service needs kept: the channel ledger, a port its storage implements
(`storage.channels`), over plain frozen records.

`RoomReads` is what a room's rules read inside a transaction the service already opened (the
ledger binds it to that transaction): where story entities lie, the project's chapters in order,
the changes recorded for a command.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Protocol

from storage.channels.records import RecordedRevision

__all__ = ["ChannelLedger", "RecordedRevision", "RoomReads"]


class ChannelLedger(Protocol):
    def room_reads(self, transaction: Any) -> RoomReads:
        """The room's reads inside `transaction` (a `ChannelTx`'s session, or a read's)."""
        ...

    async def clear_presence(
        self, channel_id: str, client_id: str, seen: datetime, ran_out: datetime | None = None
    ) -> bool:
        """The agent stopped listening, last seen at `seen`; with `ran_out`, only a presence that
        ended by then (a later wait's stays). Whether a presence was cleared."""
        ...

    async def command_number(self, channel_id: str, seq: int) -> int:
        """The command's number in its channel as the panel counts them (#1 for the first)."""
        ...

    async def owned_command_state(self, user_id: str, command_id: str) -> str | None:
        """The state of a command in one of this owner's channels; None when there is none."""
        ...


class RoomReads(Protocol):
    async def chapter_order(self, project_id: str) -> list[str]:
        """The project's chapter ids in story order: what a scope is made of and numbered by."""
        ...

    async def command_revisions(self, command_id: str) -> list[RecordedRevision]:
        """What the server recorded for a command, oldest first."""
        ...

    async def parent_of(self, table: type[Any], ident: str, parent_column: str) -> str | None:
        """The parent (`parent_column`) of an entity of `table` as it is now; None if it is gone."""
        ...

    async def parents_now_or_recorded(
        self, project_id: str, table: type[Any], entity_type: str, ids: set[str], parent_column: str
    ) -> dict[str, str]:
        """Each entity's parent from its row, or for one deleted since, from its last revision."""
        ...

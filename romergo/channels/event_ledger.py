"""What the channel's write transaction needs kept: its events, numbered, and the commands they
move (a port of the channel ledger, `storage.channels.event_log`).

The service computes each event's row (`channels.tx.event_rows`) and each command's next state
(`channels.tx.command_moved`); the log numbers and writes them, inside the transaction it is bound
to. It takes and hands back commands as records.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from storage.channels.records import CommandRecord

Row = dict[str, Any]
"""An event's columns (`event_rows`), or a command's move (`command_moved`)."""


class EventLog(Protocol):
    async def append(self, channel_id: str, shared: Row, own: list[Row]) -> list[int]:
        """A run of events written, the columns they share and each one's own, under the channel's
        next numbers (returned, in order). Fails when the channel is not there."""
        ...

    async def numbers(self, channel_id: str, count: int) -> list[int]:
        """The channel's next `count` event numbers, taken, for `write`."""
        ...

    async def write(self, numbers: list[int], shared: Row, own: list[Row]) -> None:
        """A run of events written under numbers taken with `numbers`."""
        ...

    async def pending_confirmations(self, command_id: str) -> int:
        """How many of the command's "Allow once" requests still wait for the owner."""
        ...

    async def move_command(self, moved: Row, *, from_state: str | None = None) -> bool:
        """The command (`moved["command_id"]`) moved as `command_moved` says; with `from_state`,
        only if it still holds that state (False when it does not, and nothing changed)."""
        ...

    async def add_command(self, command: CommandRecord) -> None:
        """A new command written as it is (numbered, in the state its `command` event leaves it)."""
        ...

    async def commands_of_room(self, channel_id: str, states: Sequence[str]) -> list[CommandRecord]:
        """The room's commands in one of `states`, oldest first, as they stand now."""
        ...

    async def fresh_command(self, command_id: str) -> CommandRecord | None:
        """The command as the database holds it now; None when there is no such command."""
        ...

"""What the channel service needs kept: the channel ledger, a port its storage implements
(`storage.channels`), over plain frozen records.

`RoomReads` is what a room's rules read inside a transaction the service already opened (the
ledger binds it to that transaction): where story entities lie, the project's chapters in order,
the changes recorded for a command. `RoomLedger` keeps rooms, their members and their commands as
a join, a leave, the sweeper, a revocation and a removal read and change them;
`ConfirmationLedger` keeps the owner's "Allow once" requests. Both live inside the transaction
that writes the events they lead to, as do the transaction's `EventLog` (events numbered and
written, the commands they move: `event_ledger.py`), `OwnedReads` (the owner's rooms and commands:
`owned_ledger.py`), `RoomChanges` (the owner's changes to a room, one write each:
`room_changes.py`) and `DeliveryLedger` (a wait's delivery: `delivery_ledger.py`).

The busy path's writes on the database's driver (a post, a wait's check, a report, a tool call's
rooms) call storage's functions for them directly (`storage.channels.posts`, `wait_checks`,
`reports`, `agent_rooms`, `event_log`), each a statement or two built once; where a statement names
command states, the core gives them once, as data (`wait_statements.py`, `memberships._HELD`).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any, Protocol

from romergo.channels.delivery_ledger import DeliveryLedger
from romergo.channels.event_ledger import EventLog
from romergo.channels.owned_ledger import OwnedReads
from romergo.channels.room_changes import RoomChanges
from storage.channels.records import (
    CommandRecord,
    ConfirmationRecord,
    EventRecord,
    MembershipRecord,
    RecordedRevision,
    RoomRecord,
)

__all__ = [
    "ChannelLedger",
    "CommandRecord",
    "ConfirmationLedger",
    "ConfirmationRecord",
    "EventRecord",
    "MembershipRecord",
    "RecordedRevision",
    "RoomLedger",
    "RoomReads",
    "RoomRecord",
]


class ChannelLedger(Protocol):
    def room_reads(self, transaction: Any) -> RoomReads:
        """The room's reads inside `transaction` (a `ChannelTx`'s session, or a read's)."""
        ...

    def rooms(self, transaction: Any) -> RoomLedger:
        """Rooms, their members and commands inside `transaction` (a `ChannelTx`'s session)."""
        ...

    def room_changes(self, transaction: Any) -> RoomChanges:
        """The owner's changes to a room inside `transaction` (a `ChannelTx`'s session)."""
        ...

    def events(self, transaction: Any) -> EventLog:
        """The channel's events and the commands they move inside `transaction` (a `ChannelTx`'s
        session)."""
        ...

    def deliveries(self, transaction: Any) -> DeliveryLedger:
        """Where a joining agent's waits start, and memberships, inside `transaction` (a
        `ChannelTx`'s session)."""
        ...

    def owned(self, transaction: Any) -> OwnedReads:
        """The owner's rooms and commands inside `transaction` (a `ChannelTx`'s session, or a
        read's)."""
        ...

    def confirmations(self, transaction: Any) -> ConfirmationLedger:
        """The "Allow once" requests inside `transaction` (a `ChannelTx`'s session, or a read's)."""
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

    async def parents_now_or_recorded(
        self, project_id: str, entity_type: str, ids: set[str], parent_column: str
    ) -> dict[str, str]:
        """Each entity's parent from its row, or for one deleted since, from its last revision."""
        ...


class RoomLedger(Protocol):
    """Read and written inside a transaction; rooms and commands come as records, as they stood
    when read (the events written about a command take it as it is)."""

    async def room(self, channel_id: str) -> RoomRecord | None: ...

    async def room_by_code(self, code_hash: str) -> RoomRecord | None:
        """The room whose current join code has this hash."""
        ...

    async def project_title(self, project_id: str) -> str | None: ...

    async def latest_events(self, channel_id: str, limit: int) -> list[EventRecord]:
        """The room's last `limit` events, newest first."""
        ...

    async def admit(
        self, channel_id: str, client_id: str, agent_name: str, at: datetime, *, joined_before: bool
    ) -> None:
        """The client is a member of the room from `at`, under `agent_name`: again, if it
        `joined_before` (its membership, read in this transaction, is renewed), else a new one."""
        ...

    async def member_left(self, channel_id: str, client_id: str, at: datetime) -> None:
        """The agent left the room by itself at `at`."""
        ...

    async def member(self, channel_id: str, client_id: str) -> MembershipRecord | None:
        """The client's membership of the room, left or not; None if it never joined."""
        ...

    async def present_in_owners_rooms(
        self, owner_id: str, client_id: str
    ) -> list[tuple[MembershipRecord, RoomRecord]]:
        """The client's memberships it has not left, in every room of this owner's (ended or not)."""
        ...

    async def end_membership(self, channel_id: str, client_id: str, at: datetime, reason: str) -> None:
        """The agent is out of the room from `at`, for `reason`, and no longer listening."""
        ...

    async def events_by_since(self, channel_id: str, kind: str, actor_id: str, since: datetime) -> int:
        """How many events of `kind` this actor wrote in the room from `since` on."""
        ...

    async def commands_held(
        self, channel_id: str, client_id: str, states: Sequence[str]
    ) -> list[CommandRecord]:
        """The room's commands in one of `states` that this client took."""
        ...

    async def silent_commands(self, states: Sequence[str], quiet_since: datetime) -> list[CommandRecord]:
        """Commands in one of `states`, in every room, with no activity since `quiet_since`."""
        ...

    async def rooms_run_out(self, now: datetime) -> list[RoomRecord]:
        """Rooms not ended whose time ran out by `now`."""
        ...


class ConfirmationLedger(Protocol):
    async def owned(self, user_id: str, confirmation_id: object) -> ConfirmationRecord | None:
        """The request, if it lies in one of this owner's channels."""
        ...

    async def current(self, confirmation_id: str) -> ConfirmationRecord | None:
        """The request as the database holds it now (another transaction may have decided it)."""
        ...

    async def pending_in_channel(self, channel_id: str) -> list[ConfirmationRecord]:
        """The channel's undecided requests, oldest first."""
        ...

    async def open_request(self, command_id: str, tool: str, fingerprint: str) -> ConfirmationRecord | None:
        """The newest open (pending or granted) request for this call of the command."""
        ...

    async def open_of_command(self, command_id: str) -> list[ConfirmationRecord]:
        """The command's open requests."""
        ...

    async def open_expired(self, now: datetime) -> list[ConfirmationRecord]:
        """Open requests whose time ran out by `now`, in every channel."""
        ...

    async def add(self, request: ConfirmationRecord) -> None:
        """A new request, written at once: the command's count of waiting requests includes it."""
        ...

    async def decided(self, confirmation_id: str, state: str, at: datetime) -> ConfirmationRecord:
        """The request is decided (`state`) at `at`, written at once: no longer counted as waiting."""
        ...

    async def consume_granted(self, confirmation_id: str) -> bool:
        """The allowed request is used, once; False when it is not (or no longer) granted."""
        ...

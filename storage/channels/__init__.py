"""The channel ledger (`romergo.channels.ledger`) on SQLite and PostgreSQL."""

from storage.channels.confirmations import ConfirmationsInSession
from storage.channels.ledger import DatabaseChannelLedger
from storage.channels.records import (
    CommandRecord,
    ConfirmationRecord,
    EventRecord,
    MembershipRecord,
    RecordedRevision,
    RoomRecord,
)
from storage.channels.room_changes import RoomChangesInSession
from storage.channels.room_reads import RoomReadsInSession
from storage.channels.rooms import RoomsInSession

__all__ = [
    "CommandRecord",
    "ConfirmationRecord",
    "ConfirmationsInSession",
    "DatabaseChannelLedger",
    "EventRecord",
    "MembershipRecord",
    "RecordedRevision",
    "RoomChangesInSession",
    "RoomReadsInSession",
    "RoomRecord",
    "RoomsInSession",
]

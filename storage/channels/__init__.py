"""The channel ledger (`romergo.channels.ledger`) on SQLite and PostgreSQL."""

from storage.channels.confirmations import ConfirmationsInSession
from storage.channels.ledger import DatabaseChannelLedger
from storage.channels.records import ConfirmationRecord, RecordedRevision
from storage.channels.room_reads import RoomReadsInSession

__all__ = [
    "ConfirmationRecord",
    "ConfirmationsInSession",
    "DatabaseChannelLedger",
    "RecordedRevision",
    "RoomReadsInSession",
]

"""The channel ledger (`romergo.channels.ledger`) on SQLite and PostgreSQL."""

from storage.channels.ledger import DatabaseChannelLedger
from storage.channels.records import RecordedRevision
from storage.channels.room_reads import RoomReadsInSession

__all__ = ["DatabaseChannelLedger", "RecordedRevision", "RoomReadsInSession"]

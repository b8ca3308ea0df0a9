"""The plain records the channel ledger hands up: read once, frozen, no session behind them."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any


@dataclass(frozen=True, slots=True)
class RecordedRevision:
    """One change the server recorded for a command, as a command's changes list it."""

    entity_type: str
    entity_id: str
    action: str
    before: dict[str, Any] | None
    after: dict[str, Any] | None
    tool: str | None
    created_at: datetime


@dataclass(frozen=True, slots=True)
class ConfirmationRecord:
    """A request for the owner's "Allow once", bound to its command, tool and arguments."""

    id: str
    channel_id: str
    command_id: str
    client_id: str
    tool: str
    arguments: dict[str, Any]
    fingerprint: str
    action: str
    state: str
    """pending → granted → consumed, or rejected / expired / cancelled."""
    created_at: datetime
    expires_at: datetime
    decided_at: datetime | None = None

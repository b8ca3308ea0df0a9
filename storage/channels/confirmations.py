"""The owner's "Allow once" requests, kept in the `confirmations` table, inside a transaction the
channel service opened: the request and its command's events are written together.

Reads and writes go through the session's objects as they always did (`get` finds a request read
earlier in the transaction without a second statement); what goes up is a frozen record.
"""

from __future__ import annotations

from dataclasses import asdict
from datetime import datetime

from sqlalchemy import update
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from storage.channels.records import ConfirmationRecord
from storage.records import record_of
from storage.tables import Channel, Confirmation

OPEN = ("pending", "granted")
"""A request not yet decided, or allowed and not yet used."""


class ConfirmationsInSession:
    def __init__(self, session: AsyncSession) -> None:
        self.session = session

    async def owned(self, user_id: str, confirmation_id: object) -> ConfirmationRecord | None:
        """The request, if it lies in one of this owner's channels."""
        row = (
            await self.session.get(Confirmation, confirmation_id)
            if isinstance(confirmation_id, str)
            else None
        )
        channel = await self.session.get(Channel, row.channel_id) if row else None
        if row is None or channel is None or channel.user_id != user_id:
            return None
        return confirmation_record(row)

    async def current(self, confirmation_id: str) -> ConfirmationRecord | None:
        """The request as the database holds it now (another transaction may have decided it)."""
        row = await self.session.get(Confirmation, confirmation_id, populate_existing=True)
        return None if row is None else confirmation_record(row)

    async def pending_in_channel(self, channel_id: str) -> list[ConfirmationRecord]:
        """The channel's undecided requests, oldest first."""
        rows = (
            await self.session.exec(
                select(Confirmation)
                .where(Confirmation.channel_id == channel_id, Confirmation.state == "pending")
                .order_by(col(Confirmation.created_at))
            )
        ).all()
        return [confirmation_record(row) for row in rows]

    async def open_request(self, command_id: str, tool: str, fingerprint: str) -> ConfirmationRecord | None:
        """The newest open request for this call of the command (same tool, same arguments)."""
        row = (
            await self.session.exec(
                select(Confirmation)
                .where(
                    Confirmation.command_id == command_id,
                    Confirmation.tool == tool,
                    Confirmation.fingerprint == fingerprint,
                    col(Confirmation.state).in_(OPEN),
                )
                .order_by(col(Confirmation.created_at).desc())
            )
        ).first()
        return None if row is None else confirmation_record(row)

    async def open_of_command(self, command_id: str) -> list[ConfirmationRecord]:
        rows = (
            await self.session.exec(
                select(Confirmation).where(
                    Confirmation.command_id == command_id, col(Confirmation.state).in_(OPEN)
                )
            )
        ).all()
        return [confirmation_record(row) for row in rows]

    async def open_expired(self, now: datetime) -> list[ConfirmationRecord]:
        """Open requests whose time ran out by `now`, in every channel."""
        rows = (
            await self.session.exec(
                select(Confirmation).where(
                    col(Confirmation.state).in_(OPEN), col(Confirmation.expires_at) <= now
                )
            )
        ).all()
        return [confirmation_record(row) for row in rows]

    async def add(self, request: ConfirmationRecord) -> None:
        """A new request, written now: the command's count of waiting requests includes it."""
        self.session.add(Confirmation(**asdict(request)))
        await self.session.flush()

    async def decided(self, confirmation_id: str, state: str, at: datetime) -> ConfirmationRecord:
        """The request is decided (`state`: granted, rejected, expired or cancelled) at `at`, and
        written now: the command's count of waiting requests no longer includes it."""
        row = await self.session.get(Confirmation, confirmation_id)
        assert row is not None  # requests are never deleted
        row.state = state
        row.decided_at = at
        self.session.add(row)
        await self.session.flush()
        return confirmation_record(row)

    async def consume_granted(self, confirmation_id: str) -> bool:
        """The allowed request is used by the call it allowed; False when it is not (or no longer)
        granted. One conditional update, so two calls cannot both use one grant."""
        consumed = (
            await self.session.exec(
                update(Confirmation)  # type: ignore[call-overload]
                .where(col(Confirmation.id) == confirmation_id, col(Confirmation.state) == "granted")
                .values(state="consumed")
                .returning(Confirmation.id)
            )
        ).scalar_one_or_none()
        return consumed is not None


def confirmation_record(row: Confirmation) -> ConfirmationRecord:
    return record_of(ConfirmationRecord, row, arguments=dict(row.arguments))

"""Confirmations (CONTRACT.md §2.7): the owner's "Allow once" for one exact action.

A request is bound to command, tool and the argument fingerprint. The call waits for the
decision (at most 50 s, then `confirmation_pending`: call again with the same arguments and you
re-attach to the same request). A grant is consumed by exactly one execution, by a conditional
update, so two parallel retries cannot both run it. Only the owner decides.

A redelivery starts the command over: a call still waiting from an earlier delivery (typically
the handler of an agent that died while waiting, which the server cannot see) never consumes the
grant, so the allowed action runs for the delivery the agent is working on now, once.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import update
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from romergo.channels.events import ConfirmationDecided, ConfirmationRequested
from romergo.channels.models import Caller
from romergo.channels.parking import park
from romergo.channels.store import ChannelStore, channel_topic
from romergo.channels.tx import SYSTEM_ACTOR, ChannelTx, EventActor
from romergo.channels.vocabulary import CONFIRMED_CATEGORIES, ConfirmationMode, Decision, EventKind
from romergo.clock import iso
from romergo.errors import RomergoError, invalid
from romergo.ids import new_id
from storage.tables import Channel, Command, Confirmation

WAIT_SECONDS = 50.0
OPEN = ("pending", "granted")
DECISIONS = {Decision.ALLOW_ONCE: "granted", Decision.REJECT: "rejected"}


@dataclass(frozen=True)
class ConfirmationView:
    confirmation_id: str
    command_id: str
    channel_id: str
    tool: str
    arguments: dict[str, Any]
    fingerprint: str
    action: str
    state: str
    expires_at: datetime


def fingerprint(arguments: dict[str, Any]) -> str:
    """SHA-256 hex of the validated arguments without command_id, as canonical JSON."""
    canonical = {k: v for k, v in arguments.items() if k != "command_id"}
    text = json.dumps(canonical, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def needs_confirmation(mode: str, category: str) -> bool:
    return category in CONFIRMED_CATEGORIES.get(ConfirmationMode(mode), ())


class Confirmations:
    """Requests for the owner's "Allow once": the agent's call waits here, the owner decides."""

    wait_seconds: float = WAIT_SECONDS

    def __init__(self, store: ChannelStore) -> None:
        self.store = store

    async def await_confirmation(
        self,
        caller: Caller,
        command: Command,
        tool: str,
        arguments: dict[str, Any],
        shown_arguments: dict[str, Any],
        action: str,
        heartbeat: Any = None,
    ) -> None:
        """Returns once this call holds a consumed grant; raises the §1 code otherwise."""
        print_ = fingerprint(arguments)
        confirmation_id = await self._attach(caller, command, tool, print_, shown_arguments, action)

        async def consumed(_remaining: float) -> bool | None:
            return await self._try_consume(confirmation_id, command.id, command.deliveries) or None

        if not await park(
            self.store.bus,
            channel_topic(command.channel_id),
            self.wait_seconds,
            consumed,
            heartbeat=heartbeat,
            heartbeat_seconds=self.store.heartbeat_seconds,
        ):
            raise RomergoError(
                "confirmation_pending",
                "The owner has not decided yet. Call the tool again with the same arguments to keep waiting.",
            )

    async def decide_confirmation(
        self, user_id: str, confirmation_id: str, decision: str
    ) -> ConfirmationView:
        if decision not in DECISIONS:
            raise invalid('decision must be "allow_once" or "reject".')
        async with self.store.tx() as tx:
            row = await _owned_confirmation(tx.session, user_id, confirmation_id)
            if row.state == "pending" and row.expires_at <= tx.now():
                await _close(tx, row, Decision.EXPIRED, SYSTEM_ACTOR)
            if row.state != "pending":
                raise RomergoError("conflict", f"This confirmation is already {row.state}.")
            owner = await self.store.owner_actor(tx.session, user_id)
            row.state = DECISIONS[Decision(decision)]
            await _decided(tx, row, Decision(decision), owner)
            return confirmation_view(row)

    async def get_confirmation(self, user_id: str, confirmation_id: str) -> ConfirmationView:
        async with self.store.db.read() as session:
            return confirmation_view(await _owned_confirmation(session, user_id, confirmation_id))

    async def pending_confirmations(self, user_id: str, channel_id: str) -> list[ConfirmationView]:
        async with self.store.db.read() as session:
            await self.store.owned_channel(session, user_id, channel_id)
            rows = (
                await session.exec(
                    select(Confirmation)
                    .where(Confirmation.channel_id == channel_id, Confirmation.state == "pending")
                    .order_by(col(Confirmation.created_at))
                )
            ).all()
            return [confirmation_view(row) for row in rows]

    async def _attach(
        self, caller: Caller, command: Command, tool: str, print_: str, shown: dict[str, Any], action: str
    ) -> str:
        async with self.store.tx() as tx:
            now = tx.now()
            existing = (
                await tx.session.exec(
                    select(Confirmation)
                    .where(
                        Confirmation.command_id == command.id,
                        Confirmation.tool == tool,
                        Confirmation.fingerprint == print_,
                        col(Confirmation.state).in_(OPEN),
                    )
                    .order_by(col(Confirmation.created_at).desc())
                )
            ).first()
            if existing is not None and existing.expires_at > now:
                return existing.id
            if existing is not None:
                await _close(tx, existing, Decision.EXPIRED, SYSTEM_ACTOR)
            row = Confirmation(
                id=new_id("cnf"),
                channel_id=command.channel_id,
                command_id=command.id,
                client_id=caller.client_id,
                tool=tool,
                arguments=shown,
                fingerprint=print_,
                action=action,
                state="pending",
                created_at=now,
                expires_at=now + timedelta(seconds=self.store.settings.confirmation_ttl_seconds),
            )
            tx.session.add(row)
            await tx.session.flush()
            fresh = await tx.session.get(Command, command.id, populate_existing=True)
            assert fresh is not None  # the caller holds it; commands are never deleted
            await tx.command_event(
                fresh,
                EventKind.CONFIRMATION_REQUESTED,
                EventActor("agent", caller.client_id, caller.client_name),
                ConfirmationRequested(
                    confirmation_id=row.id,
                    tool=tool,
                    arguments=shown,
                    fingerprint=print_,
                    action=action,
                    expires_at=iso(row.expires_at),
                ),
            )
            return row.id

    async def _try_consume(self, confirmation_id: str, command_id: str, delivery: int) -> bool:
        async with self.store.tx() as tx:
            current = await tx.session.get(Command, command_id, populate_existing=True)
            if current is not None and current.deliveries != delivery:
                raise RomergoError(
                    "conflict",
                    "This command was delivered again while this call waited; the call belongs to "
                    "the earlier delivery and did not run. Continue with the redelivered command.",
                )
            consumed = (
                await tx.session.exec(
                    update(Confirmation)  # type: ignore[call-overload]
                    .where(col(Confirmation.id) == confirmation_id, col(Confirmation.state) == "granted")
                    .values(state="consumed")
                    .returning(Confirmation.id)
                )
            ).scalar_one_or_none()
            if consumed is not None:
                return True
            row = await tx.session.get(Confirmation, confirmation_id, populate_existing=True)
            assert row is not None
            if row.state == "pending" and row.expires_at <= tx.now():
                await _close(tx, row, Decision.EXPIRED, SYSTEM_ACTOR)
            if row.state == "pending":
                return False
        raise _refusal(row.state)

    async def expire_confirmations(self, tx: ChannelTx, now: datetime) -> int:
        rows = (
            await tx.session.exec(
                select(Confirmation).where(
                    col(Confirmation.state).in_(OPEN), col(Confirmation.expires_at) <= now
                )
            )
        ).all()
        for row in rows:
            await _close(tx, row, Decision.EXPIRED, SYSTEM_ACTOR)
        return len(rows)


async def _owned_confirmation(session: AsyncSession, user_id: str, confirmation_id: object) -> Confirmation:
    row = await session.get(Confirmation, confirmation_id) if isinstance(confirmation_id, str) else None
    channel = await session.get(Channel, row.channel_id) if row else None
    if row is None or channel is None or channel.user_id != user_id:
        raise RomergoError("not_found", f'Confirmation "{confirmation_id}" does not exist.')
    return row


async def cancel_confirmations(tx: ChannelTx, command_id: str, actor: EventActor) -> None:
    rows = (
        await tx.session.exec(
            select(Confirmation).where(
                Confirmation.command_id == command_id, col(Confirmation.state).in_(OPEN)
            )
        )
    ).all()
    for row in rows:
        await _close(tx, row, Decision.CANCELLED, actor)


async def _close(tx: ChannelTx, row: Confirmation, how: Decision, actor: EventActor) -> None:
    """Ends a request that nobody allowed: it expired, or its command was cancelled."""
    row.state = how.value
    await _decided(tx, row, how, actor)


async def _decided(tx: ChannelTx, row: Confirmation, decision: Decision, actor: EventActor) -> None:
    """The request is decided (`row.state` already says how); the command goes back to work
    once no other request of it waits, and the lease runs again from now."""
    row.decided_at = tx.now()
    tx.session.add(row)
    await tx.session.flush()
    command = await tx.session.get(Command, row.command_id, populate_existing=True)
    assert command is not None  # a request always belongs to a command; commands are never deleted
    await tx.command_event(
        command,
        EventKind.CONFIRMATION_DECIDED,
        actor,
        ConfirmationDecided(confirmation_id=row.id, decision=decision),
    )


def _refusal(state: str) -> RomergoError:
    if state == "rejected":
        return RomergoError("confirmation_rejected", "The owner rejected this action. Nothing was changed.")
    if state == "expired":
        return RomergoError(
            "confirmation_timeout", "Nobody allowed this action in time. Nothing was changed."
        )
    if state == "cancelled":
        return RomergoError("command_cancelled", "The owner cancelled this command. Stop working on it.")
    return RomergoError(
        "conflict", "This allowed action already ran once; a new call needs a new confirmation."
    )


def confirmation_view(row: Confirmation) -> ConfirmationView:
    return ConfirmationView(
        confirmation_id=row.id,
        command_id=row.command_id,
        channel_id=row.channel_id,
        tool=row.tool,
        arguments=dict(row.arguments),
        fingerprint=row.fingerprint,
        action=row.action,
        state=row.state,
        expires_at=row.expires_at,
    )

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

from romergo.channels.actors import SYSTEM_ACTOR, EventActor
from romergo.channels.events import ConfirmationDecided, ConfirmationRequested
from romergo.channels.ledger import CommandRecord, ConfirmationLedger, ConfirmationRecord
from romergo.channels.models import Caller
from romergo.channels.parking import park
from romergo.channels.store import ChannelStore, channel_topic
from romergo.channels.tx import ChannelTx
from romergo.channels.vocabulary import CONFIRMED_CATEGORIES, ConfirmationMode, Decision, EventKind
from romergo.common.clock import iso
from romergo.common.errors import RomergoError, invalid
from romergo.common.ids import new_id

WAIT_SECONDS = 50.0
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
        command: CommandRecord,
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
            row = await _owned_confirmation(tx.confirmations, user_id, confirmation_id)
            if row.state == "pending" and row.expires_at <= tx.now():
                row = await _close(tx, row, Decision.EXPIRED, SYSTEM_ACTOR)
            if row.state != "pending":
                raise RomergoError("conflict", f"This confirmation is already {row.state}.")
            owner = await self.store.owner_actor(tx.session, user_id)
            row = await _decided(tx, row, DECISIONS[Decision(decision)], Decision(decision), owner)
            return confirmation_view(row)

    async def get_confirmation(self, user_id: str, confirmation_id: str) -> ConfirmationView:
        async with self.store.db.read() as session:
            requests = self.store.ledger.confirmations(session)
            return confirmation_view(await _owned_confirmation(requests, user_id, confirmation_id))

    async def pending_confirmations(self, user_id: str, channel_id: str) -> list[ConfirmationView]:
        async with self.store.db.read() as session:
            await self.store.owned_channel(session, user_id, channel_id)
            rows = await self.store.ledger.confirmations(session).pending_in_channel(channel_id)
            return [confirmation_view(row) for row in rows]

    async def _attach(
        self,
        caller: Caller,
        command: CommandRecord,
        tool: str,
        print_: str,
        shown: dict[str, Any],
        action: str,
    ) -> str:
        async with self.store.tx() as tx:
            now = tx.now()
            existing = await tx.confirmations.open_request(command.id, tool, print_)
            if existing is not None and existing.expires_at > now:
                return existing.id
            if existing is not None:
                await _close(tx, existing, Decision.EXPIRED, SYSTEM_ACTOR)
            row = ConfirmationRecord(
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
            await tx.confirmations.add(row)
            fresh = await tx.fresh_command(command.id)
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
            current = await tx.fresh_command(command_id)
            if current is not None and current.deliveries != delivery:
                raise RomergoError(
                    "conflict",
                    "This command was delivered again while this call waited; the call belongs to "
                    "the earlier delivery and did not run. Continue with the redelivered command.",
                )
            if await tx.confirmations.consume_granted(confirmation_id):
                return True
            row = await tx.confirmations.current(confirmation_id)
            assert row is not None
            if row.state == "pending" and row.expires_at <= tx.now():
                row = await _close(tx, row, Decision.EXPIRED, SYSTEM_ACTOR)
            if row.state == "pending":
                return False
        raise _refusal(row.state)

    async def expire_confirmations(self, tx: ChannelTx, now: datetime) -> int:
        rows = await tx.confirmations.open_expired(now)
        for row in rows:
            await _close(tx, row, Decision.EXPIRED, SYSTEM_ACTOR)
        return len(rows)


async def _owned_confirmation(
    requests: ConfirmationLedger, user_id: str, confirmation_id: object
) -> ConfirmationRecord:
    row = await requests.owned(user_id, confirmation_id)
    if row is None:
        raise RomergoError("not_found", f'Confirmation "{confirmation_id}" does not exist.')
    return row


async def cancel_confirmations(tx: ChannelTx, command_id: str, actor: EventActor) -> None:
    for row in await tx.confirmations.open_of_command(command_id):
        await _close(tx, row, Decision.CANCELLED, actor)


async def _close(
    tx: ChannelTx, row: ConfirmationRecord, how: Decision, actor: EventActor
) -> ConfirmationRecord:
    """Ends a request that nobody allowed: it expired, or its command was cancelled."""
    return await _decided(tx, row, how.value, how, actor)


async def _decided(
    tx: ChannelTx,
    row: ConfirmationRecord,
    state: str,
    decision: Decision,
    actor: EventActor,
) -> ConfirmationRecord:
    """The request is decided (`state` says how); the command goes back to work once no other
    request of it waits, and the lease runs again from now."""
    decided = await tx.confirmations.decided(row.id, state, tx.now())
    command = await tx.fresh_command(row.command_id)
    assert command is not None  # a request always belongs to a command; commands are never deleted
    await tx.command_event(
        command,
        EventKind.CONFIRMATION_DECIDED,
        actor,
        ConfirmationDecided(confirmation_id=row.id, decision=decision),
    )
    return decided


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


def confirmation_view(row: ConfirmationRecord) -> ConfirmationView:
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

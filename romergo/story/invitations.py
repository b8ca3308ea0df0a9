"""Invitations: a one-time link by which whoever opens it, signed in, joins a story in a role.

The owner makes one for an editor or a viewer (`Right.MANAGE_MEMBERS`), optionally for one named
account. Its secret is shown once and kept only as its SHA-256 (DESIGN.md §5). It admits one
person before it expires (`Settings.invitation_days`): it is marked used in the transaction that
adds the member, so of two people opening it at once one joins and the other is refused. A link
whose secret is unknown is answered as a forged one is, revealing nothing. Every refusal changes
nothing.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from romergo.common import urls
from romergo.common.actors import Actor
from romergo.common.clock import as_utc, utcnow
from romergo.common.errors import RomergoError, invalid
from romergo.common.ids import new_id, new_secret, plausible_secret, sha256_hex
from romergo.story.base import Mutation, StoryStore, UnitOfWork
from romergo.story.ledger import MemberRecord, ProjectRecord
from romergo.story.membership_ledger import InvitationRecord, NamedInvitation
from romergo.story.roles import Right, Role, role_named

UNKNOWN = "This invitation link is not valid."
USED = "This invitation was already used."
REVOKED = "This invitation was revoked by the story's owner."
EXPIRED = "This invitation has expired: ask the story's owner for a new one."
NOT_YOURS = "This invitation is for another account."
STORY_GONE = "The story of this invitation was deleted."


@dataclass(frozen=True)
class Invitation:
    invitation_id: str
    project_id: str
    role: Role
    invited_by: str
    """The name of the account that made it."""
    for_username: str | None
    created_at: datetime
    expires_at: datetime


@dataclass(frozen=True)
class NewInvitation:
    invitation: Invitation
    secret: str
    """Shown this once: only its SHA-256 is kept."""

    @property
    def path(self) -> str:
        return urls.invitation(self.secret)


@dataclass(frozen=True)
class OpenedInvitation:
    """What the one who opens a link is asked to join."""

    invitation: Invitation
    story_title: str


@dataclass(frozen=True)
class InvitationsService:
    store: StoryStore
    days: int = 7

    async def invite(
        self, actor: Actor, project_id: str, role: str, username: str | None = None
    ) -> NewInvitation:
        """A new link for an editor or a viewer, for anyone or for the account named `username`."""
        wanted = role_named(role)
        if wanted is Role.OWNER:
            raise invalid("An invitation is for an editor or a viewer: a story has one owner.")
        secret, now = new_secret(32), utcnow()
        async with self.store.write(actor) as tx:
            await _managing(tx, project_id)
            for_user_id = None if username is None else await _account(tx, username)
            record = InvitationRecord(
                new_id("inv"), project_id, wanted.value, sha256_hex(secret), for_user_id,
                actor.user_id, now, now + timedelta(days=self.days), None, None, None,
            )  # fmt: skip
            await tx.story.add_invitation(record)
            inviter = await _username(tx, project_id, actor.user_id)
        return NewInvitation(_invitation(NamedInvitation(record, inviter, username)), secret)

    async def open_invitations(self, actor: Actor, project_id: str) -> list[Invitation]:
        """The story's invitations neither used, revoked nor expired, the oldest first."""
        async with self.store.read(actor) as uow:
            await _managing(uow, project_id)
            return [_invitation(found) for found in await uow.story.open_invitations(project_id, utcnow())]

    async def revoke(self, actor: Actor, invitation_id: str) -> None:
        """The invitation admits nobody any more."""
        async with self.store.write(actor) as tx:
            found = await tx.story.invitation(invitation_id) if _storable(invitation_id) else None
            missing = RomergoError("not_found", f'Invitation "{invitation_id}" not found.')
            if found is None:
                raise missing
            try:
                await tx.project_by_id(found.project_id)
            except RomergoError as refused:
                # Someone who is not a member learns not even which story it is for.
                raise (missing if refused.code == "not_found" else refused) from None
            tx.require(Right.MANAGE_MEMBERS)
            if not await tx.story.revoke_invitation(found.id, utcnow()):
                raise RomergoError("conflict", "This invitation was already used or revoked.")

    async def opened(self, actor: Actor, secret: str) -> OpenedInvitation:
        """What the link asks `actor` to join, refused as joining it would be."""
        async with self.store.read(actor) as uow:
            found, project = await _admitting(uow, actor, secret)
            return OpenedInvitation(_invitation(found), project.title)

    async def accept(self, actor: Actor, secret: str) -> OpenedInvitation:
        """`actor` joins the story in the invitation's role, and the link is used up."""
        async with self.store.write(actor) as tx:
            found, project = await _admitting(tx, actor, secret)
            invitation, now = found.invitation, utcnow()
            if not await tx.story.use_invitation(invitation.id, actor.user_id, now):
                raise RomergoError("conflict", USED)
            member = MemberRecord(project.id, actor.user_id, invitation.role, now, invitation.created_by)
            await tx.story.add_member(member)
        return OpenedInvitation(_invitation(found), project.title)


async def _managing(uow: UnitOfWork, project_id: str) -> None:
    await uow.project_by_id(project_id)
    uow.require(Right.MANAGE_MEMBERS)


async def _account(tx: Mutation, username: str) -> str:
    user_id = await tx.story.account_named(username) if _storable(username) else None
    if user_id is None:
        raise RomergoError("not_found", f'No account is named "{username}".')
    return user_id


async def _username(tx: UnitOfWork, project_id: str, user_id: str) -> str:
    for found in await tx.story.members(project_id):
        if found.member.user_id == user_id:
            return found.username
    raise RomergoError("not_found", "You are not a member of this story.")


async def _admitting(uow: UnitOfWork, actor: Actor, secret: str) -> tuple[NamedInvitation, ProjectRecord]:
    """The invitation behind `secret` and its story, if it admits `actor` now."""
    found = await uow.story.invitation_with_secret(sha256_hex(secret)) if plausible_secret(secret) else None
    if found is None:
        raise RomergoError("not_found", UNKNOWN)
    _still_open(found.invitation, actor)
    project = await uow.story.project(found.invitation.project_id)
    if project is None or project.deleted_at is not None:
        raise RomergoError("not_found", STORY_GONE)
    if any(member.member.user_id == actor.user_id for member in await uow.story.members(project.id)):
        raise RomergoError("conflict", f'You are already a member of "{project.title}".')
    return found, project


def _still_open(invitation: InvitationRecord, actor: Actor) -> None:
    if invitation.revoked_at is not None:
        raise RomergoError("conflict", REVOKED)
    if invitation.used_at is not None:
        raise RomergoError("conflict", USED)
    if as_utc(invitation.expires_at) <= utcnow():
        raise RomergoError("conflict", EXPIRED)
    if invitation.for_user_id is not None and invitation.for_user_id != actor.user_id:
        raise RomergoError("permission_denied", NOT_YOURS)


def _storable(name: object) -> bool:
    """Worth looking up: PostgreSQL refuses a NUL in a text, and nothing stored holds one."""
    return isinstance(name, str) and "\x00" not in name


def _invitation(found: NamedInvitation) -> Invitation:
    record = found.invitation
    return Invitation(
        record.id, record.project_id, Role(record.role), found.inviter, found.invitee,
        as_utc(record.created_at), as_utc(record.expires_at),
    )  # fmt: skip

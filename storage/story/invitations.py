"""A project's invitations, as the story ledger's transaction reads and writes them. Using one is
a conditional UPDATE: of two uses at once, the second finds it used and changes nothing."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import bindparam, insert, update
from sqlalchemy import select as sa_select
from sqlalchemy.orm import aliased

from storage.core_tables import INVITATIONS, USERS
from storage.records import columns_of, record_of
from storage.story.records import InvitationRecord, NamedInvitation
from storage.story.transaction import Transaction


class Invitations:
    """The story ledger transaction's invitations (`SessionStoryTransaction`'s)."""

    session: Transaction

    async def add_invitation(self, record: InvitationRecord) -> None:
        await self.session.exec(insert(INVITATIONS), params=[columns_of(record)])

    async def invitation_with_secret(self, secret_hash: str) -> NamedInvitation | None:
        found = await self.session.exec(_BY_SECRET, params={"secret_hash": secret_hash})
        return _named(found.first())

    async def invitation(self, invitation_id: str) -> InvitationRecord | None:
        found = (await self.session.exec(_BY_ID, params={"invitation_id": invitation_id})).first()
        return None if found is None else record_of(InvitationRecord, found)

    async def open_invitations(self, project_id: str, now: datetime) -> list[NamedInvitation]:
        found = await self.session.exec(_OPEN, params={"project_id": project_id, "now": now})
        return [named for named in map(_named, found.all()) if named is not None]

    async def use_invitation(self, invitation_id: str, user_id: str, at: datetime) -> bool:
        params = {"the_invitation": invitation_id, "user": user_id, "at": at}
        return (await self.session.exec(_USE, params=params)).first() is not None

    async def revoke_invitation(self, invitation_id: str, at: datetime) -> bool:
        params = {"the_invitation": invitation_id, "at": at}
        return (await self.session.exec(_REVOKE, params=params)).first() is not None


def _named(row: Any) -> NamedInvitation | None:
    if row is None:
        return None
    return NamedInvitation(record_of(InvitationRecord, row), row.inviter, row.invitee)


_INVITER = aliased(USERS, name="inviter_account")
_INVITEE = aliased(USERS, name="invitee_account")
_NAMED: Any = (
    sa_select(INVITATIONS, _INVITER.c.username.label("inviter"), _INVITEE.c.username.label("invitee"))
    .join(_INVITER, _INVITER.c.id == INVITATIONS.c.created_by)
    .outerjoin(_INVITEE, _INVITEE.c.id == INVITATIONS.c.for_user_id)
)
_BY_SECRET: Any = _NAMED.where(INVITATIONS.c.secret_hash == bindparam("secret_hash"))
_BY_ID: Any = sa_select(INVITATIONS).where(INVITATIONS.c.id == bindparam("invitation_id"))
_OPEN: Any = _NAMED.where(
    INVITATIONS.c.project_id == bindparam("project_id"),
    INVITATIONS.c.used_at.is_(None),
    INVITATIONS.c.revoked_at.is_(None),
    INVITATIONS.c.expires_at > bindparam("now"),
).order_by(INVITATIONS.c.created_at, INVITATIONS.c.id)
# Not named as the columns: an UPDATE keeps those names for the values it sets.
_STILL_OPEN = (
    INVITATIONS.c.id == bindparam("the_invitation"),
    INVITATIONS.c.used_at.is_(None),
    INVITATIONS.c.revoked_at.is_(None),
)
_USE: Any = (
    update(INVITATIONS)
    .where(*_STILL_OPEN, INVITATIONS.c.expires_at > bindparam("at"))
    .values(used_at=bindparam("at"), used_by=bindparam("user"))
    .returning(INVITATIONS.c.id)
)
_REVOKE: Any = (
    update(INVITATIONS).where(*_STILL_OPEN).values(revoked_at=bindparam("at")).returning(INVITATIONS.c.id)
)

"""What the story's members and their invitations need from the story ledger's transaction
(`StoryTransaction` holds these too). The implementation lives in `storage.story`."""

from __future__ import annotations

from datetime import datetime
from typing import Protocol

from storage.story.records import InvitationRecord, MemberRecord, NamedInvitation, NamedMember

__all__ = ["InvitationRecord", "MembershipTransaction", "NamedInvitation"]


class MembershipTransaction(Protocol):
    # Members: who may work on a project, in which role
    async def members(self, project_id: str) -> list[NamedMember]:
        """The project's members with their account names, the earliest added first."""
        ...

    async def account_named(self, username: str) -> str | None:
        """The id of the account of that name; None when there is none."""
        ...

    async def add_member(self, record: MemberRecord) -> None: ...
    async def set_role(self, project_id: str, user_id: str, role: str) -> None: ...
    async def remove_member(self, project_id: str, user_id: str) -> None: ...

    # Invitations: one-time links to join a project
    async def add_invitation(self, record: InvitationRecord) -> None: ...
    async def invitation_with_secret(self, secret_hash: str) -> NamedInvitation | None:
        """The invitation whose secret has this SHA-256, used, revoked or expired as it may be."""
        ...

    async def invitation(self, invitation_id: str) -> InvitationRecord | None: ...
    async def open_invitations(self, project_id: str, now: datetime) -> list[NamedInvitation]:
        """The project's invitations neither used, revoked nor expired at `now`, oldest first."""
        ...

    async def use_invitation(self, invitation_id: str, user_id: str, at: datetime) -> bool:
        """Mark it used by `user_id` if it is still open at `at`; False (nothing changed) if not.
        Of two uses at once, exactly one gets True."""
        ...

    async def revoke_invitation(self, invitation_id: str, at: datetime) -> bool:
        """Revoke it if neither used nor revoked; False (nothing changed) if not."""
        ...

"""A story's members: who may work on it, in which role, and handing it over to another owner.

Any member sees who the members are; only the owner changes them (`Right.MANAGE_MEMBERS`). A story
has one owner (`projects.owner_id`, its member as owner), so nobody is added as or made owner but
by a hand-over, and the owner is neither removed nor demoted: the story would be left without one.
A refused change changes nothing.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, replace
from datetime import datetime

from romergo.common.actors import Actor
from romergo.common.clock import utcnow
from romergo.common.errors import RomergoError, invalid
from romergo.story.base import Mutation, StoryStore
from romergo.story.ledger import MemberRecord, NamedMember
from romergo.story.roles import Right, Role, role_named


@dataclass(frozen=True)
class Member:
    user_id: str
    username: str
    role: Role
    added_at: datetime
    added_by: str | None


@dataclass(frozen=True)
class MembersService:
    store: StoryStore

    async def members(self, actor: Actor, project_id: str) -> list[Member]:
        """The story's members, the earliest added first."""
        async with self.store.read(actor) as uow:
            await uow.project_by_id(project_id)
            return [_member(found) for found in await uow.story.members(project_id)]

    async def add_member(self, actor: Actor, project_id: str, username: str, role: str) -> Member:
        """An existing account joins the story as editor or viewer."""
        wanted = _not_owner(role_named(role))
        async with self._managing(actor, project_id) as tx:
            user_id = await tx.story.account_named(username)
            if user_id is None:
                raise RomergoError("not_found", f'No account is named "{username}".')
            if any(found.member.user_id == user_id for found in await tx.story.members(project_id)):
                raise RomergoError("conflict", f'"{username}" is already a member of this story.')
            record = MemberRecord(project_id, user_id, wanted.value, utcnow(), actor.user_id)
            await tx.story.add_member(record)
        return _member(NamedMember(record, username))

    async def change_role(self, actor: Actor, project_id: str, username: str, role: str) -> Member:
        """A member other than the owner becomes editor or viewer."""
        wanted = _not_owner(role_named(role))
        async with self._managing(actor, project_id) as tx:
            found = _not_the_owner(await _member_named(tx, project_id, username), "change the role of")
            await tx.story.set_role(project_id, found.member.user_id, wanted.value)
        return replace(_member(found), role=wanted)

    async def remove_member(self, actor: Actor, project_id: str, username: str) -> None:
        """A member other than the owner leaves the story."""
        async with self._managing(actor, project_id) as tx:
            found = _not_the_owner(await _member_named(tx, project_id, username), "remove")
            await tx.story.remove_member(project_id, found.member.user_id)

    async def hand_over(self, actor: Actor, project_id: str, username: str) -> list[Member]:
        """Another member becomes the story's owner; the old owner stays on as editor. The
        project's owner and both roles change in one transaction. Like the other changes of
        members, no revision: who works on a story is not its content, and no undo takes it back."""
        async with self._managing(actor, project_id) as tx:
            heir = await _member_named(tx, project_id, username)
            project = tx.project
            assert project is not None, "bound by _managing"
            if heir.member.user_id == project.owner_id:
                raise invalid(f'"{username}" owns this story already.')
            await tx.story.set_role(project_id, project.owner_id, Role.EDITOR.value)
            await tx.story.set_role(project_id, heir.member.user_id, Role.OWNER.value)
            handed = replace(project, owner_id=heir.member.user_id)
            await tx.story.save_project(handed)
            members = [_member(found) for found in await tx.story.members(project_id)]
        return members

    @asynccontextmanager
    async def _managing(self, actor: Actor, project_id: str) -> AsyncIterator[Mutation]:
        async with self.store.write(actor) as tx:
            await tx.project_by_id(project_id)
            tx.require(Right.MANAGE_MEMBERS)
            yield tx


async def _member_named(tx: Mutation, project_id: str, username: str) -> NamedMember:
    for found in await tx.story.members(project_id):
        if found.username == username:
            return found
    raise RomergoError("not_found", f'"{username}" is not a member of this story.')


def _not_owner(role: Role) -> Role:
    if role is Role.OWNER:
        raise invalid("A story has one owner: hand it over to make another member its owner.")
    return role


def _not_the_owner(found: NamedMember, doing: str) -> NamedMember:
    if found.member.role == Role.OWNER.value:
        raise invalid(f"You cannot {doing} the story's owner: hand the story over first.")
    return found


def _member(found: NamedMember) -> Member:
    record = found.member
    return Member(record.user_id, found.username, Role(record.role), record.added_at, record.added_by)

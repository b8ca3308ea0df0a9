"""A project's members and their roles, as the story ledger's transaction reads and writes them, and
the join by which a lookup of a project reads the asker's role with it (no second round trip:
the role comes in the statement that finds the project; the prebuilt Core statements of
`owners`, `scene_rows` and `chapter_rows` join the same way)."""

from __future__ import annotations

from typing import Any

from sqlalchemy import ColumnElement, and_, bindparam, delete, insert, update
from sqlalchemy import select as sa_select
from sqlmodel import col, select

from storage.core_tables import PROJECT_MEMBERS, USERS
from storage.records import columns_of, record_of
from storage.story.records import HeldProject, MemberRecord, NamedMember, ProjectRecord
from storage.story.transaction import Transaction
from storage.tables import Project, ProjectMember, User

OWNER = "owner"
"""The role the project's owner (`projects.owner_id`) holds as its member."""


def membership(project_id: Any) -> ColumnElement[bool]:
    """The join condition of the asker's (`member_id`) membership in a project: in an outer join,
    a project that is not theirs comes with no role."""
    return and_(
        col(ProjectMember.project_id) == project_id, col(ProjectMember.user_id) == bindparam("member_id")
    )


ROLE = col(ProjectMember.role)


class Membership:
    """The story ledger transaction's members (`SessionStoryTransaction`'s)."""

    session: Transaction

    async def projects_of(self, member_id: str) -> list[HeldProject]:
        found = await self.session.exec(_PROJECTS_OF, params={"member_id": member_id})
        return [HeldProject(record_of(ProjectRecord, project), role) for project, role in found.all()]

    async def members(self, project_id: str) -> list[NamedMember]:
        # Plain rows, not entities: a role just set by `set_role` is what is read back.
        found = await self.session.exec(_MEMBERS, params={"project_id": project_id})
        return [NamedMember(record_of(MemberRecord, row), row.username) for row in found.all()]

    async def account_named(self, username: str) -> str | None:
        found = await self.session.exec(_ACCOUNT_NAMED, params={"username": username})
        return found.first()

    async def add_member(self, record: MemberRecord) -> None:
        await self.session.exec(insert(PROJECT_MEMBERS), params=[columns_of(record)])

    async def set_role(self, project_id: str, user_id: str, role: str) -> None:
        params = {"the_project": project_id, "the_member": user_id, "new_role": role}
        await self.session.exec(_SET_ROLE, params=params)

    async def remove_member(self, project_id: str, user_id: str) -> None:
        await self.session.exec(_REMOVE, params={"the_project": project_id, "the_member": user_id})


_PROJECTS_OF = (
    select(Project, ProjectMember.role)
    .join(ProjectMember, membership(Project.id))
    .where(col(Project.deleted_at).is_(None))
    .order_by(col(Project.updated_at).desc())
)
_MEMBERS: Any = (
    sa_select(PROJECT_MEMBERS, USERS.c.username)
    .join(USERS, USERS.c.id == PROJECT_MEMBERS.c.user_id)
    .where(PROJECT_MEMBERS.c.project_id == bindparam("project_id"))
    .order_by(PROJECT_MEMBERS.c.added_at, USERS.c.username)
)
_ACCOUNT_NAMED = select(User.id).where(col(User.username) == bindparam("username"))
# Not named as the columns: an UPDATE keeps those names for the values it sets.
_THE_MEMBER = (
    PROJECT_MEMBERS.c.project_id == bindparam("the_project"),
    PROJECT_MEMBERS.c.user_id == bindparam("the_member"),
)
_SET_ROLE = update(PROJECT_MEMBERS).where(*_THE_MEMBER).values(role=bindparam("new_role"))
_REMOVE = delete(PROJECT_MEMBERS).where(*_THE_MEMBER)

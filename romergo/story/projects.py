"""Projects: create, rename, delete (soft), list. Publishing lives in `publishing`, members in
`members`."""

from __future__ import annotations

from dataclasses import dataclass, replace

from romergo.common.actors import Actor
from romergo.common.clock import utcnow
from romergo.common.config import Limits
from romergo.common.ids import new_id
from romergo.story import snapshots, validation
from romergo.story.base import Mutation, StoryStore, UnitOfWork
from romergo.story.ledger import ProjectRecord
from romergo.story.roles import Right, Role


@dataclass(frozen=True)
class ProjectService:
    store: StoryStore
    limits: Limits

    async def list_projects(self, actor: Actor) -> list[ProjectRecord]:
        """The projects the actor is a member of, the latest changed first."""
        return [project for project, _ in await self.projects_with_roles(actor)]

    async def projects_with_roles(self, actor: Actor) -> list[tuple[ProjectRecord, Role]]:
        """`list_projects`, each with the actor's role in it."""
        async with self.store.read(actor) as uow:
            held = await uow.story.projects_of(actor.user_id)
        return [(found.project, Role(found.role)) for found in held if found.role is not None]

    async def get_project(self, actor: Actor, project_id: str) -> ProjectRecord:
        async with self.store.read(actor) as uow:
            return await project_record(uow, project_id)

    async def create_project(self, actor: Actor, title: str) -> ProjectRecord:
        clean = validation.title(title, self.limits, "Project title")
        project = new_project(actor.user_id, clean)
        async with self.store.write(actor) as tx:
            await tx.story.add_project(project)
            await tx.project_by_id(project.id)
            tx.record("project", project.id, "created", None, snapshots.project(project))
        return as_written(tx, project)

    async def rename_project(self, actor: Actor, project_id: str, title: str) -> ProjectRecord:
        clean = validation.title(title, self.limits, "Project title")
        async with self.store.write(actor) as tx:
            project = await project_record(tx, project_id)
            renamed = replace(project, title=clean)
            await tx.story.save_project(renamed)
            before, after = snapshots.project(project), snapshots.project(renamed)
            tx.record("project", project.id, "updated", before, after)
        return as_written(tx, renamed)

    async def delete_project(self, actor: Actor, project_id: str) -> None:
        """Soft delete: the project disappears everywhere but its rows and history stay. Its
        owner's alone (`Right.DELETE_STORY`)."""
        async with self.store.write(actor) as tx:
            project = await project_record(tx, project_id)
            tx.require(Right.DELETE_STORY)
            gone = replace(project, deleted_at=utcnow(), published=False, share_id=None)
            await tx.story.put_published_story(project.id, None)
            await tx.story.save_project(gone)
            tx.record("project", project.id, "deleted", snapshots.project(project), None)


async def project_record(uow: UnitOfWork, project_id: str) -> ProjectRecord:
    """The actor's live project (`not_found` otherwise), the unit of work bound to it."""
    await uow.project_by_id(project_id)
    found = await uow.story.project(project_id)
    assert found is not None, "read in this transaction a moment ago"
    return found


def as_written(tx: Mutation, project: ProjectRecord) -> ProjectRecord:
    """`project` with the time the finished write stamped on it."""
    assert tx.project is not None
    return replace(project, updated_at=tx.project.updated_at)


def new_project(owner_id: str, title: str) -> ProjectRecord:
    """A project not yet written: unpublished, its title already checked."""
    now = utcnow()
    return ProjectRecord(
        id=new_id("prj"),
        owner_id=owner_id,
        title=title,
        created_at=now,
        updated_at=now,
        published=False,
        share_id=None,
        published_at=None,
        deleted_at=None,
    )

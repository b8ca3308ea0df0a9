"""Projects: create, rename, delete (soft), list. Publishing lives in `publishing`."""

from __future__ import annotations

from dataclasses import dataclass

from sqlmodel import col, select

from romergo.common.actors import Actor
from romergo.common.clock import utcnow
from romergo.common.config import Limits
from romergo.common.ids import new_id
from romergo.story import snapshots, validation
from romergo.story.base import StoryStore
from romergo.story.publishing import put_published_story
from storage.tables import Project


@dataclass(frozen=True)
class ProjectService:
    store: StoryStore
    limits: Limits

    async def list_projects(self, actor: Actor) -> list[Project]:
        async with self.store.read(actor) as uow:
            statement = (
                select(Project)
                .where(Project.owner_id == actor.user_id, col(Project.deleted_at).is_(None))
                .order_by(col(Project.updated_at).desc())
            )
            return list((await uow.session.exec(statement)).all())

    async def get_project(self, actor: Actor, project_id: str) -> Project:
        async with self.store.read(actor) as uow:
            return await uow.project_by_id(project_id)

    async def create_project(self, actor: Actor, title: str) -> Project:
        clean = validation.title(title, self.limits, "Project title")
        now = utcnow()
        project = Project(
            id=new_id("prj"), owner_id=actor.user_id, title=clean, created_at=now, updated_at=now
        )
        async with self.store.write(actor) as tx:
            tx.session.add(project)
            tx.project = project
            await tx.session.flush()
            tx.record("project", project.id, "created", None, snapshots.project(project))
        return project

    async def rename_project(self, actor: Actor, project_id: str, title: str) -> Project:
        clean = validation.title(title, self.limits, "Project title")
        async with self.store.write(actor) as tx:
            project = await tx.project_by_id(project_id)
            before = snapshots.project(project)
            project.title = clean
            tx.session.add(project)
            tx.record("project", project.id, "updated", before, snapshots.project(project))
        return project

    async def delete_project(self, actor: Actor, project_id: str) -> None:
        """Soft delete: the project disappears everywhere but its rows and history stay."""
        async with self.store.write(actor) as tx:
            project = await tx.project_by_id(project_id)
            before = snapshots.project(project)
            project.deleted_at = utcnow()
            project.published = False
            project.share_id = None
            await put_published_story(tx, project.id, None)
            tx.session.add(project)
            tx.record("project", project.id, "deleted", before, None)

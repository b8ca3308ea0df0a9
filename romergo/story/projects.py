"""Projects: create, rename, delete (soft), list, and publish snapshots."""

from __future__ import annotations

from typing import Any

from sqlmodel import col, select

from romergo.actors import Actor
from romergo.clock import utcnow
from romergo.errors import RomergoError
from romergo.ids import new_id, new_secret
from romergo.story import snapshots, validation
from romergo.story.reads import StoryReads
from storage.tables import Project


class ProjectOps(StoryReads):
    async def list_projects(self, actor: Actor) -> list[Project]:
        async with self.db.read() as session:
            statement = (
                select(Project)
                .where(Project.owner_id == actor.user_id, col(Project.deleted_at).is_(None))
                .order_by(col(Project.updated_at).desc())
            )
            return list((await session.exec(statement)).all())

    async def get_project(self, actor: Actor, project_id: str) -> Project:
        async with self._read(actor) as uow:
            return await uow.project_by_id(project_id)

    async def create_project(self, actor: Actor, title: str) -> Project:
        clean = validation.title(title, self.limits, "Project title")
        now = utcnow()
        project = Project(
            id=new_id("prj"), owner_id=actor.user_id, title=clean, created_at=now, updated_at=now
        )
        async with self._write(actor) as tx:
            tx.session.add(project)
            tx.project = project
            await tx.session.flush()
            tx.record("project", project.id, "created", None, snapshots.project(project))
        return project

    async def rename_project(self, actor: Actor, project_id: str, title: str) -> Project:
        clean = validation.title(title, self.limits, "Project title")
        async with self._write(actor) as tx:
            project = await tx.project_by_id(project_id)
            before = snapshots.project(project)
            project.title = clean
            tx.session.add(project)
            tx.record("project", project.id, "updated", before, snapshots.project(project))
        return project

    async def delete_project(self, actor: Actor, project_id: str) -> None:
        """Soft delete: the project disappears everywhere but its rows and history stay."""
        async with self._write(actor) as tx:
            project = await tx.project_by_id(project_id)
            before = snapshots.project(project)
            project.deleted_at = utcnow()
            project.published = False
            project.share_id = None
            project.published_snapshot = None
            tx.session.add(project)
            tx.record("project", project.id, "deleted", before, None)

    async def publish_project(self, actor: Actor, project_id: str) -> Project:
        """Freeze the story as it is now into a read-only snapshot behind a share link.

        Publishing again refreshes the snapshot and keeps the link; unpublishing kills the link.
        """
        snapshot = await self.published_view(actor, project_id)
        async with self._write(actor) as tx:
            project = await tx.project_by_id(project_id)
            before = snapshots.project(project)
            project.published = True
            project.share_id = project.share_id or new_secret(12)
            project.published_at = utcnow()
            project.published_snapshot = snapshot
            tx.session.add(project)
            tx.record("project", project.id, "updated", before, snapshots.project(project))
        return project

    async def unpublish_project(self, actor: Actor, project_id: str) -> Project:
        async with self._write(actor) as tx:
            project = await tx.project_by_id(project_id)
            if not project.published:
                raise RomergoError("conflict", f'Project "{project.title}" is not published.')
            before = snapshots.project(project)
            project.published = False
            project.share_id = None
            project.published_snapshot = None
            project.published_at = None
            tx.session.add(project)
            tx.record("project", project.id, "updated", before, snapshots.project(project))
        return project

    async def published_snapshot(self, share_id: str) -> dict[str, Any] | None:
        """The public, read-only story behind a share link; None when there is none."""
        if not isinstance(share_id, str) or not share_id:
            return None
        async with self.db.read() as session:
            statement = select(Project).where(Project.share_id == share_id, col(Project.published))
            project = (await session.exec(statement)).first()
            if project is None or project.deleted_at is not None:
                return None
            return project.published_snapshot

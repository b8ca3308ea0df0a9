"""`/projects/{id}`: the story's outline (chapters and scenes), its title, publishing and deletion."""

from __future__ import annotations

from nicegui import ui

from romergo.channels import rooms_topic
from romergo.common import urls
from romergo.story.roles import Role, article
from romergo.story.views import Outline
from ui.actions import act
from ui.components.buttons import icon_button
from ui.components.dialogs import RENAME_STORY, ask_for_change, confirm
from ui.components.publish import publish_card
from ui.components.story_tree import TreeState, story_tree
from ui.context import PageContext
from ui.frame import SectionPage
from ui.live import watch


async def page(ctx: PageContext, project_id: str) -> None:
    ctx.place.enter(urls.project(project_id), "project", project_id=project_id)
    await _StoryPage(ctx, project_id).open()


class _StoryPage(SectionPage[Outline]):
    def __init__(self, ctx: PageContext, project_id: str) -> None:
        super().__init__(ctx, project_id)
        self.tree_state = TreeState()

    async def open(self) -> None:
        # The marks of a room's reach follow its settings (watched before the first read, like the story).
        rooms = watch(self.ctx, rooms_topic(self.project_id), self.reload)
        await super().open()
        if self.current is None:
            rooms.delete()

    async def load(self) -> Outline:
        self.tree_state.outside = await self._outside_the_room()
        return await self.services.reads.outline(self.ctx.actor, self.project_id)

    async def _outside_the_room(self) -> frozenset[str]:
        """The chapters a live room limited to others leaves out (marked in the tree)."""
        channels = await self.services.channels.owner.channels_of_project(self.ctx.user.id, self.project_id)
        live = next((channel for channel in channels if channel.state == "live"), None)
        if live is None or live.scope is None:
            return frozenset()
        covered = set(live.scope["chapter_ids"])
        chapters = await self.services.reads.chapter_ids(self.ctx.actor, self.project_id)
        return frozenset(chapter_id for chapter_id in chapters if chapter_id not in covered)

    def draw(self, outline: Outline) -> None:
        with ui.row().classes("w-full items-center gap-1"):
            ui.label(outline.project.title).classes("text-h5").props('data-testid="project-title"')
            icon_button("edit", "Rename the story", self.rename)
            ui.space()
            icon_button("delete", "Delete the story", self.delete)
        if outline.role is not None and outline.role is not Role.OWNER:
            # Why nothing the role withholds works here: the core refuses it, this says so up front.
            ui.label(f"You are {article(outline.role)} {outline.role.value} of this story").classes(
                "text-grey-8"
            ).props('role="status" data-testid="your-role"')
        publish_card(self.ctx, outline.project)
        story_tree(self.ctx, self.host, outline, self.tree_state)

    def key(self, outline: Outline) -> object:
        """A change to a line or an asset elsewhere leaves the tree (and its focus) be."""
        project = outline.project
        chapters = tuple(
            (
                entry.chapter.id,
                entry.chapter.title,
                tuple((s.id, s.title, s.is_start, s.is_ending) for s in entry.scenes),
            )
            for entry in outline.chapters
        )
        return (
            project.title,
            project.published,
            project.share_id,
            chapters,
            self.tree_state.outside,
            outline.role,
        )

    # ---- changes -------------------------------------------------------------------------------

    async def rename(self) -> None:
        await ask_for_change(
            self.ctx,
            self.host,
            RENAME_STORY,
            lambda text: self.services.projects.rename_project(self.ctx.actor, self.project_id, text),
            value=self.current.project.title if self.current else "",
        )

    async def delete(self) -> None:
        title = self.current.project.title if self.current else "this story"
        if await confirm(
            self.host,
            title=f"Delete “{title}”?",
            message="The story goes, with its chapters, scenes and assets; its share link stops working.",
        ):
            done = await act(
                self.ctx, lambda: self.services.projects.delete_project(self.ctx.actor, self.project_id)
            )
            if done.ok:
                ui.navigate.to(urls.PROJECTS)

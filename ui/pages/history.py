"""`/projects/{id}/history`: the latest changes to the story: who changed what, and when."""

from __future__ import annotations

from nicegui import ui

from romergo import urls
from romergo.story.views import RevisionView
from ui.context import PageContext
from ui.frame import Listing, ListingPage

ENTITY_NAMES = {
    "project": "story",
    "chapter": "chapter",
    "scene": "scene",
    "dialogue_line": "line",
    "choice": "choice",
    "character": "character",
    "asset": "asset",
}
SHOWN = 200


async def page(ctx: PageContext, project_id: str) -> None:
    ctx.place.enter(urls.history(project_id), "history", project_id=project_id)
    await _HistoryPage(ctx, project_id).open()


class _HistoryPage(ListingPage[RevisionView]):
    nav = "history"
    heading = "History"

    async def items(self) -> list[RevisionView]:
        return await self.services.reads.history(self.ctx.actor, self.project_id, limit=SHOWN)

    def key(self, loaded: Listing[RevisionView]) -> object:
        return tuple((view.revision.id, view.title) for view in loaded.items)

    def draw(self, loaded: Listing[RevisionView]) -> None:
        ui.label("History").classes("text-h5")
        ui.label(f"The latest {SHOWN} changes, newest first.").classes("text-caption text-grey-7")
        with ui.column().classes("w-full gap-0").props('role="list" aria-label="Changes"'):
            for view in loaded.items:
                self._revision(view)

    def _revision(self, view: RevisionView) -> None:
        revision = view.revision
        what = ENTITY_NAMES.get(revision.entity_type, revision.entity_type)
        with (
            ui.row()
            .classes("w-full items-baseline gap-3 px-2 py-1 border-b")
            .props('role="listitem" data-testid="revision"')
        ):
            ui.label(f"{revision.created_at:%Y-%m-%d %H:%M:%S}").classes("text-caption text-grey-7 w-36")
            ui.label(self._who(revision.actor_type, revision.actor_id, revision.tool)).classes(
                "w-40 text-weight-medium"
            )
            ui.label(f"{revision.action} {what}").classes("w-36")
            if revision.entity_type in ("scene", "chapter") and revision.action != "deleted":
                page = urls.scene if revision.entity_type == "scene" else urls.chapter
                ui.link(view.title, page(self.project_id, revision.entity_id))
            else:
                ui.label(view.title).classes("text-grey-9")

    def _who(self, actor_type: str, actor_id: str, tool: str | None) -> str:
        if actor_type == "user":
            return "you" if actor_id == self.ctx.user.id else "another user"
        if actor_type == "system":
            return "Romergo"
        return f"agent ({tool})" if tool else "agent"

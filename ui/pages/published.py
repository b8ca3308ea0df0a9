"""`/published/{share_id}`: a published story, read-only, for anyone with the link.

It plays the snapshot frozen at publishing time (never the live project) and shows no editing
controls; its media come from `/published/{share_id}/media/...`, which serves only the assets the
snapshot uses. Unpublishing makes the link a not-found page.
"""

from __future__ import annotations

from nicegui import ui

from romergo.common import urls
from romergo.services import Services
from romergo.story.playback import from_snapshot
from ui.components.not_found import not_found
from ui.components.player import Player


def register(services: Services) -> None:
    @ui.page(urls.PUBLISHED_ROUTE, title="Romergo")
    async def published_page(share_id: str) -> None:
        snapshot = await services.publishing.published_snapshot(share_id)
        if snapshot is None:
            not_found("story", back=(urls.LOGIN, "Romergo"))
            return
        story = from_snapshot(snapshot)
        ui.page_title(f"{story.title} · Romergo")
        with ui.column().classes("w-full max-w-4xl mx-auto p-4 gap-3"):
            ui.label(story.title).classes("text-h4").props('data-testid="published-title"')
            ui.label("A story made with Romergo. Read-only.").classes("text-caption text-grey-7")
            player = Player(story, lambda asset_id: urls.published_media(share_id, asset_id))
            player.start(None)

"""`/play/{id}?scene=...`: play the story as a reader would, from the start or from any scene.

The URL follows the player from scene to scene (without a new history entry), so a reload
continues in the same scene. The story is the live one: edits show up while playing.
"""

from __future__ import annotations

from nicegui import ui

from romergo.bus import project_topic
from romergo.errors import RomergoError
from romergo.story.playback import PlayStory, from_project
from romergo.story.views import ProjectData
from ui.components.not_found import not_found
from ui.components.player import Player
from ui.components.project_nav import project_nav
from ui.context import PageContext
from ui.live import watch


async def page(ctx: PageContext, project_id: str, scene: str | None = None) -> None:
    base = f"/play/{project_id}"
    ctx.place.enter(f"{base}?scene={scene}" if scene else base, "play", project_id=project_id, scene_id=scene)

    async def load() -> ProjectData | None:
        try:
            return await ctx.services.reads.project_data(ctx.actor, project_id)
        except RomergoError:
            return None

    data = await load()
    if data is None:
        not_found("project")
        return
    story = from_project(data)
    ui.page_title(f"Play · {story.title} · Romergo")

    with ui.column().classes("w-full gap-3"):
        project_nav(data.project, "play")
        with ui.row().classes("w-full items-center gap-2"):
            picker = (
                ui.select(_scene_options(story), label="Start from", with_input=True)
                .props("outlined dense")
                .classes("w-80")
            )
            play_scene = ui.button("Play this scene").props("outline color=primary")
            play_start = ui.button("Play from the start").props("unelevated color=primary")
            ui.space()
            edit_link = ui.button("Edit this scene", icon="edit").props("flat color=primary")

        def moved(scene_id: str) -> None:
            route = f"{base}?scene={scene_id}"
            ctx.place.route, ctx.place.scene_id = route, scene_id
            ui.navigate.history.replace(route)
            edit_link.props(f'href="/projects/{project_id}/scenes/{scene_id}"')

        player = Player(story, lambda asset_id: f"/media/{asset_id}", on_scene=moved)
        play_scene.on_click(lambda: player.start(picker.value))
        play_start.on_click(lambda: player.start(None))
        player.start(scene)

    async def reload() -> None:
        current = await load()
        if current is not None:
            changed = from_project(current)
            picker.set_options(
                _scene_options(changed), value=picker.value if changed.scene(picker.value) else None
            )
            player.update_story(changed)

    watch(ctx, project_topic(project_id), reload)


def _scene_options(story: PlayStory) -> dict[str, str]:
    return {scene.id: f"{scene.chapter_title} › {scene.title}" for scene in story.scenes}

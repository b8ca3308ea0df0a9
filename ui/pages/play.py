"""`/play/{id}?scene=...`: play the story as a reader would, from the start or from any scene.

The URL follows the player from scene to scene (without a new history entry), so a reload
continues in the same scene. The story is the live one: edits show up while playing.
"""

from __future__ import annotations

from nicegui import ui

from romergo.common import urls
from romergo.story.playback import PlayStory, from_project
from romergo.story.views import ProjectData
from ui.components.player import Player
from ui.components.state_drawer import StateDrawer
from ui.context import PageContext
from ui.frame import ProjectPage


async def page(ctx: PageContext, project_id: str, scene: str | None = None) -> None:
    ctx.place.enter(urls.play(project_id, scene), "play", project_id=project_id, scene_id=scene)
    await _PlayPage(ctx, project_id, scene).open()


class _PlayPage(ProjectPage[ProjectData]):
    nav = "play"
    heading = "Play"

    def __init__(self, ctx: PageContext, project_id: str, scene_id: str | None) -> None:
        super().__init__(ctx, project_id)
        self.first_scene = scene_id
        self.picker: ui.select | None = None
        self.player: Player | None = None
        self.drawer: StateDrawer | None = None

    async def load(self) -> ProjectData:
        return await self.services.reads.project_data(self.ctx.actor, self.project_id)

    def build(self, loaded: ProjectData) -> None:
        story = from_project(loaded)
        with ui.row().classes("w-full items-center gap-2"):
            picker = (
                ui.select(_scene_options(story), label="Start from", with_input=True)
                .props("outlined dense")
                .classes("w-80")
            )
            play_scene = ui.button("Play this scene").props("outline color=primary")
            play_start = ui.button("Play from the start").props("unelevated color=primary")
            ui.space()
            self.edit_link = ui.button("Edit this scene", icon="edit").props("flat color=primary")
            self.edit_link.visible = False  # until the player is in a scene
        player = Player(story, urls.media, on_scene=self.moved, on_state=self.state_moved)
        self.drawer = StateDrawer(story, player, urls.variables(self.project_id))
        # "Play this scene" keeps the values as they are (set them in the drawer first); "Play
        # from the start" is a fresh play-through with the starting values.
        play_scene.on_click(lambda: player.start(picker.value, dict(player.state)))
        play_start.on_click(lambda: player.start(None))
        self.picker, self.player = picker, player
        player.start(self.first_scene)

    def show(self, loaded: ProjectData) -> None:
        if self.picker is None or self.player is None:
            return
        story = from_project(loaded)
        chosen = self.picker.value
        self.picker.set_options(_scene_options(story), value=chosen if story.scene(chosen) else None)
        if self.drawer is not None:
            self.drawer.story = story
        self.player.update_story(story)

    def state_moved(self, _state: object) -> None:
        if self.drawer is not None:
            self.drawer.follow()

    def moved(self, scene_id: str) -> None:
        """The player went on to another scene: the URL, the tab's place and "Edit" follow it."""
        route = urls.play(self.project_id, scene_id)
        self.ctx.place.route, self.ctx.place.scene_id = route, scene_id
        ui.navigate.history.replace(route)
        self.edit_link.props["href"] = urls.scene(self.project_id, scene_id)
        self.edit_link.visible = True
        self.edit_link.update()


def _scene_options(story: PlayStory) -> dict[str, str]:
    return {scene.id: f"{scene.chapter_title} › {scene.title}" for scene in story.scenes}

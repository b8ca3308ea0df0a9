"""The play-through: background, speaker and line one at a time, music, choices, endings.

Used by the author's `/play/{id}` (live story) and by the public `/published/{share_id}` (frozen
snapshot); `media_url` says where each of them serves asset bytes. Keys: → for the next line (and
Space / Enter on the focused Next button), 1-9 for a choice.

The player keeps the story's state: entering a scene applies its entry effects, picking
a choice its effects, and only the lines and choices whose conditions hold are shown. `state` and
`set_value` are what the play page's debug drawer reads and changes; `on_state` tells it when the
state moved on by itself.
"""

from __future__ import annotations

from collections.abc import Callable

from nicegui import ui
from nicegui.events import KeyEventArguments

from romergo.story.playback import PlayChoice, PlayLine, PlayScene, PlayStory
from romergo.story.state.expressions import Value

MediaUrl = Callable[[str], str]
SceneChanged = Callable[[str], None]
StateChanged = Callable[[dict[str, Value]], None]


class Player:
    def __init__(
        self,
        story: PlayStory,
        media_url: MediaUrl,
        *,
        on_scene: SceneChanged | None = None,
        on_state: StateChanged | None = None,
    ) -> None:
        self.story = story
        self.media_url = media_url
        self.on_scene = on_scene
        self.on_state = on_state
        self.scene_id: str | None = None
        self.state: dict[str, Value] = story.start_state()
        self.line = 0
        self.music_id: str | None = None
        self.line_parts: tuple[ui.column, ui.label, ui.label] | None = None
        with ui.column().classes("w-full gap-2").props('data-testid="player"'):
            self._stage()
            self.music_box = ui.element("div").classes("w-full")
        self.audio: ui.audio | None = None
        # Buttons are not ignored (the focused Next button would swallow →); Space and Enter are left
        # to the focused button itself, so they never count twice.
        ui.keyboard(on_key=self._key, ignore=["input", "select", "textarea"])

    def start(self, scene_id: str | None, state: dict[str, Value] | None = None) -> None:
        """Begin (again) at `scene_id`, or at the story's start scene when it is None or unknown,
        with the starting values or, from the debug drawer, chosen ones."""
        scene = self.story.scene(scene_id) or self.story.scene(self.story.start_scene_id)
        self.state = self.story.start_state() | (state or {})
        self._go(scene.id if scene else None)

    def set_value(self, name: str, value: Value) -> None:
        """The author changed a variable while playing: what shows follows at once."""
        self.set_state(self.state | {name: value})

    def set_state(self, state: dict[str, Value]) -> None:
        scene = self.story.scene(self.scene_id)
        at_choices = scene is not None and self.line >= len(self._lines(scene))
        self.state = dict(state)
        if scene is not None:
            # At the choices the player stays there (to see which ones the new values open);
            # within the lines, at the same place as far as the lines now shown go.
            shown = len(self._lines(scene))
            self.line = shown if at_choices else min(self.line, shown)
        self._stage.refresh()

    def update_story(self, story: PlayStory) -> None:
        """The story changed while playing: stay on the same scene and line where they still exist."""
        if story == self.story:
            return  # e.g. a new revision of something the player does not show
        self.story = story
        # Variables added or removed meanwhile: keep the values of those that still exist.
        self.state = story.start_state() | {k: v for k, v in self.state.items() if k in story.start_state()}
        scene = story.scene(self.scene_id)
        if scene is not None:
            self.line = min(self.line, len(self._lines(scene)))
        self._music(scene)
        self._stage.refresh()
        self._state_changed()

    # ---- drawing -------------------------------------------------------------------------------

    @ui.refreshable_method
    def _stage(self) -> None:
        self.line_parts = None
        scene = self.story.scene(self.scene_id)
        if scene is None:
            message = (
                "This story has no start scene yet: mark one as the start, or pick a scene above."
                if self.scene_id is None
                else "This scene no longer exists."
            )
            ui.label(message).classes("text-grey-7").props('role="status"')
            if self.scene_id is not None and self.story.start_scene_id is not None:
                ui.button("Play from the start", on_click=lambda: self.start(None)).props(
                    "outline color=primary"
                )
            return
        ui.label(f"{scene.chapter_title} › {scene.title}").classes("text-caption text-grey-7").props(
            'data-testid="player-scene"'
        )
        with (
            ui.element("div")
            .classes("relative w-full rounded overflow-hidden bg-grey-9")
            .style("aspect-ratio: 16 / 9")
        ):
            if scene.background_asset_id:
                image = ui.image(self.media_url(scene.background_asset_id)).classes(
                    "absolute inset-0 w-full h-full"
                )
                image.props["alt"] = f"Background of {scene.title}"
                image.props["data-testid"] = "player-background"
            box = ui.column().classes("absolute bottom-0 left-0 right-0 p-4 gap-2 bg-black/70 text-white")
            box.props(f'data-testid="player-box" data-line="{self.line}"')
            with box:
                self._text_box(box, scene)

    def _text_box(self, box: ui.column, scene: PlayScene) -> None:
        if self.line < len(self._lines(scene)):
            speaker = (
                ui.label().classes("text-subtitle1 text-weight-bold").props('data-testid="player-speaker"')
            )
            text = ui.label().classes("text-body1 whitespace-pre-wrap").props('data-testid="player-line"')
            ui.button("Next", icon="navigate_next", on_click=self.next_line).props(
                'color=white text-color=black unelevated aria-label="Next line" autofocus'
            ).classes("self-end")
            self.line_parts = (box, speaker, text)
            self._show_line(scene)
            return
        shown = self._choices(scene)
        if shown:
            with ui.column().classes("w-full gap-2").props('role="group" aria-label="Choices"'):
                for number, choice in enumerate(shown, start=1):
                    button = ui.button(choice.label, on_click=lambda c=choice: self._pick(c))
                    button.props("color=white text-color=black unelevated no-caps").classes("w-full")
                    if choice.target_scene_id is None:
                        button.disable()
                    if number == 1:
                        button.props("autofocus")
            return
        if scene.is_ending:
            ending = "The End"
        elif scene.choices:
            ending = "The story stops here: no choice is open with what has happened so far."
        else:
            ending = "The story stops here: this scene has no choices."
        ui.label(ending).classes("text-h5" if scene.is_ending else "text-body1").props(
            'data-testid="player-end"'
        )
        ui.button("Play again", on_click=lambda: self.start(None)).props(
            "color=white text-color=black unelevated"
        )

    # ---- moving on -----------------------------------------------------------------------------

    def next_line(self) -> None:
        scene = self.story.scene(self.scene_id)
        if scene is not None and self.line < len(self._lines(scene)):
            self.line += 1
            if self.line < len(self._lines(scene)) and self.line_parts is not None:
                self._show_line(scene)  # in place: the background stays, a second click still lands
            else:
                self._stage.refresh()

    def _show_line(self, scene: PlayScene) -> None:
        assert self.line_parts is not None
        box, speaker, text = self.line_parts
        line = self._lines(scene)[self.line]
        box.props(f'data-line="{self.line}"')
        speaker.text = line.speaker or ""
        speaker.style(replace=f"color: {line.color}" if line.color else "")
        text.text = line.text

    def _pick(self, choice: PlayChoice) -> None:
        if choice.target_scene_id is not None:
            self.state = self.story.pick(choice, self.state)
            self._go(choice.target_scene_id)

    def _go(self, scene_id: str | None) -> None:
        self.scene_id = scene_id
        self.line = 0
        scene = self.story.scene(scene_id)
        if scene is not None:
            self.state = self.story.enter(scene, self.state)
        self._music(scene)
        self._stage.refresh()
        if scene is not None and self.on_scene is not None:
            self.on_scene(scene.id)
        self._state_changed()

    def _state_changed(self) -> None:
        if self.on_state is not None:
            self.on_state(dict(self.state))

    def _lines(self, scene: PlayScene) -> list[PlayLine]:
        return self.story.lines_shown(scene, self.state)

    def _choices(self, scene: PlayScene) -> list[PlayChoice]:
        return self.story.choices_shown(scene, self.state)

    def _music(self, scene: PlayScene | None) -> None:
        wanted = scene.music_asset_id if scene else None
        if wanted == self.music_id:
            return  # the same music keeps playing across scenes instead of starting over
        self.music_id = wanted
        if wanted is None:
            if self.audio is not None:
                self.audio.pause()
                self.audio.visible = False
            return
        url = self.media_url(wanted)
        if self.audio is None:
            # Made on first use: an <audio> with an empty source would fetch the page itself.
            with self.music_box:
                self.audio = ui.audio(url, loop=True, autoplay=True).classes("w-full")
                self.audio.props["data-testid"] = "player-music"
        else:
            self.audio.set_source(url)
            self.audio.visible = True

    def _key(self, event: KeyEventArguments) -> None:
        if not event.action.keydown or event.action.repeat:
            return
        key = event.key
        if key.arrow_right:
            self.next_line()
        elif key.number is not None and 1 <= key.number <= 9:
            scene = self.story.scene(self.scene_id)
            shown = self._choices(scene) if scene else []
            if scene and self.line >= len(self._lines(scene)) and key.number <= len(shown):
                self._pick(shown[key.number - 1])

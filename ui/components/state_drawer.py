"""The play-through's debug drawer: the story's variables as they are at this point of
the play-through, each one editable, so the author can try what a choice does with other values
and start any scene with chosen ones. Only the author's play page has it; the published page,
which readers see, never does.
"""

from __future__ import annotations

from nicegui import ui

from romergo.story.playback import PlayStory, PlayVariable
from romergo.story.state.expressions import Value
from romergo.story.state.numbers import in_range
from ui.components.numbers import NUMBER_IN_RANGE
from ui.components.player import Player


class StateDrawer:
    def __init__(self, story: PlayStory, player: Player, variables_url: str) -> None:
        self.story = story
        self.player = player
        self.variables_url = variables_url
        with (
            ui.expansion("Story state", icon="tune", caption="Debug: the variables as they are now")
            .classes("w-full")
            .props('data-testid="state-drawer" dense header-class="text-primary"') as self.box
        ):
            self._body()

    def follow(self, story: PlayStory | None = None) -> None:
        """The play-through moved on (or the story changed): show the values as they are now."""
        if story is not None:
            self.story = story
        self._body.refresh()

    @ui.refreshable_method
    def _body(self) -> None:
        if not self.story.variables:
            with ui.row().classes("items-center gap-2"):
                ui.label("This story has no variables yet.").classes("text-grey-7")
                ui.link("Add some", self.variables_url)
            return
        with ui.column().classes("w-full gap-1"):
            for variable in self.story.variables:
                self._field(variable, self.player.state.get(variable.name, variable.initial))
            with ui.row().classes("gap-2"):
                ui.button("Reset to the starting values", on_click=self._reset).props("flat dense no-caps")
        ui.label(
            'Changing a value shows at once which lines and choices hold. "Play this scene" starts '
            "the chosen scene with these values."
        ).classes("text-caption text-grey-7")

    def _field(self, variable: PlayVariable, value: Value) -> None:
        name = variable.name
        testid = f'data-testid="state-{name}"'
        if variable.type == "flag":
            ui.switch(
                name, value=bool(value), on_change=lambda e: self.player.set_value(name, bool(e.value))
            ).props(testid)
        elif variable.type == "number":
            ui.number(
                name,
                value=value if isinstance(value, int | float) else 0,
                validation=NUMBER_IN_RANGE,
                on_change=lambda e: self._number(name, e.value),
            ).props(f"dense outlined {testid}").classes("w-60")
        else:
            ui.input(
                name, value=str(value), on_change=lambda e: self.player.set_value(name, str(e.value or ""))
            ).props(f"dense outlined {testid}").classes("w-60")

    def _number(self, name: str, value: object) -> None:
        # Half-typed ("-"), emptied, past what JSON can carry ("1e999" arrives as null) or past the
        # numbers a story holds: keep the last number rather than play on with one no rule expects.
        if isinstance(value, bool) or not isinstance(value, int | float) or not in_range(value):
            return
        self.player.set_value(name, int(value) if float(value).is_integer() else float(value))

    def _reset(self) -> None:
        self.player.set_state(self.story.start_state())
        self._body.refresh()

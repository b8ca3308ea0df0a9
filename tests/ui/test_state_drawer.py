"""The play page's debug drawer: what the author types changes the play-through at once, and what is
not a value of the variable's type changes nothing."""

from __future__ import annotations

from nicegui import Client, ui

from romergo.story.playback import from_snapshot
from tests.support.waiting import until
from ui.components.player import Player
from ui.components.state_drawer import StateDrawer

STORY = {
    "title": "The Lighthouse",
    "variables": [
        {"name": "coins", "type": "number", "initial": 2},
        {"name": "password", "type": "text", "initial": ""},
    ],
    "chapters": [
        {
            "title": "One",
            "scenes": [
                {
                    "id": "scn_door",
                    "title": "The Door",
                    "is_start": True,
                    "lines": [{"text": "A door."}],
                    "choices": [
                        {"label": "Pay the keeper", "target_scene_id": "scn_door", "condition": "coins >= 3"},
                        {
                            "label": "Say the word",
                            "target_scene_id": "scn_door",
                            "condition": 'password == "salt"',
                        },
                    ],
                }
            ],
        }
    ],
}


def field(tab: Client, name: str) -> ui.number | ui.input:
    return next(
        e
        for e in tab.elements.values()
        if isinstance(e, ui.number | ui.input) and e.props.get("label") == name
    )


def choices_shown(tab: Client) -> list[str]:
    return [
        e.text
        for e in tab.elements.values()
        if isinstance(e, ui.button)
        and not e.is_deleted
        and e.text
        in (
            "Pay the keeper",
            "Say the word",
        )
    ]


async def shows(tab: Client, labels: list[str]) -> None:
    """The player redraws on the loop's next turn (NiceGUI's refresh is a task)."""
    await until(lambda: choices_shown(tab) == labels, what=f"the choices {labels}")


async def test_typed_values_open_choices_and_non_numbers_change_nothing(client: Client) -> None:
    with client:
        story = from_snapshot(STORY)
        player = Player(story, lambda asset_id: f"/media/{asset_id}")
        StateDrawer(story, player, "/projects/prj/variables")
        player.start(None)
        player.line = len(story.scenes[0].lines)  # at the choices
        player.set_state(player.state)
        await shows(client, [])

        coins = field(client, "coins")
        coins.value = 3
        assert player.state["coins"] == 3
        await shows(client, ["Pay the keeper"])
        # What the browser sends for "-", an emptied field or "1e999" (JSON has no Infinity): null.
        coins.value = None
        assert player.state["coins"] == 3
        coins.value = 2.5
        assert player.state["coins"] == 2.5
        await shows(client, [])

        password = field(client, "password")
        password.value = "salt"
        await shows(client, ["Say the word"])
        password.value = None  # a cleared field is the empty text, not "None"
        assert player.state["password"] == ""

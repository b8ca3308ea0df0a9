"""A command's changes as the author reviews them: each choice change in words, its rules included."""

from __future__ import annotations

from nicegui import Client, ui

from romergo.story.review import ChoiceChange, EntityReview
from ui.components.change_review import change_review


def texts(tab: Client) -> list[str]:
    return [e.text for e in tab.elements.values() if isinstance(e, ui.label) and not e.is_deleted]


async def test_choice_rules_read_as_words_with_always_and_nothing_for_none(client: Client) -> None:
    scene = EntityReview(
        "scene",
        "scn_aaaaaaaaaaaaaaaa",
        "The Beacon",
        "updated",
        "scn_aaaaaaaaaaaaaaaa",
        None,
        choices=[
            ChoiceChange("condition", "Signal the ship", before_rule="lens_mended", after_rule=None),
            ChoiceChange("effects", "Wait", before_rule=None, after_rule="set visits = visits + 1"),
            ChoiceChange(
                "added", "Knock", after_target="The Door", condition="not has_key", effects="set visits = 0"
            ),
            ChoiceChange("added", "Leave", after_target=None),
        ],
    )
    with client:
        change_review("prj_aaaaaaaaaaaaaaaa", [scene])
    shown = texts(client)
    assert "Choice “Signal the ship” offered only when: lens_mended → always" in shown
    assert "Choice “Wait” when picked: nothing → set visits = visits + 1" in shown
    assert (
        "Choice added: “Knock” → The Door; offered only when not has_key; when picked: set visits = 0"
        in shown
    )
    assert "Choice added: “Leave” → nowhere yet" in shown

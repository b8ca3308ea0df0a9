"""A Harlowe 3 story in Twee: `(link-goto:)`, `(link:)[(go-to:)]` and `(go-to:)` become choices,
startup and header passages are no scenes, and macros stay as text, noted, never a speaker."""

from __future__ import annotations

from romergo.common.actors import Actor
from romergo.services import Services
from tests.support.twine_stories import imported, line_of, played

HARLOWE_STORY = """\
:: StoryTitle
The Lighthouse

:: StoryData
{"ifid": "5A3B0F6E-0C3E-4C59-9E7D-1F3C8E0B2A11", "format": "Harlowe", "format-version": "3.3.9",
 "start": "Shore"}

:: Setup [startup]
(set: $lamp to false)

:: Banner [header]
(print: $lamp)

:: Shore
The waves are loud.
Mara: We should go up.
(link-goto: "Climb the stairs", "Stairs")
(link-goto: 'Cellar')
(link: "Swim out")[(go-to: "Sea")]
(set: $lamp to true)

:: Stairs
(if: $lamp)[The lamp burns.](else:)[It is dark.]
[[Back down->Shore]]
(go-to: "Top")

:: Cellar
(goto: "Top")
Dust.

:: Top [ending]
You see the ship.

:: Sea [ending]
Cold water.
"""


async def test_harlowe_navigation_becomes_choices(services: Services, actor: Actor) -> None:
    story = await imported(services, actor, "lighthouse.twee", HARLOWE_STORY)
    assert list(story.scenes) == ["Shore", "Stairs", "Cellar", "Top", "Sea"]
    assert story.scenes["Shore"] == {
        "start": True,
        "lines": [
            (None, "The waves are loud."),
            ("Mara", "We should go up."),
            (None, "(set: $lamp to true)"),
        ],
        "choices": [("Climb the stairs", "Stairs"), ("Cellar", "Cellar"), ("Swim out", "Sea")],
    }
    assert story.scenes["Stairs"]["lines"] == [(None, "(if: $lamp)[The lamp burns.](else:)[It is dark.]")]
    assert story.scenes["Stairs"]["choices"] == [("Back down", "Shore"), ("Continue", "Top")]
    assert story.scenes["Cellar"] == {
        "start": False,
        "lines": [(None, "Dust.")],
        "choices": [("Continue", "Top")],
    }


async def test_harlowe_code_is_noted_by_line_and_its_special_passages_skipped(
    services: Services, actor: Actor
) -> None:
    story = await imported(services, actor, "lighthouse.twee", HARLOWE_STORY)
    assert story.noted('Passage "Setup" is startup: skipped.')
    assert story.noted('Passage "Banner" is header: skipped.')
    set_line = line_of(HARLOWE_STORY, "(set: $lamp to true)")
    assert story.noted('Passage "Shore"', f"on line {set_line}", "(set: $lamp to true)")
    assert story.noted(f"line {line_of(HARLOWE_STORY, '(if: $lamp)')}", "kept as text")
    assert story.noted(
        f"line {line_of(HARLOWE_STORY, '(goto:')}", '"Cellar" moves on to "Top" before its end'
    )
    assert not story.noted("Stairs", "before its end")


async def test_harlowe_paths_play_through(services: Services, actor: Actor) -> None:
    story = await imported(services, actor, "lighthouse.twee", HARLOWE_STORY)
    assert await played(services, actor, story.project_id, ["Climb the stairs", "Continue"]) == (
        ["Shore", "Stairs", "Top"],
        "ending",
    )
    assert await played(services, actor, story.project_id, ["Cellar", "Continue"]) == (
        ["Shore", "Cellar", "Top"],
        "ending",
    )
    assert await played(services, actor, story.project_id, ["Swim out"]) == (["Shore", "Sea"], "ending")


async def test_harlowe_code_never_becomes_a_character(services: Services, actor: Actor) -> None:
    story_text = """\
:: StoryData
{"format": "Harlowe"}

:: Start
(set: $coins to 3)
](else-if: $coins > 2)[Rich.
{(print: "x")}
Mara: Hello.
"""
    story = await imported(services, actor, "code.twee", story_text)
    speakers = {speaker for speaker, _ in story.scenes["Start"]["lines"]}
    assert speakers == {None, "Mara"}
    data = await services.reads.project_data(actor, story.project_id)
    assert [character.name for character in data.characters] == ["Mara"]

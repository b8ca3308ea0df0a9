"""A SugarCube 2 story in Twee: `<<link>>`, `<<button>>` and `<<goto>>` become choices, a setter
link leads to its passage with the setter noted, and the special passages are no scenes."""

from __future__ import annotations

from romergo.common.actors import Actor
from romergo.services import Services
from tests.support.twine_stories import imported, line_of, played

SUGARCUBE_STORY = """\
:: StoryTitle
The Vault

:: StoryData
{"format": "SugarCube", "format-version": "2.36.1", "start": "Hall"}

:: StoryInit
<<set $key to false>>

:: PassageHeader
<<if $key>>You carry a key.<</if>>

:: PassageFooter
The end is near.

:: StoryAuthor
Jo

:: StoryMenu
[[Hall]]

:: Widgets [widget]
<<widget "greet">>Hi<</widget>>

:: Hall
Guard: Halt.
<<link "Bribe the guard" "Vault">><</link>>
<<button "Run" "Street">><</button>>
<<link [[Hide|Cellar]]>><</link>>
<<link "Wait">><<goto "Vault">><</link>>
[[Take the key|Vault][$key to true]]
<<if $key>>The lock clicks.<</if>>

:: Cellar
It is damp.
<<goto [[Vault]]>>

:: Street [ending]
You are out.

:: Vault [ending]
Gold.
"""


async def test_sugarcube_navigation_becomes_choices(services: Services, actor: Actor) -> None:
    story = await imported(services, actor, "vault.twee", SUGARCUBE_STORY)
    assert list(story.scenes) == ["Hall", "Cellar", "Street", "Vault"]
    assert story.scenes["Hall"] == {
        "start": True,
        "lines": [("Guard", "Halt."), (None, "<<if $key>>The lock clicks.<</if>>")],
        "choices": [
            ("Bribe the guard", "Vault"),
            ("Run", "Street"),
            ("Hide", "Cellar"),
            ("Wait", "Vault"),
            ("Take the key", "Vault"),
        ],
    }
    assert story.scenes["Cellar"]["choices"] == [("Continue", "Vault")]
    assert story.scenes["Cellar"]["lines"] == [(None, "It is damp.")]


async def test_sugarcube_setters_and_special_passages_are_noted(services: Services, actor: Actor) -> None:
    story = await imported(services, actor, "vault.twee", SUGARCUBE_STORY)
    setter = line_of(SUGARCUBE_STORY, "[[Take the key")
    assert story.noted(f"line {setter}", 'the link "Take the key" sets [$key to true]', "not kept")
    for special in ("StoryInit", "PassageHeader", "PassageFooter", "StoryAuthor", "StoryMenu"):
        assert story.noted(f'Passage "{special}" is a special passage of the story format: skipped.')
    assert story.noted('Passage "Widgets" is widget: skipped.')
    assert story.noted('Passage "Hall"', f"on line {line_of(SUGARCUBE_STORY, 'The lock clicks')}")
    assert not story.noted("leads to no passage")
    assert not story.noted("before its end")


async def test_sugarcube_paths_play_through(services: Services, actor: Actor) -> None:
    story = await imported(services, actor, "vault.twee", SUGARCUBE_STORY)
    assert await played(services, actor, story.project_id, ["Hide", "Continue"]) == (
        ["Hall", "Cellar", "Vault"],
        "ending",
    )
    assert await played(services, actor, story.project_id, ["Run"]) == (["Hall", "Street"], "ending")
    assert await played(services, actor, story.project_id, ["Take the key"]) == (["Hall", "Vault"], "ending")


async def test_a_goto_to_a_missing_passage_leads_nowhere_and_says_so(
    services: Services, actor: Actor
) -> None:
    story = await imported(
        services, actor, "lost.twee", ':: StoryData\n{"format": "SugarCube"}\n\n:: Start\n<<goto "Gone">>\n'
    )
    assert story.scenes["Start"]["choices"] == [("Continue", None)]
    assert story.noted('line 5: the link to "Gone" leads to no passage')
    assert await played(services, actor, story.project_id, ["Continue"]) == (["Start"], "nowhere")

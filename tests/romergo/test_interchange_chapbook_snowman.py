"""Chapbook's `{link to}` and Snowman's `<a data-passage>` become choices; their other inserts
and code stay as text, noted, never a speaker."""

from __future__ import annotations

from romergo.common.actors import Actor
from romergo.services import Services
from tests.support.twine_stories import imported, line_of, played

CHAPBOOK_STORY = """\
:: StoryData
{"format": "Chapbook", "format-version": "1.2.3", "start": "Inn"}

:: Inn
A fire crackles.
{link to: 'Room', label: 'Rent a room'}
{link to 'Stable'}
{embed passage: 'Menu'}
[[Leave->Road]]

:: Room [ending]
A soft bed.

:: Stable [ending]
Horses.

:: Road [ending]
Dust.
"""

SNOWMAN_STORY = """\
:: StoryData
{"format": "Snowman", "format-version": "2.0.2"}

:: Start
<a data-passage="Garden">Walk in the garden</a>
You could also <a href="javascript:void(0)" data-passage='Pond'>see the pond</a>.
<% if (s.seen) { %>Again?<% } %>
[[Sleep]]

:: Garden [ending]
Roses.

:: Pond [ending]
Frogs.

:: Sleep [ending]
Night.
"""


async def test_chapbook_links_become_choices(services: Services, actor: Actor) -> None:
    story = await imported(services, actor, "inn.twee", CHAPBOOK_STORY)
    assert story.scenes["Inn"] == {
        "start": True,
        "lines": [(None, "A fire crackles."), (None, "{embed passage: 'Menu'}")],
        "choices": [("Rent a room", "Room"), ("Stable", "Stable"), ("Leave", "Road")],
    }
    assert story.noted('Passage "Inn"', f"on line {line_of(CHAPBOOK_STORY, '{embed')}", "kept as text")
    assert await played(services, actor, story.project_id, ["Rent a room"]) == (["Inn", "Room"], "ending")
    assert await played(services, actor, story.project_id, ["Stable"]) == (["Inn", "Stable"], "ending")


async def test_snowman_passage_anchors_become_choices(services: Services, actor: Actor) -> None:
    story = await imported(services, actor, "garden.twee", SNOWMAN_STORY)
    assert story.scenes["Start"] == {
        "start": True,
        "lines": [
            (None, "You could also see the pond."),
            (None, "<% if (s.seen) { %>Again?<% } %>"),
        ],
        "choices": [("Walk in the garden", "Garden"), ("see the pond", "Pond"), ("Sleep", "Sleep")],
    }
    anchor = line_of(SNOWMAN_STORY, "You could also")
    assert story.noted(f"line {anchor}: a link inside a sentence became a choice")
    assert story.noted('Passage "Start"', f"on line {line_of(SNOWMAN_STORY, '<% if')}")
    assert await played(services, actor, story.project_id, ["see the pond"]) == (["Start", "Pond"], "ending")


async def test_formats_navigation_is_read_by_the_named_format_only(services: Services, actor: Actor) -> None:
    """A SugarCube macro in a Snowman story is not Snowman's: it stays text, noted."""
    text = (
        ':: StoryData\n{"format": "Snowman"}\n\n:: Start\n<<goto "End">>\n[[End]]\n\n:: End [ending]\nBye.\n'
    )
    story = await imported(services, actor, "mixed.twee", text)
    assert story.scenes["Start"]["choices"] == [("End", "End")]
    assert story.scenes["Start"]["lines"] == [(None, '<<goto "End">>')]
    assert story.noted('Passage "Start"', "on line 5")

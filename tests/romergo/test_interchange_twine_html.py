"""Twine 2 HTML: a published story file and a library archive import as their Twee would, with
what a project has no place for noted; a file cut short or not a Twine story creates nothing."""

from __future__ import annotations

import time

import pytest

from romergo.common.actors import Actor
from romergo.common.errors import RomergoError
from romergo.interchange.twine_html import read_twine_html
from romergo.services import Services
from tests.support.story import database_state
from tests.support.twine_stories import imported, line_of, played

STORY = """\
<tw-storydata name="The Well" startnode="2" creator="Twine" creator-version="2.6.2"
 ifid="0E2B9F4A-1111-4C2D-9A55-6C1E7B3D0F42" zoom="1" format="Harlowe" format-version="3.3.9"
 options="" hidden>
<style role="stylesheet" id="twine-user-stylesheet" type="text/twine-css">body { color: red; }</style>
<script role="script" id="twine-user-script" type="text/twine-javascript">window.depth = 3;</script>
<tw-tag name="ending" color="red"></tw-tag>
<tw-passagedata pid="1" name="Bottom" tags="ending" position="300,100"
 size="100,100">Water &amp; stone.</tw-passagedata>
<tw-passagedata pid="2" name="Top" tags="" position="100,100" size="100,100">Ada: Shall we?
(link-goto: &quot;Climb down&quot;, &quot;Bottom&quot;)
[[Walk away-&gt;Road]]</tw-passagedata>
<tw-passagedata pid="3" name="Road" tags="ending chapter:Away"
 position="500,100">The road &lt;b&gt;home&lt;/b&gt;.</tw-passagedata>
<tw-passagedata pid="4" name="Setup" tags="startup" position="700,100">(set: $depth to 3)</tw-passagedata>
</tw-storydata>"""

PUBLISHED = f"""\
<!DOCTYPE html>
<html>
<head><meta charset="utf-8"><title>The Well</title></head>
<body>
<tw-story></tw-story>
{STORY}
<script title="Twine engine">var engine = "<tw-storydata name='Not this'>"; if (a < b && c > d) {{}}</script>
</body>
</html>
"""

SECOND = """\
<tw-storydata name="Other Tale" startnode="1" ifid="7C1D" format="SugarCube" format-version="2.36.1">
<tw-passagedata pid="1" name="Begin" tags="">&lt;&lt;goto &quot;End&quot;&gt;&gt;</tw-passagedata>
<tw-passagedata pid="2" name="End" tags="">Done.</tw-passagedata>
</tw-storydata>"""


async def test_a_published_story_file_imports_as_its_passages(services: Services, actor: Actor) -> None:
    story = await imported(services, actor, "the-well.html", PUBLISHED)
    result = await services.reads.project_data(actor, story.project_id)
    assert result.project.title == "The Well"
    assert [chapter.title for chapter in result.chapters_in_order()] == ["Chapter 1", "Away"]
    assert story.scenes == {
        "Bottom": {"start": False, "lines": [(None, "Water & stone.")], "choices": []},
        "Top": {
            "start": True,
            "lines": [("Ada", "Shall we?")],
            "choices": [("Climb down", "Bottom"), ("Walk away", "Road")],
        },
        "Road": {"start": False, "lines": [(None, "The road <b>home</b>.")], "choices": []},
    }
    assert [scene.title for scene in result.scenes_in_order() if scene.is_ending] == ["Bottom", "Road"]
    assert await played(services, actor, story.project_id, ["Climb down"]) == (["Top", "Bottom"], "ending")


async def test_a_published_file_says_what_it_did_not_keep(services: Services, actor: Actor) -> None:
    story = await imported(services, actor, "the-well.html", PUBLISHED)
    assert story.noted("IFID 0E2B9F4A-1111-4C2D-9A55-6C1E7B3D0F42", "story format Harlowe", "version 3.3.9")
    assert story.noted("Passage positions and sizes")
    assert story.noted("The story's own JavaScript is not kept.")
    assert story.noted("The story's own stylesheet is not kept.")
    assert story.noted('Passage "Setup" is startup: skipped.')
    assert story.noted('Passage "Road"', f"on line {line_of(PUBLISHED, 'The road')}", "kept as text")
    assert not story.noted("Not this")


async def test_a_file_is_known_as_twine_by_its_content(services: Services, actor: Actor) -> None:
    result = await services.interchange.import_file(actor, "download", PUBLISHED.encode())
    assert result.format == "twee" and result.project.title == "The Well"


async def test_a_library_archive_imports_its_first_story_and_names_the_others(
    services: Services, actor: Actor
) -> None:
    story = await imported(services, actor, "library.html", f"{STORY}\n{SECOND}\n")
    assert list(story.scenes) == ["Bottom", "Top", "Road"]
    assert story.noted("a Twine library of 2 stories", '"The Well", is imported', '"Other Tale"')
    second_first = await imported(services, actor, "library.html", f"{SECOND}\n{STORY}\n")
    assert second_first.scenes["Begin"]["choices"] == [("Continue", "End")]
    assert second_first.noted('"Other Tale", is imported', '"The Well"')


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (PUBLISHED[: PUBLISHED.index("Shall we?")], 'ends inside passage "Top"'),
        (PUBLISHED[: PUBLISHED.index("</tw-storydata>")], "never ends: the file is cut short"),
        ("<!DOCTYPE html><html><body><p>Hello</p></body></html>", "holds no Twine 2 story"),
        (STORY.replace('startnode="2"', 'startnode="9"'), "starts at passage 9"),
        (STORY.replace('startnode="2"', 'startnode="4"'), "starts at passage 4"),
        (STORY.replace('name="Road"', 'name="Top"'), 'a second passage named "Top"'),
        (STORY.replace('name="Road"', 'name=""'), "a passage needs a name"),
    ],
    ids=["cut-in-a-passage", "cut-in-the-story", "no-story", "no-start", "start-is-code", "twice", "no-name"],
)
async def test_a_broken_twine_file_is_refused_and_creates_nothing(
    services: Services, actor: Actor, content: str, message: str
) -> None:
    before = await database_state(services)
    with pytest.raises(RomergoError) as refused:
        await services.interchange.import_file(actor, "story.html", content.encode())
    assert refused.value.code == "invalid_argument"
    assert message in refused.value.message
    assert await database_state(services) == before


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("<a " * 100_000, "holds no Twine 2 story"),
        ('<tw-storydata name="x">' + "<!--" * 100_000, "never ends"),
        ('<tw-storydata name="x"><tw-passagedata name="a">' + "</a " * 100_000, 'ends inside passage "a"'),
        ("<![" * 100_000 + ">", "HTML is malformed"),
    ],
    ids=["open-tags", "open-comments", "open-end-tags", "declarations"],
)
def test_hostile_html_is_refused_in_linear_time(content: str, message: str) -> None:
    started = time.monotonic()
    with pytest.raises(RomergoError) as refused:
        read_twine_html(content)
    assert message in refused.value.message
    assert time.monotonic() - started < 2

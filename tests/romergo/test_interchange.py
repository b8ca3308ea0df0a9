"""Import and export: the demo through Twee 3, Yarn and the Romergo archive and back, a
Twee story written for the test with every feature the importer claims, and malformed files
refused with their line and nothing created."""

from __future__ import annotations

import hashlib
import io
import json
import zipfile

import pytest

from romergo.common.actors import system_actor, user_actor
from romergo.common.errors import RomergoError
from romergo.demo.seed import seed_demo
from tests.support.story import database_state

# The formats' rules are the core's: what the import writes (many rows at once, all or nothing,
# media bytes) is the story ledger's, whose contract tests run on both databases.
DATABASES = ("sqlite",)


@pytest.fixture
async def demo(services, author):
    project, _ = await seed_demo(services, author.id)
    return system_actor(author.id), project.id


async def story_shape(services, actor, project_id, *, with_chapters: bool = True):
    """What a player and an author see, by titles and names instead of ids."""
    data = await services.reads.project_data(actor, project_id)
    titles = {scene.id: scene.title for scene in data.scenes}
    speakers = {character.id: character.name for character in data.characters}
    scenes = {}
    for chapter in data.chapters_in_order():
        for scene in data.scenes_of(chapter.id):
            scenes[scene.title] = {
                "chapter": chapter.title if with_chapters else None,
                "start": scene.is_start,
                "ending": scene.is_ending,
                "lines": [
                    (speakers.get(line.character_id or ""), line.text) for line in data.lines_of(scene.id)
                ],
                "choices": [
                    (c.label, titles.get(c.target_scene_id or "")) for c in data.choices_of(scene.id)
                ],
            }
    return {"title": data.project.title, "scenes": scenes}


@pytest.mark.parametrize("format", ["twee", "yarn", "archive"])
async def test_the_demo_comes_back_the_same_through_each_format(services, demo, format):
    actor, project_id = demo
    exported = await services.interchange.export_project(actor, project_id, format)
    imported = await services.interchange.import_file(actor, exported.filename, exported.data)
    assert imported.project.id != project_id and imported.format == format
    assert await story_shape(services, actor, imported.project.id) == await story_shape(
        services, actor, project_id
    )


async def story_state_shape(services, actor, project_id):
    """The story's variables, conditions and effects, by titles instead of ids."""
    data = await services.reads.project_data(actor, project_id)
    variables = sorted((v.name, v.type, v.initial, v.description) for v in data.variables)
    rules = []
    for scene in data.scenes_in_order():
        lines = [(line.text, line.condition) for line in data.lines_of(scene.id) if line.condition]
        choices = [
            (c.label, c.condition, c.effects) for c in data.choices_of(scene.id) if c.condition or c.effects
        ]
        if scene.entry_effects or lines or choices:
            rules.append((scene.title, scene.entry_effects, lines, choices))
    return variables, rules


@pytest.mark.parametrize("format", ["yarn", "archive"])
async def test_the_demos_state_comes_back_through_yarn_and_the_archive(services, demo, format):
    actor, project_id = demo
    exported = await services.interchange.export_project(actor, project_id, format)
    assert not any("Variables, conditions and effects" in note for note in exported.notes)
    imported = await services.interchange.import_file(actor, exported.filename, exported.data)
    before = await story_state_shape(services, actor, project_id)
    assert before[0] and before[1]  # the demo has state to carry
    assert await story_state_shape(services, actor, imported.project.id) == before
    if format == "yarn":
        text = exported.data.decode()
        assert "<<declare $has_key = false>>" in text and "<<set $has_key to true>>" in text
        assert "-> Show Tom his key <<if $has_key>>" in text


async def test_the_archive_keeps_media_byte_for_byte_and_every_slot(services, demo):
    actor, project_id = demo
    exported = await services.interchange.export_project(actor, project_id, "archive")
    assert exported.filename == "The-Lighthouse-Keeper-s-Secret.romergo.zip"
    imported = await services.interchange.import_file(actor, "copy.romergo.zip", exported.data)
    before = await services.reads.project_data(actor, project_id)
    after = await services.reads.project_data(actor, imported.project.id)

    def media(data):
        names = {asset.id: asset.name for asset in data.assets}
        slots = [
            (s.title, names.get(s.background_asset_id), names.get(s.music_asset_id)) for s in data.scenes
        ]
        slots += [
            (c.title, names.get(c.background_asset_id), names.get(c.music_asset_id)) for c in data.chapters
        ]
        files = sorted((a.name, a.kind, a.mime, a.sha256, tuple(a.tags)) for a in data.assets)
        colours = sorted((c.name, c.color) for c in data.characters)
        return sorted(slots, key=str), files, colours

    assert media(after) == media(before)
    with zipfile.ZipFile(io.BytesIO(exported.data)) as archive:
        story = json.loads(archive.read("story.json"))
        assert story["format"] == "romergo-archive" and story["format_version"] == 1
        stored = {
            a["key"]: hashlib.sha256(archive.read("media/" + a["key"])).hexdigest() for a in story["assets"]
        }
    assert sorted(stored.values()) == sorted(a.sha256 for a in before.assets)


async def test_exports_say_what_a_format_leaves_out(services, demo):
    actor, project_id = demo
    twee = await services.interchange.export_project(actor, project_id, "twee")
    yarn = await services.interchange.export_project(actor, project_id, "yarn")
    assert any("Backgrounds, music and sounds are not part of a Twee file" in note for note in twee.notes)
    assert any("Backgrounds, music and sounds are not part of a Yarn script" in note for note in yarn.notes)
    assert any("Variables, conditions and effects are not part of a Twee file" in note for note in twee.notes)
    text = twee.data.decode()
    assert text.startswith(":: StoryTitle\nThe Lighthouse Keeper's Secret\n")
    assert '"start": "Arrival at the Harbor"' in text


TWEE_STORY = """\
:: StoryTitle
The Orchard

:: StoryData
{
  "ifid": "D674C58C-DEFA-4F70-B7A2-27742230C0FC",
  "format": "SugarCube",
  "format-version": "2.36.1",
  "start": "Gate",
  "zoom": 1
}

:: Story Stylesheet [stylesheet]
body { color: green; }

:: Gate [chapter:The_Orchard] {"position":"100,100","size":"100,100"}
The gate is rusted shut.
Ada: Someone has oiled the hinges.
<<set $visited to true>>
[[Climb over->Orchard]]
[[Walk around|Wall]]
[[Orchard<-Squeeze through]]
[[Orchard]]

:: Orchard [chapter:The_Orchard ending]
Apples everywhere. You could go back to the [[Gate]] now.

:: Wall [chapter:Outside night]
Ada: It goes on for miles.
[[Give up->Nowhere]]
"""


async def test_a_twee_story_using_every_feature_the_importer_claims(services, actor):
    imported = await services.interchange.import_file(actor, "orchard.twee", TWEE_STORY.encode())
    shape = await story_shape(services, actor, imported.project.id)
    assert shape["title"] == "The Orchard"
    assert shape["scenes"] == {
        "Gate": {
            "chapter": "The Orchard",
            "start": True,
            "ending": False,
            "lines": [
                (None, "The gate is rusted shut."),
                ("Ada", "Someone has oiled the hinges."),
                (None, "<<set $visited to true>>"),
            ],
            "choices": [
                ("Climb over", "Orchard"),
                ("Walk around", "Wall"),
                ("Squeeze through", "Orchard"),
                ("Orchard", "Orchard"),
            ],
        },
        "Orchard": {
            "chapter": "The Orchard",
            "start": False,
            "ending": True,
            "lines": [(None, "Apples everywhere. You could go back to the Gate now.")],
            "choices": [("Gate", "Gate")],
        },
        "Wall": {
            "chapter": "Outside",
            "start": False,
            "ending": False,
            "lines": [("Ada", "It goes on for miles.")],
            "choices": [("Give up", None)],
        },
    }
    notes = "\n".join(imported.notes)
    for expected in (
        'Passage "Story Stylesheet" is stylesheet: skipped.',
        "Passage positions and sizes",
        'Passage "Gate" has story-format code',
        'the link to "Nowhere" leads to no passage',
        "a link inside a sentence became a choice",
        'The tag "night" has no equivalent',
    ):
        assert expected in notes, expected


YARN_STORY = """\
title: Start
tags: opening
---
// a comment
Narrator walks in. #line:a1
Ada: Where is everyone?
<<set $seen = true>>
-> Look around <<if $seen>>
    Ada: Nothing.
    <<jump Hall>>
-> Leave
===

title: Hall
tags: ending
---
The hall is empty, {$name}.
<<jump Start>>
===
"""


async def test_a_yarn_script_with_options_jumps_commands_and_tags(services, actor):
    imported = await services.interchange.import_file(actor, "the-hall.yarn", YARN_STORY.encode())
    shape = await story_shape(services, actor, imported.project.id)
    assert shape["title"] == "the hall"
    assert shape["scenes"]["Start"] == {
        "chapter": "Chapter 1",
        "start": True,
        "ending": False,
        "lines": [(None, "Narrator walks in."), ("Ada", "Where is everyone?")],
        "choices": [("Look around", "Hall"), ("Leave", None)],
    }
    assert shape["scenes"]["Hall"]["choices"] == [("Continue", "Start")]
    assert shape["scenes"]["Hall"]["ending"] is True
    # Yarn's state maps: the set declares $seen (a flag, as Yarn infers) and the option's condition holds.
    variables, rules = await story_state_shape(services, actor, imported.project.id)
    assert variables == [("seen", "flag", False, "")]
    assert rules == [("Start", "set seen = true", [], [("Look around", "seen", None)])]
    notes = "\n".join(imported.notes)
    assert "<<set" not in notes and "condition" not in notes
    for expected in (
        "Line tags",
        "inside an option",
        "interpolated",
        'The tag "opening"',
        "a jump outside an option",
    ):
        assert expected in notes, expected


@pytest.mark.parametrize(
    ("filename", "content", "message"),
    [
        ("a.twee", ":: Start\nHello\n::  [tag]\nx\n", "line 3: a passage header needs a name"),
        ("a.twee", ":: Start\nHello\n\n:: Start\nAgain\n", 'line 4: a second passage named "Start"'),
        ("a.twee", ':: StoryData\n{"start": \n\n:: A\nx\n', "StoryData is not valid JSON"),
        ("a.twee", ':: StoryData\n{"start": "Nope"}\n:: A\nx\n', 'names "Nope" as the start passage'),
        ("a.twee", "just text, no passages\n", "line 1: no passages"),
        ("a.twee", ":: A\n" + "x" * 2001 + "\n", "line 2: Line text is 2001 characters long"),
        ("a.twee", ":: " + "T" * 201 + "\nx\n", "line 1: Scene title is 201 characters long"),
        ("a.yarn", "title: A\n---\nHello\n", 'line 1: node "A" never ends'),
        ("a.yarn", "title: A\nno header here\n---\n===\n", "line 2: expected a header"),
        ("a.yarn", "tags: x\n---\nHi\n===\n", "line 1: the node has no title"),
        ("a.yarn", "title: A\n---\n===\ntitle: A\n---\n===\n", 'line 4: a second node titled "A"'),
        ("a.romergo.zip", "not a zip", "not a zip file"),
        ("a.bin", "\x00\x01", "Cannot tell what kind of file"),
        ("a.twee", "\udcff", "not UTF-8"),
    ],
)
async def test_a_malformed_file_is_refused_with_its_line_and_creates_nothing(
    services, actor, filename, content, message
):
    data = content.encode("utf-8", errors="surrogateescape")
    before = await database_state(services)
    with pytest.raises(RomergoError) as refused:
        await services.interchange.import_file(actor, filename, data)
    assert refused.value.code == "invalid_argument"
    assert message in refused.value.message
    assert await database_state(services) == before


async def test_a_damaged_archive_creates_nothing(services, demo):
    actor, project_id = demo
    good = (await services.interchange.export_project(actor, project_id, "archive")).data

    def rewritten(change):
        source = zipfile.ZipFile(io.BytesIO(good))
        out = io.BytesIO()
        with zipfile.ZipFile(out, "w") as target:
            for info in source.infolist():
                data = change(info.filename, source.read(info.filename))
                if data is not None:
                    target.writestr(info.filename, data)
        return out.getvalue()

    story = json.loads(zipfile.ZipFile(io.BytesIO(good)).read("story.json"))
    first_asset = "media/" + story["assets"][0]["key"]
    missing_media = rewritten(lambda name, data: None if name == first_asset else data)
    bad_json = rewritten(lambda name, data: b"{" if name == "story.json" else data)
    extra_field = rewritten(
        lambda name, data: (
            json.dumps({**json.loads(data), "colour": "red"}).encode() if name == "story.json" else data
        )
    )
    before = await database_state(services)
    for damaged, message in (
        (missing_media, "but has no file media/"),
        (bad_json, "story.json is not JSON"),
        (extra_field, "story.json: colour: Extra inputs are not permitted"),
    ):
        with pytest.raises(RomergoError) as refused:
            await services.interchange.import_file(actor, "x.romergo.zip", damaged)
        assert message in refused.value.message
    assert await database_state(services) == before


async def test_unknown_formats_and_foreign_projects(services, demo):
    owner, project_id = demo
    with pytest.raises(RomergoError, match="Unknown format 'pdf'"):
        await services.interchange.export_project(owner, project_id, "pdf")
    stranger = user_actor((await services.accounts.create_user("stranger")).id, "stranger")
    with pytest.raises(RomergoError) as refused:
        await services.interchange.export_project(stranger, project_id, "archive")
    assert refused.value.code == "not_found"


def test_the_published_archive_schema_is_the_one_the_code_reads():
    from pathlib import Path

    from romergo.interchange.archive import archive_schema

    published = Path(__file__).resolve().parents[2] / "docs" / "romergo-archive.schema.json"
    assert json.loads(published.read_text()) == archive_schema(), (
        "regenerate docs/romergo-archive.schema.json from romergo.interchange.archive.archive_schema()"
    )


async def test_the_archive_keeps_variables_conditions_and_effects(services, actor):
    from romergo.story import ChoiceSpec
    from tests.support.story import small_story

    story = await small_story(services, actor)
    add = services.variables.add_variable
    await add(actor, story.project_id, "has_key", "flag", description="The cellar key")
    await add(actor, story.project_id, "courage", "number", 2)
    spec = ChoiceSpec("Open", story.second_scene_id, "has_key and courage > 1", "set courage = courage - 1")
    await services.scenes.set_choices(actor, story.first_scene_id, [spec])
    await services.lines.add_line(actor, story.second_scene_id, "It creaks.", condition="not has_key")
    await services.scenes.update_scene(actor, story.second_scene_id, entry_effects="set has_key = true")

    exported = await services.interchange.export_project(actor, story.project_id, "archive")
    imported = await services.interchange.import_file(actor, "state.romergo.zip", exported.data)
    twee = await services.interchange.export_project(actor, story.project_id, "twee")
    assert any("Variables, conditions and effects are not part of a Twee file" in note for note in twee.notes)

    def state(data, variables):
        titles = {scene.id: scene.title for scene in data.scenes}
        return (
            sorted((v.name, v.type, v.initial, v.description) for v in variables),
            sorted((titles[c.scene_id], c.label, c.condition, c.effects) for c in data.choices),
            sorted((titles[line.scene_id], line.text, line.condition) for line in data.lines),
            sorted((s.title, s.entry_effects) for s in data.scenes),
        )

    before = state(
        await services.reads.project_data(actor, story.project_id),
        await services.variables.list_variables(actor, story.project_id),
    )
    after = state(
        await services.reads.project_data(actor, imported.project.id),
        await services.variables.list_variables(actor, imported.project.id),
    )
    assert after == before
    assert ("Opening", "Open", "has_key and courage > 1", "set courage = courage - 1") in after[1]

    story_json = json.loads(zipfile.ZipFile(io.BytesIO(exported.data)).read("story.json"))
    story_json["chapters"][0]["scenes"][0]["choices"][0]["condition"] = "has_keys"
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as broken:
        broken.writestr("story.json", json.dumps(story_json))
    before_state = await database_state(services)
    with pytest.raises(RomergoError) as refused:
        await services.interchange.import_file(actor, "broken.romergo.zip", out.getvalue())
    assert "choice 1: the choice's condition at character 1: there is no variable called 'has_keys'" in (
        refused.value.message
    )
    assert await database_state(services) == before_state


YARN_WITH_STATE = """\
title: Start
---
// How brave Ada feels
<<declare $courage = 1>>
<<declare $name = "Ada">>
<<set $courage to $courage + 1>>
Ada: I am ready. <<if $courage >= 2 && $name is "Ada">>
Ada: Or am I? <<if $ghost>>
-> Charge <<if not ($courage < 2) || false>>
    <<set $courage to 0>>
    <<set $lucky = true>>
    <<jump End>>
-> Wait <<if $courage +>>
    <<jump End>>
===
title: End
tags: ending
---
Done.
===
"""


async def test_yarn_variables_conditions_and_effects_map_and_what_does_not_read_is_noted(services, actor):
    imported = await services.interchange.import_file(actor, "state.yarn", YARN_WITH_STATE.encode())
    variables, rules = await story_state_shape(services, actor, imported.project.id)
    assert variables == [
        ("courage", "number", 1, "How brave Ada feels"),
        ("lucky", "flag", False, ""),
        ("name", "text", "Ada", ""),
    ]
    assert rules == [
        (
            "Start",
            "set courage = courage + 1",
            [("I am ready.", 'courage >= 2  and  name == "Ada"')],
            [("Charge", "not (courage < 2)  or  false", "set courage = 0; set lucky = true")],
        )
    ]
    notes = "\n".join(imported.notes)
    assert "there is no variable called 'ghost'" in notes and "line 8" in notes
    assert "line 13: the condition <<if courage +>> cannot be read" in notes


async def test_a_scene_named_like_a_special_passage_is_exported_under_another_name_and_reads_back(
    services, actor
):
    story = ":: StoryTitle\nSpecial\n\n:: Start\nWe begin.\n[[On->Next]]\n\n:: Next\nThe end.\n"
    imported = await services.interchange.import_file(actor, "special.twee", story.encode())
    data = await services.reads.project_data(actor, imported.project.id)
    [next_scene] = [scene for scene in data.scenes if scene.title == "Next"]
    await services.scenes.update_scene(actor, next_scene.id, title="StoryInit")

    exported = await services.interchange.export_project(actor, imported.project.id, "twee")

    assert ":: StoryInit (2)" in exported.data.decode()
    assert any('The scene "StoryInit" has the name of a story format' in note for note in exported.notes)
    again = await services.interchange.import_file(actor, exported.filename, exported.data)
    titles = {scene.title for scene in (await services.reads.project_data(actor, again.project.id)).scenes}
    assert titles == {"Start", "StoryInit (2)"}

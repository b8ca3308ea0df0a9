"""Find and replace across a project: every kind of text, Unicode case and word rules in
Georgian, Cyrillic and Devanagari, regular expressions, replace all as one undoable change, and
refusals that change nothing."""

from __future__ import annotations

import pytest

from romergo.common.actors import user_actor
from romergo.common.errors import RomergoError
from romergo.story import ChoiceSpec
from romergo.story.patterns import SearchQuery
from romergo.story.search import Target
from tests.support.story import database_state, small_story

# Matching and replacing happen in the core; the saves of replace all are the story ledger's, whose
# contract tests run on both databases.
DATABASES = ("sqlite",)


async def story_with_text(services, actor):
    story = await small_story(services, actor)
    s = services
    lines = [
        await s.lines.add_line(
            actor, story.first_scene_id, "ᲒᲐᲛᲐᲠᲯᲝᲑᲐ, მეგობარო! The lamp is lit.", story.hero_id
        ),
        await s.lines.add_line(actor, story.first_scene_id, "ПРИВЕТ, мир. Лампа горит."),
        await s.lines.add_line(actor, story.second_scene_id, "रामा ने राम से कहा: दीपक जलाओ।", story.hero_id),
        await s.lines.add_line(actor, story.second_scene_id, "Lamplight, lamps and one LAMP."),
    ]
    await s.scenes.set_choices(
        actor, story.first_scene_id, [ChoiceSpec("Follow the lamp", story.second_scene_id)]
    )
    await s.scenes.update_scene(actor, story.second_scene_id, title="The Lamp Room")
    return story, lines


def found(results):
    """(field, text) of every hit, scenes first, in story order."""
    hits = [hit for group in results.scenes for hit in group.hits] + results.elsewhere
    return [(hit.field, hit.text[hit.spans[0][0] : hit.spans[0][1]]) for hit in hits]


async def test_case_insensitive_search_works_in_georgian_cyrillic_and_latin(services, actor):
    story, _ = await story_with_text(services, actor)
    search = services.search.search
    georgian = await search(actor, story.project_id, SearchQuery("გამარჯობა"))
    assert found(georgian) == [("line", "ᲒᲐᲛᲐᲠᲯᲝᲑᲐ")]  # Mtavruli capitals match Mkhedruli
    cyrillic = await search(actor, story.project_id, SearchQuery("привет"))
    assert found(cyrillic) == [("line", "ПРИВЕТ")]
    assert found(await search(actor, story.project_id, SearchQuery("привет", match_case=True))) == []


async def test_whole_words_follow_unicode_word_boundaries(services, actor):
    story, _ = await story_with_text(services, actor)
    hindi = await services.search.search(actor, story.project_id, SearchQuery("राम", whole_word=True))
    (group,) = hindi.scenes
    (hit,) = group.hits
    word = hit.text.index(" राम ") + 1
    assert hit.spans == ((word, word + 3),)  # not the start of "रामा", whose vowel sign is part of it
    anywhere = await services.search.search(actor, story.project_id, SearchQuery("राम"))
    assert len(anywhere.scenes[0].hits[0].spans) == 2

    lamp = await services.search.search(actor, story.project_id, SearchQuery("lamp", whole_word=True))
    assert found(lamp) == [
        ("line", "lamp"),
        ("choice_label", "lamp"),
        ("scene_title", "Lamp"),
        ("line", "LAMP"),
    ]


async def test_results_are_grouped_by_scene_with_the_rest_after(services, actor):
    story, _ = await story_with_text(services, actor)
    await services.chapters.update_chapter(actor, story.chapter_id, title="Lamps of One")
    results = await services.search.search(actor, story.project_id, SearchQuery("lamp"))
    assert [(g.scene_id, g.title, g.chapter_title) for g in results.scenes] == [
        (story.first_scene_id, "Opening", "Lamps of One"),
        (story.second_scene_id, "The Lamp Room", "Lamps of One"),
    ]
    assert [hit.field for hit in results.elsewhere] == ["chapter_title"]
    assert results.matches == 7 and results.texts == 5 and not results.truncated
    assert results.scenes[0].hits[0].speaker == "Hero"
    only_choices = await services.search.search(
        actor, story.project_id, SearchQuery("lamp"), fields=["choice_label"]
    )
    assert found(only_choices) == [("choice_label", "lamp")]


async def test_regular_expressions_find_and_replace_with_groups(services, actor):
    story, lines = await story_with_text(services, actor)
    query = SearchQuery(r"\blamp(s|light)\b", regex=True)
    results = await services.search.search(actor, story.project_id, query)
    assert found(results) == [("line", "Lamplight")]
    assert results.matches == 2
    done = await services.search.replace(actor, story.project_id, query, r"torch\1")
    assert (done.texts, done.matches) == (1, 2)
    data = await services.reads.project_data(actor, story.project_id)
    assert {line.id: line.text for line in data.lines}[lines[3].id] == "torchlight, torchs and one LAMP."


async def test_replace_all_is_one_change_set_that_undo_takes_back(services, actor):
    story, lines = await story_with_text(services, actor)
    before = await database_state(services)
    await services.characters.update_character(actor, story.hero_id, name="Lamp Keeper")
    keeper_renamed = await database_state(services)
    assert keeper_renamed != before
    done = await services.search.replace(actor, story.project_id, SearchQuery("lamp"), "Torch")
    assert done.batch_id is not None
    assert done.texts == 5  # two lines, a choice, a scene title, a character name
    data = await services.reads.project_data(actor, story.project_id)
    assert {line.id: line.text for line in data.lines}[lines[0].id].endswith("The Torch is lit.")
    assert [c.label for c in data.choices] == ["Follow the Torch"]
    assert {s.id: s.title for s in data.scenes}[story.second_scene_id] == "The Torch Room"
    assert [c.name for c in data.characters] == ["Torch Keeper"]

    undone = await services.undo.undo(actor, f"batch:{done.batch_id}")
    assert undone.reverted == 5 and not undone.conflicts  # two lines, two scenes, one character
    after = await services.reads.project_data(actor, story.project_id)
    assert {line.id: line.text for line in after.lines}[lines[0].id].endswith("The lamp is lit.")
    assert [c.label for c in after.choices] == ["Follow the lamp"]
    assert [c.name for c in after.characters] == ["Lamp Keeper"]


async def test_replace_one_changes_only_that_text(services, actor):
    story, lines = await story_with_text(services, actor)
    done = await services.search.replace(
        actor, story.project_id, SearchQuery("lamp"), "torch", only=[Target("line", lines[3].id)]
    )
    assert (done.texts, done.matches) == (1, 3)
    data = await services.reads.project_data(actor, story.project_id)
    texts = {line.id: line.text for line in data.lines}
    assert texts[lines[3].id] == "torchlight, torchs and one torch."
    assert texts[lines[0].id].endswith("The lamp is lit.")


@pytest.mark.parametrize(
    ("query", "replacement", "message"),
    [
        (SearchQuery("(unclosed", regex=True), "x", "not valid at character 1"),
        (SearchQuery("   "), "x", "Type something"),
        (SearchQuery("x" * 501), "x", "limited to 500"),
        (SearchQuery("The Lamp Room"), "", "Scene title must not be empty"),
        (SearchQuery("Hero"), "Villain", None),  # fine: no other character to collide with
        (SearchQuery(r"(lamp)", regex=True), r"\2", "cannot be used with this pattern"),
    ],
)
async def test_a_bad_search_or_replace_changes_nothing(services, actor, query, replacement, message):
    story, _ = await story_with_text(services, actor)
    if message is None:
        await services.search.replace(actor, story.project_id, query, replacement)
        return
    before = await database_state(services)
    with pytest.raises(RomergoError) as refused:
        await services.search.replace(actor, story.project_id, query, replacement)
    assert refused.value.code == "invalid_argument" and message in refused.value.message
    assert await database_state(services) == before


async def test_a_rename_that_would_duplicate_a_character_is_refused(services, actor):
    story, _ = await story_with_text(services, actor)
    await services.characters.add_character(actor, story.project_id, "Heroine")
    before = await database_state(services)
    with pytest.raises(RomergoError, match="would both be called"):
        await services.search.replace(
            actor, story.project_id, SearchQuery("Hero", whole_word=True), "Heroine"
        )
    assert await database_state(services) == before


async def test_someone_elses_project_is_not_found(services, actor, author):
    story, _ = await story_with_text(services, actor)
    stranger = await services.accounts.create_user("stranger", "a long enough password")

    with pytest.raises(RomergoError) as refused:
        await services.search.search(
            user_actor(stranger.id, "stranger"), story.project_id, SearchQuery("lamp")
        )
    assert refused.value.code == "not_found"

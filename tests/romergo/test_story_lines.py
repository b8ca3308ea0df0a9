"""Dialogue lines: narration or a character's words, ordered in their scene; text kept exactly as typed."""

from __future__ import annotations

import unicodedata

import pytest

from romergo.common.actors import user_actor
from romergo.common.errors import RomergoError
from romergo.story import UNCHANGED
from tests.support.story import database_state, revisions, small_story

DATABASES = ("sqlite",)
"""The database side is the story ledger's contract, run on both (tests/storage/ledgers/test_story_*.py)."""

HINDI = "हिन्दी में लिखी गई कहानी, क्षितिज पर दीपक। "


def hindi_text(length: int) -> str:
    """`length` code points of Devanagari with its vowel signs and viramas (combining marks)."""
    text = (HINDI * (length // len(HINDI) + 2))[:length]
    if text[-1].isspace():
        text = text[:-1] + "क"
    return text


async def log_size(services, project_id):
    return len(await revisions(services, project_id))


async def written_since(services, project_id, seen):
    return (await revisions(services, project_id))[seen:]


async def lines_of(services, actor, scene_id):
    view = await services.scenes.scene_view(actor, scene_id)
    return [(v.line.position, v.speaker, v.line.text) for v in view.lines]


async def test_narration_and_spoken_lines_are_added_in_order(services, actor):
    story = await small_story(services, actor)
    seen = await log_size(services, story.project_id)

    narration = await services.lines.add_line(actor, story.first_scene_id, "  The wind howls.  ")
    spoken = await services.lines.add_line(actor, story.first_scene_id, "Who's there?", story.hero_id)

    assert (narration.character_id, narration.text, narration.position) == (None, "The wind howls.", 0)
    assert (spoken.character_id, spoken.position) == (story.hero_id, 1)
    assert await lines_of(services, actor, story.first_scene_id) == [
        (0, None, "The wind howls."),
        (1, "Hero", "Who's there?"),
    ]
    first, second = await written_since(services, story.project_id, seen)
    assert (first.entity_type, first.entity_id, first.action, first.before) == (
        "dialogue_line",
        narration.id,
        "created",
        None,
    )
    assert first.after == {
        "id": narration.id,
        "scene_id": story.first_scene_id,
        "position": 0,
        "character_id": None,
        "text": "The wind howls.",
    }
    assert (second.entity_id, second.after["character_id"], second.after["position"]) == (
        spoken.id,
        story.hero_id,
        1,
    )


async def test_a_line_inserted_at_a_position_pushes_the_others_down(services, actor):
    story = await small_story(services, actor)
    for text in ("one", "two", "three"):
        await services.lines.add_line(actor, story.first_scene_id, text)
    seen = await log_size(services, story.project_id)

    inserted = await services.lines.add_line(actor, story.first_scene_id, "one and a half", position=1)
    await services.lines.add_line(actor, story.first_scene_id, "zero", position=0)
    await services.lines.add_line(actor, story.first_scene_id, "last", position=1000)

    assert [text for _, _, text in await lines_of(services, actor, story.first_scene_id)] == [
        "zero",
        "one",
        "one and a half",
        "two",
        "three",
        "last",
    ]
    assert [p for p, _, _ in await lines_of(services, actor, story.first_scene_id)] == [0, 1, 2, 3, 4, 5]
    written = await written_since(services, story.project_id, seen)
    assert [(r.action, r.after["text"], r.after["position"]) for r in written] == [
        ("created", "one and a half", 1),
        ("created", "zero", 0),
        ("created", "last", 5),
    ]
    assert written[0].entity_id == inserted.id


async def test_update_text_keeps_the_speaker_unless_told(services, actor):
    story = await small_story(services, actor)
    line = await services.lines.add_line(actor, story.first_scene_id, "Hello.", story.hero_id)
    seen = await log_size(services, story.project_id)

    updated = await services.lines.update_line(actor, line.id, text="Hello, world.")
    assert (updated.text, updated.character_id) == ("Hello, world.", story.hero_id)
    updated = await services.lines.update_line(actor, line.id, text="Hello again.", character_id=UNCHANGED)
    assert updated.character_id == story.hero_id

    first, second = await written_since(services, story.project_id, seen)
    assert (first.entity_id, first.action) == (line.id, "updated")
    assert (first.before["text"], first.after["text"]) == ("Hello.", "Hello, world.")
    assert first.before["character_id"] == first.after["character_id"] == story.hero_id
    assert (second.before["text"], second.after["text"]) == ("Hello, world.", "Hello again.")


async def test_update_speaker_and_turn_into_narration(services, actor):
    story = await small_story(services, actor)
    villain = await services.characters.add_character(actor, story.project_id, "Villain")
    line = await services.lines.add_line(actor, story.first_scene_id, "Mine!", story.hero_id)
    seen = await log_size(services, story.project_id)

    await services.lines.update_line(actor, line.id, character_id=villain.id)
    narrated = await services.lines.update_line(actor, line.id, character_id=None)

    assert (narrated.character_id, narrated.text) == (None, "Mine!")
    assert await lines_of(services, actor, story.first_scene_id) == [(0, None, "Mine!")]
    first, second = await written_since(services, story.project_id, seen)
    assert (first.before["character_id"], first.after["character_id"]) == (story.hero_id, villain.id)
    assert (second.before["character_id"], second.after["character_id"]) == (villain.id, None)
    assert first.before["text"] == second.after["text"] == "Mine!"


async def test_an_update_that_changes_nothing_writes_nothing(services, actor):
    story = await small_story(services, actor)
    line = await services.lines.add_line(actor, story.first_scene_id, "Same.", story.hero_id)
    narration = await services.lines.add_line(actor, story.first_scene_id, "Quiet.")
    before = await database_state(services)

    await services.lines.update_line(actor, line.id)
    await services.lines.update_line(actor, line.id, text=" Same. ", character_id=story.hero_id)
    await services.lines.update_line(actor, narration.id, character_id=None)

    assert await database_state(services) == before


async def test_move_reorders_with_one_moved_revision(services, actor):
    story = await small_story(services, actor)
    a = await services.lines.add_line(actor, story.first_scene_id, "A")
    await services.lines.add_line(actor, story.first_scene_id, "B")
    c = await services.lines.add_line(actor, story.first_scene_id, "C")
    seen = await log_size(services, story.project_id)

    await services.lines.move_line(actor, a.id, 2)

    assert await lines_of(services, actor, story.first_scene_id) == [
        (0, None, "B"),
        (1, None, "C"),
        (2, None, "A"),
    ]
    [revision] = await written_since(services, story.project_id, seen)
    assert (revision.entity_type, revision.entity_id, revision.action) == ("dialogue_line", a.id, "moved")
    assert (revision.before["position"], revision.after["position"]) == (0, 2)
    assert revision.before["text"] == revision.after["text"] == "A"

    unchanged = await database_state(services)
    await services.lines.move_line(actor, c.id, 1)
    await services.lines.move_line(actor, a.id, 99)
    assert await database_state(services) == unchanged


async def test_delete_renumbers_the_rest(services, actor):
    story = await small_story(services, actor)
    await services.lines.add_line(actor, story.first_scene_id, "A")
    b = await services.lines.add_line(actor, story.first_scene_id, "B", story.hero_id)
    await services.lines.add_line(actor, story.first_scene_id, "C")
    seen = await log_size(services, story.project_id)

    await services.lines.delete_line(actor, b.id)

    assert await lines_of(services, actor, story.first_scene_id) == [(0, None, "A"), (1, None, "C")]
    [revision] = await written_since(services, story.project_id, seen)
    assert (revision.entity_id, revision.action, revision.after) == (b.id, "deleted", None)
    assert revision.before == {
        "id": b.id,
        "scene_id": story.first_scene_id,
        "position": 1,
        "character_id": story.hero_id,
        "text": "B",
    }
    before = await database_state(services)
    with pytest.raises(RomergoError) as refused:
        await services.lines.delete_line(actor, b.id)
    assert refused.value.code == "not_found"
    assert await database_state(services) == before


async def test_the_limit_is_2000_code_points(services, actor):
    story = await small_story(services, actor)
    seen = await log_size(services, story.project_id)

    longest = await services.lines.add_line(actor, story.first_scene_id, "x" * 2000)

    assert len(longest.text) == 2000
    [revision] = await written_since(services, story.project_id, seen)
    assert (revision.entity_id, revision.action, revision.before, revision.after["text"]) == (
        longest.id,
        "created",
        None,
        "x" * 2000,
    )
    before = await database_state(services)
    for attempt in (
        services.lines.add_line(actor, story.first_scene_id, "x" * 2001),
        services.lines.update_line(actor, longest.id, text="y" * 2001),
    ):
        with pytest.raises(RomergoError) as refused:
            await attempt
        assert refused.value.code == "invalid_argument"
        assert "2001" in refused.value.message and "2000" in refused.value.message
    assert await database_state(services) == before


async def test_hindi_with_combining_marks_counts_code_points_and_round_trips_exactly(services, actor):
    story = await small_story(services, actor)
    text = hindi_text(2000)
    assert len(text) == 2000
    assert sum(unicodedata.category(ch) in ("Mn", "Mc") for ch in text) > 400

    line = await services.lines.add_line(actor, story.first_scene_id, text, story.hero_id)

    view = await services.scenes.scene_view(actor, story.first_scene_id)
    assert view.lines[0].line.text == text
    assert (await revisions(services, story.project_id))[-1].after["text"] == text
    assert line.text == text

    before = await database_state(services)
    with pytest.raises(RomergoError) as refused:
        await services.lines.add_line(actor, story.first_scene_id, hindi_text(2001))
    assert refused.value.code == "invalid_argument"
    assert await database_state(services) == before


async def test_scripts_joiners_and_line_breaks_are_kept_as_typed(services, actor):
    story = await small_story(services, actor)
    family = "👩\u200d👩\u200d👧"
    text = f"Line one\r\n\tIndented {family} e\u0301 ١٢٣"
    seen = await log_size(services, story.project_id)

    line = await services.lines.add_line(actor, story.first_scene_id, text)

    # Only the Windows line ending is normalised; the ZWJ sequence and the decomposed é stay.
    expected = f"Line one\n\tIndented {family} e\u0301 ١٢٣"
    assert line.text == expected
    assert (await lines_of(services, actor, story.first_scene_id))[0][2] == expected
    [revision] = await written_since(services, story.project_id, seen)
    assert (revision.entity_id, revision.action, revision.before, revision.after["text"]) == (
        line.id,
        "created",
        None,
        expected,
    )


BAD_TEXTS = [
    ("", "must not be empty"),
    ("  \n\t ", "must not be empty"),
    ("bell\x07", "control characters"),
    ("nul\x00byte", "control characters"),
    ("\x1b[31mred\x1b[0m", "control characters"),
    ("next\x85line", "control characters"),
    (None, "must be text"),
    (b"bytes", "must be text"),
]


async def test_old_mac_and_windows_line_ends_become_newlines(services, actor):
    story = await small_story(services, actor)
    line = await services.lines.add_line(actor, story.first_scene_id, "one\rtwo\r\nthree")
    assert line.text == "one\ntwo\nthree"


async def test_bad_text_is_refused_and_changes_nothing(services, actor):
    story = await small_story(services, actor)
    line = await services.lines.add_line(actor, story.first_scene_id, "Keep me.")
    before = await database_state(services)

    for text, message in BAD_TEXTS:
        with pytest.raises(RomergoError) as added:
            await services.lines.add_line(actor, story.first_scene_id, text)
        assert added.value.code == "invalid_argument", text
        assert message in added.value.message, text
        if text is not None:  # None means "keep the text" for an update
            with pytest.raises(RomergoError) as updated:
                await services.lines.update_line(actor, line.id, text=text)
            assert updated.value.code == "invalid_argument", text
    assert await database_state(services) == before


async def test_unknown_or_foreign_speakers_are_not_found(services, actor):
    story = await small_story(services, actor)
    other = await small_story(services, actor, "Other")
    line = await services.lines.add_line(actor, story.first_scene_id, "Keep me.", story.hero_id)
    before = await database_state(services)

    for character_id in ("chr_nope", other.hero_id, ""):
        with pytest.raises(RomergoError) as added:
            await services.lines.add_line(actor, story.first_scene_id, "Hi.", character_id)
        assert added.value.code == "not_found"
        with pytest.raises(RomergoError) as updated:
            await services.lines.update_line(actor, line.id, text="Changed.", character_id=character_id)
        assert updated.value.code == "not_found"
    assert await database_state(services) == before


async def test_bad_positions_and_foreign_scenes_change_nothing(services, actor):
    story = await small_story(services, actor)
    line = await services.lines.add_line(actor, story.first_scene_id, "Keep me.")
    stranger = user_actor((await services.accounts.create_user("stranger")).id)
    before = await database_state(services)

    for attempt, code in (
        (services.lines.add_line(actor, story.first_scene_id, "Hi.", position=-1), "invalid_argument"),
        (services.lines.add_line(actor, story.first_scene_id, "Hi.", position=True), "invalid_argument"),
        (services.lines.move_line(actor, line.id, -2), "invalid_argument"),
        (services.lines.move_line(actor, line.id, "0"), "invalid_argument"),
        (services.lines.add_line(actor, "scn_nope", "Hi."), "not_found"),
        (services.lines.add_line(stranger, story.first_scene_id, "Hi."), "not_found"),
        (services.lines.update_line(stranger, line.id, text="Mine."), "not_found"),
        (services.lines.move_line(stranger, line.id, 0), "not_found"),
        (services.lines.delete_line(stranger, line.id), "not_found"),
        (services.lines.update_line(actor, "lin_nope", text="Hi."), "not_found"),
    ):
        with pytest.raises(RomergoError) as refused:
            await attempt
        assert refused.value.code == code
    assert await database_state(services) == before

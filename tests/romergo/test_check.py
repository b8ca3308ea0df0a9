"""The story check: one problem code at a time on an otherwise clean story, then the seeded demo.

Most tests run `check_story` as pure logic on rows built in memory: each starts from a story with
no problems, breaks exactly one thing, and expects exactly one problem back.
"""

from __future__ import annotations

import threading
from datetime import UTC, datetime

from sqlmodel import col, update

from romergo.common.actors import system_actor
from romergo.demo import story as demo_story
from romergo.demo.seed import seed_demo
from romergo.story import ChoiceSpec
from romergo.story.check import StoredMedia, check_story
from romergo.story.views import ProjectData
from storage.tables import Asset, AssetBlob, Chapter, Character, Choice, DialogueLine, Project, Scene
from tests.support.story import TINY_PNG, TINY_WAV, small_story

# The check's rules are the core's; the story it reads comes through the story ledger, whose
# contract tests run on both databases.
DATABASES = ("sqlite",)

NOW = datetime(2026, 1, 1, tzinfo=UTC)


class StoryRows:
    """Rows of one project, built in memory; `data()` hands them to the check like the loader does."""

    def __init__(self) -> None:
        self.project = Project(id="prj_1", owner_id="usr_1", title="Rows", created_at=NOW, updated_at=NOW)
        self.chapters: list[Chapter] = []
        self.scenes: list[Scene] = []
        self.lines: list[DialogueLine] = []
        self.choices: list[Choice] = []
        self.characters: list[Character] = []
        self.assets: list[Asset] = []

    def asset(self, kind: str, name: str) -> Asset:
        asset = Asset(
            id=f"ast_{name.lower()}",
            project_id=self.project.id,
            kind=kind,
            name=name,
            tags=[],
            mime="image/png" if kind == "background" else "audio/wav",
            size=1,
            sha256="0",
            blob_id="blb_1",
            created_at=NOW,
        )
        self.assets.append(asset)
        return asset

    def character(self, name: str) -> Character:
        character = Character(
            id=f"chr_{name.lower()}",
            project_id=self.project.id,
            name=name,
            color="#000000",
            created_at=NOW,
            updated_at=NOW,
        )
        self.characters.append(character)
        return character

    def chapter(self, title: str, music: Asset | None = None, background: Asset | None = None) -> Chapter:
        chapter = Chapter(
            id=f"chp_{title.lower()}",
            project_id=self.project.id,
            title=title,
            position=len(self.chapters),
            music_asset_id=music.id if music else None,
            background_asset_id=background.id if background else None,
            created_at=NOW,
            updated_at=NOW,
        )
        self.chapters.append(chapter)
        return chapter

    def scene(
        self, chapter: Chapter, title: str, *, start: bool = False, ending: bool = False, line: bool = True
    ) -> Scene:
        scene = Scene(
            id=f"scn_{title.lower()}",
            project_id=self.project.id,
            chapter_id=chapter.id,
            title=title,
            position=sum(s.chapter_id == chapter.id for s in self.scenes),
            is_start=start,
            is_ending=ending,
            created_at=NOW,
            updated_at=NOW,
        )
        self.scenes.append(scene)
        if line:
            self.line(scene, f"In {title}.")
        return scene

    def line(self, scene: Scene, text: str, speaker: str | None = None) -> DialogueLine:
        line = DialogueLine(
            id=f"lin_{len(self.lines)}",
            project_id=self.project.id,
            scene_id=scene.id,
            position=sum(x.scene_id == scene.id for x in self.lines),
            character_id=speaker,
            text=text,
            created_at=NOW,
            updated_at=NOW,
        )
        self.lines.append(line)
        return line

    def choice(self, scene: Scene, target: Scene | str | None, label: str | None = None) -> Choice:
        label = label if label is not None else f"Go on ({len(self.choices) + 1})"
        choice = Choice(
            id=f"cho_{len(self.choices)}",
            project_id=self.project.id,
            scene_id=scene.id,
            position=sum(c.scene_id == scene.id for c in self.choices),
            label=label,
            target_scene_id=target.id if isinstance(target, Scene) else target,
        )
        self.choices.append(choice)
        return choice

    def data(self) -> ProjectData:
        return ProjectData(
            self.project, self.chapters, self.scenes, self.lines, self.choices, self.characters, self.assets
        )


def clean_story() -> tuple[StoryRows, Chapter, Scene, Scene]:
    """Start → End in one chapter with music and a background; the hero speaks. No problems."""
    rows = StoryRows()
    chapter = rows.chapter("One", rows.asset("music", "Theme"), rows.asset("background", "Sky"))
    hero = rows.character("Hero")
    start = rows.scene(chapter, "Start", start=True)
    rows.line(start, "Onward!", hero.id)
    end = rows.scene(chapter, "End", ending=True)
    rows.choice(start, end)
    return rows, chapter, start, end


def found(rows: StoryRows) -> list[tuple[str, str, str | None, str | None]]:
    return [(p.code, p.severity, p.scene_id, p.chapter_id) for p in check_story(rows.data())]


def test_a_clean_story_has_no_problems():
    rows, _, _, _ = clean_story()
    assert check_story(rows.data()) == []


def test_dangling_target_for_a_deleted_or_missing_target():
    rows, chapter, start, _ = clean_story()
    rows.choice(start, "scn_gone", "Into the void")
    rows.choice(start, None, "Nowhere")

    assert found(rows) == [
        ("dangling_target", "error", start.id, chapter.id),
        ("dangling_target", "error", start.id, chapter.id),
    ]
    messages = [p.message for p in check_story(rows.data())]
    assert "Into the void" in messages[0] and "no longer exists" in messages[0]
    assert "Nowhere" in messages[1] and "has no target" in messages[1]


def test_unreachable_scene():
    rows, chapter, _, _ = clean_story()
    cellar = rows.scene(chapter, "Cellar", ending=True)

    assert found(rows) == [("unreachable_scene", "warning", cellar.id, chapter.id)]
    assert "Cellar" in check_story(rows.data())[0].message


def test_dead_end():
    rows, chapter, start, _ = clean_story()
    stuck = rows.scene(chapter, "Stuck")
    rows.choice(start, stuck)

    assert found(rows) == [("dead_end", "warning", stuck.id, chapter.id)]


def test_a_scene_whose_only_choice_dangles_is_no_dead_end_but_a_dangling_target():
    rows, chapter, start, _ = clean_story()
    hall = rows.scene(chapter, "Hall")
    rows.choice(start, hall)
    rows.choice(hall, "scn_gone")

    assert [code for code, *_ in found(rows)] == ["dangling_target"]


def test_loop_without_exit():
    rows, chapter, start, _ = clean_story()
    left = rows.scene(chapter, "Left")
    right = rows.scene(chapter, "Right")
    rows.choice(start, left)
    rows.choice(left, right)
    rows.choice(right, left)

    assert found(rows) == [("loop_without_exit", "error", left.id, chapter.id)]
    assert '"Left", "Right"' in check_story(rows.data())[0].message


def test_a_scene_that_only_leads_to_itself_is_a_loop_without_exit():
    rows, chapter, start, _ = clean_story()
    maze = rows.scene(chapter, "Maze")
    rows.choice(start, maze)
    rows.choice(maze, maze, "Try again")

    assert found(rows) == [("loop_without_exit", "error", maze.id, chapter.id)]


def test_a_loop_with_a_way_out_is_fine():
    rows, chapter, start, end = clean_story()
    left = rows.scene(chapter, "Left")
    right = rows.scene(chapter, "Right")
    rows.choice(start, left)
    rows.choice(left, right)
    rows.choice(right, left)
    rows.choice(right, end, "Leave")
    # The start itself may be part of a loop too, as long as an ending can be reached.
    rows.choice(left, start, "Back to the start")

    assert check_story(rows.data()) == []


def test_a_loop_whose_only_exit_is_a_dead_end_still_cannot_end():
    rows, chapter, start, _ = clean_story()
    left = rows.scene(chapter, "Left")
    right = rows.scene(chapter, "Right")
    stuck = rows.scene(chapter, "Stuck")
    for source, target in ((start, left), (left, right), (right, left), (right, stuck)):
        rows.choice(source, target)

    assert found(rows) == [
        ("dead_end", "warning", stuck.id, chapter.id),
        ("loop_without_exit", "error", left.id, chapter.id),
    ]


def test_missing_background_and_the_chapter_background_counts():
    rows = StoryRows()
    music = rows.asset("music", "Theme")
    sky = rows.asset("background", "Sky")
    bare = rows.chapter("Bare", music)
    start = rows.scene(bare, "Start", start=True)
    end = rows.scene(bare, "End", ending=True)
    rows.choice(start, end)
    end.background_asset_id = sky.id

    assert found(rows) == [("missing_background", "warning", start.id, bare.id)]

    bare.background_asset_id = sky.id
    assert check_story(rows.data()) == []


def test_a_background_that_is_no_longer_a_live_asset_is_missing():
    rows, chapter, start, end = clean_story()
    end.background_asset_id = chapter.background_asset_id
    chapter.background_asset_id = None
    # Deleted assets are not among the project's assets, as the loader leaves them out.
    start.background_asset_id = "ast_deleted"

    assert found(rows) == [("missing_background", "warning", start.id, chapter.id)]


def test_missing_music_and_the_chapter_music_counts():
    rows = StoryRows()
    sky = rows.asset("background", "Sky")
    tune = rows.asset("music", "Tune")
    quiet = rows.chapter("Quiet", background=sky)
    start = rows.scene(quiet, "Start", start=True)
    end = rows.scene(quiet, "End", ending=True)
    rows.choice(start, end)
    start.music_asset_id = tune.id

    assert found(rows) == [("missing_music", "warning", end.id, quiet.id)]

    quiet.music_asset_id = tune.id
    assert check_story(rows.data()) == []


def test_empty_scene():
    rows, chapter, start, end = clean_story()
    silent = rows.scene(chapter, "Silent", line=False)
    rows.choice(start, silent)
    rows.choice(silent, end)

    assert found(rows) == [("empty_scene", "warning", silent.id, chapter.id)]


def test_a_scene_with_no_lines_and_no_choices_is_one_blank_scene_problem():
    rows, chapter, start, _ = clean_story()
    blank_ending = rows.scene(chapter, "Silent", ending=True, line=False)
    blank = rows.scene(chapter, "Void", line=False)
    rows.choice(start, blank_ending)
    rows.choice(start, blank)

    assert found(rows) == [
        ("blank_scene", "error", blank_ending.id, chapter.id),
        ("blank_scene", "error", blank.id, chapter.id),
    ]
    assert "no lines and no choices" in check_story(rows.data())[0].message


def test_choice_labels_empty_or_twice_in_one_scene():
    rows, chapter, start, end = clean_story()
    rows.choice(start, end, "  ")
    rows.choice(start, end, "go on (1)")  # the first choice's label, in other case

    assert found(rows) == [
        ("empty_choice_label", "error", start.id, chapter.id),
        ("duplicate_choice_label", "warning", start.id, chapter.id),
    ]
    assert 'offers "go on (1)" twice' in check_story(rows.data())[1].message


def test_media_that_would_not_load_are_errors_when_the_stored_bytes_are_given():
    rows, _, _, _ = clean_story()
    theme, sky = rows.assets
    png = b"\x89PNG\r\n\x1a\n" + b"\0" * 8
    sky.size = theme.size = 16
    fine = {sky.id: StoredMedia(png, 16), theme.id: StoredMedia(b"RIFF\0\0\0\0WAVEfmt ", 16)}
    assert check_story(rows.data(), fine) == []

    def problems(media):
        return [(p.code, p.message) for p in check_story(rows.data(), media)]

    assert problems({theme.id: fine[theme.id]}) == [
        ("unreadable_media", 'Background "Sky" cannot be loaded: its file is missing.')
    ]
    assert problems({**fine, sky.id: StoredMedia(png, 9)}) == [
        ("unreadable_media", 'Background "Sky" cannot be loaded: its file is cut short (9 of 16 bytes).')
    ]
    assert problems({**fine, theme.id: StoredMedia(png, 16)}) == [
        ("unreadable_media", 'Music "Theme" cannot be loaded: its file is no longer a audio/wav file.')
    ]


def test_unknown_speaker():
    rows, chapter, start, _ = clean_story()
    rows.line(start, "Boo.", "chr_ghost")

    assert found(rows) == [("unknown_speaker", "error", start.id, chapter.id)]
    assert "Line 3" in check_story(rows.data())[0].message


def test_no_start_scene_and_then_nothing_is_called_unreachable():
    rows, _, start, _ = clean_story()
    start.is_start = False

    assert found(rows) == [("no_start_scene", "error", None, None)]


def test_an_empty_project_has_no_start_scene():
    assert found(StoryRows()) == [("no_start_scene", "error", None, None)]


def test_unused_asset():
    rows, _, _, _ = clean_story()
    rows.asset("music", "Spare")
    rows.asset("background", "Attic")
    rows.asset("sound", "Bell")  # sounds have no slot to be used in, so they are never reported

    problems = check_story(rows.data())
    assert [(p.code, p.severity, p.scene_id, p.chapter_id) for p in problems] == [
        ("unused_asset", "info", None, None),
        ("unused_asset", "info", None, None),
    ]
    assert ['"Attic"' in problems[0].message, '"Spare"' in problems[1].message] == [True, True]


def test_problems_come_in_story_order_across_chapters():
    rows, first_chapter, start, _ = clean_story()
    second_chapter = rows.chapter("Two", rows.assets[0], rows.assets[1])
    early = rows.scene(second_chapter, "Early", line=False, ending=True)
    late = rows.scene(first_chapter, "Late", line=False, ending=True)
    rows.choice(start, early)
    rows.choice(start, late)
    # Positions, not the order rows were made in, decide: chapter Two comes after chapter One.

    assert [(code, scene_id) for code, _, scene_id, _ in found(rows)] == [
        ("blank_scene", late.id),
        ("blank_scene", early.id),
    ]


# Through the service, on the real database.


async def test_the_service_checks_what_is_stored(services, actor):
    story = await small_story(services, actor)
    sky = await services.assets.import_asset(actor, story.project_id, "background", "Sky", TINY_PNG)
    theme = await services.assets.import_asset(actor, story.project_id, "music", "Theme", TINY_WAV)
    await services.chapters.set_chapter_background(actor, story.chapter_id, sky.id)
    await services.chapters.set_chapter_music(actor, story.chapter_id, theme.id)
    await services.lines.add_line(actor, story.first_scene_id, "Hello.", story.hero_id)
    await services.lines.add_line(actor, story.second_scene_id, "Goodbye.")
    await services.scenes.update_scene(actor, story.second_scene_id, is_ending=True)
    await services.scenes.set_choices(actor, story.first_scene_id, [ChoiceSpec("On", story.second_scene_id)])
    assert await services.reads.check_story(actor, story.project_id) == []

    spare = await services.assets.import_asset(actor, story.project_id, "music", "Spare", TINY_WAV)
    await services.assets.delete_asset(actor, theme.id)
    problems = await services.reads.check_story(actor, story.project_id)
    assert [(p.code, p.scene_id) for p in problems] == [
        ("missing_music", story.first_scene_id),
        ("missing_music", story.second_scene_id),
        ("unused_asset", None),
    ]
    assert spare.name in problems[2].message

    await services.scenes.delete_scene(actor, story.second_scene_id)
    codes = [(p.code, p.scene_id) for p in await services.reads.check_story(actor, story.project_id)]
    assert ("dangling_target", story.first_scene_id) in codes


async def test_unknown_speaker_when_a_character_disappeared_underneath(services, actor):
    story = await small_story(services, actor)
    line = await services.lines.add_line(actor, story.first_scene_id, "Hello.", story.hero_id)
    async with services.db.write() as session:
        await session.exec(
            update(DialogueLine).where(col(DialogueLine.id) == line.id).values(character_id="chr_gone")
        )

    problems = await services.reads.check_story(actor, story.project_id)

    assert [(p.code, p.scene_id, p.chapter_id) for p in problems if p.code == "unknown_speaker"] == [
        ("unknown_speaker", story.first_scene_id, story.chapter_id)
    ]
    # The scene still shows the line, as narration-like text without a speaker name.
    view = await services.scenes.scene_view(actor, story.first_scene_id)
    assert (view.lines[0].speaker, view.lines[0].line.text) == (None, "Hello.")


async def test_a_stored_background_cut_short_is_found_on_the_real_database(services, actor):
    story = await small_story(services, actor)
    sky = await services.assets.import_asset(actor, story.project_id, "background", "Sky", TINY_PNG)
    await services.scenes.set_scene_background(actor, story.first_scene_id, sky.id)
    assert "unreadable_media" not in {
        p.code for p in await services.reads.check_story(actor, story.project_id)
    }
    async with services.db.write() as session:
        await session.exec(
            update(AssetBlob).where(col(AssetBlob.id) == sky.blob_id).values(data=TINY_PNG[:20])
        )

    problems = await services.reads.check_story(actor, story.project_id)

    assert [p.message for p in problems if p.code == "unreadable_media"] == [
        f'Background "Sky" cannot be loaded: its file is cut short (20 of {len(TINY_PNG):,} bytes).'
    ]


async def test_the_demo_has_exactly_its_deliberate_problems_until_they_are_mended(services, author):
    project, created = await seed_demo(services, author.id)
    actor = system_actor(author.id)
    assert created
    data = await services.reads.project_data(actor, project.id)
    by_title = {scene.title: scene for scene in data.scenes}
    cellar = by_title[demo_story.DELIBERATE_PROBLEM_SCENE]
    beacon_title, signal = demo_story.DELIBERATE_STATE_PROBLEM
    beacon = by_title[beacon_title]

    problems = await services.reads.check_story(actor, project.id)

    assert [(p.code, p.scene_id, p.chapter_id) for p in problems] == [
        ("unreachable_scene", cellar.id, cellar.chapter_id),
        ("unset_variable", None, None),
        ("never_true_condition", beacon.id, beacon.chapter_id),
    ]
    assert "The Forgotten Cellar" in problems[0].message
    assert '"lens_mended"' in problems[1].message and "always false" in problems[1].message
    assert f'"{signal}"' in problems[2].message

    lamp_room = by_title["The Lamp Room"]
    kept = [ChoiceSpec(c.label, c.target_scene_id) for c in data.choices_of(lamp_room.id)]
    await services.scenes.set_choices(
        actor, lamp_room.id, [*kept, ChoiceSpec("Go down to the cellar", cellar.id)]
    )
    await services.scenes.update_scene(actor, lamp_room.id, entry_effects="set lens_mended = true")

    assert await services.reads.check_story(actor, project.id) == []


async def test_the_service_checks_off_the_event_loop(services, actor, monkeypatch):
    # The check is pure Python over the whole story: on the loop's own thread, every other call
    # would wait for it (a long story takes ~0.1 s).
    story = await small_story(services, actor)
    threads: list[int] = []

    def checking(*args, **kwargs):
        threads.append(threading.get_ident())
        return check_story(*args, **kwargs)

    monkeypatch.setattr("romergo.story.check.check_story", checking)
    await services.reads.check_story(actor, story.project_id)
    await services.reads.story_map(actor, story.project_id)
    assert len(threads) == 2
    assert threading.get_ident() not in threads

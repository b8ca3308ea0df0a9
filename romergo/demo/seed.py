"""Seed the demo project through the story service, so it is valid by the same rules as any edit."""

from __future__ import annotations

import asyncio

from romergo.actors import system_actor
from romergo.demo import story
from romergo.demo.media import png_backdrop, wav_loop
from romergo.story import ChoiceSpec, StoryService
from storage.tables import Project


async def seed_demo(stories: StoryService, user_id: str) -> tuple[Project, bool]:
    """Create the demo project for `user_id` unless they already have it. Returns (project, created)."""
    actor = system_actor(user_id)
    for project in await stories.list_projects(actor):
        if project.title == story.TITLE:
            return project, False
    project = await stories.create_project(actor, story.TITLE)

    # Rendering is a second or so of pure Python: keep it off the event loop.
    images = await asyncio.to_thread(
        lambda: {name: png_backdrop(b) for name, (b, _) in story.BACKGROUNDS.items()}
    )
    loops = await asyncio.to_thread(lambda: {name: wav_loop(t) for name, (t, _) in story.MUSIC.items()})
    assets: dict[str, str] = {}
    for name, (_, tags) in story.BACKGROUNDS.items():
        assets[name] = (
            await stories.import_asset(actor, project.id, "background", name, images[name], tags)
        ).id
    for name, (_, tags) in story.MUSIC.items():
        assets[name] = (await stories.import_asset(actor, project.id, "music", name, loops[name], tags)).id
    characters = {
        name: (await stories.add_character(actor, project.id, name, color)).id
        for name, color in story.CHARACTERS.items()
    }

    scenes: dict[str, str] = {}
    for chapter_title, music, chapter_scenes in story.CHAPTERS:
        chapter = await stories.add_chapter(actor, project.id, chapter_title)
        await stories.set_chapter_music(actor, chapter.id, assets[music])
        for title, background, is_ending, lines, _ in chapter_scenes:
            scene = await stories.add_scene(actor, chapter.id, title)
            scenes[title] = scene.id
            await stories.set_scene_background(actor, scene.id, assets[background])
            if is_ending:
                await stories.update_scene(actor, scene.id, is_ending=True)
            for speaker, text in lines:
                await stories.add_line(actor, scene.id, text, characters[speaker] if speaker else None)
    for _, _, chapter_scenes in story.CHAPTERS:
        for title, _, _, _, choices in chapter_scenes:
            if choices:
                specs = [ChoiceSpec(label, scenes[target]) for label, target in choices]
                await stories.set_choices(actor, scenes[title], specs)
    return await stories.get_project(actor, project.id), True

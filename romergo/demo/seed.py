"""Seed the demo project through the story services, so it is valid by the same rules as any edit."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from romergo.common.actors import Actor, system_actor
from romergo.demo import story
from romergo.demo.media import png_backdrop, wav_loop
from romergo.story import ChoiceSpec
from romergo.story.ledger import ProjectRecord

if TYPE_CHECKING:
    from romergo.services import Services


async def seed_demo(services: Services, user_id: str) -> tuple[ProjectRecord, bool]:
    """Create the demo project for `user_id` unless they already have it. Returns (project, created)."""
    actor = system_actor(user_id)
    for project in await services.projects.list_projects(actor):
        if project.title == story.TITLE and project.owner_id == user_id:  # not one they only work on
            return project, False
    project = await services.projects.create_project(actor, story.TITLE)
    assets = await _import_media(services, actor, project.id)
    characters = {
        name: (await services.characters.add_character(actor, project.id, name, color)).id
        for name, color in story.CHARACTERS.items()
    }
    for name, kind, initial, description in story.VARIABLES:
        await services.variables.add_variable(actor, project.id, name, kind, initial, description)
    scenes = await _write_chapters(services, actor, project.id, assets, characters)
    await _connect_scenes(services, actor, scenes)
    return await services.projects.get_project(actor, project.id), True


async def _import_media(services: Services, actor: Actor, project_id: str) -> dict[str, str]:
    """Asset name → id for every demo background and tune."""
    # Rendering is a second or so of pure Python: keep it off the event loop.
    images = await asyncio.to_thread(
        lambda: {name: png_backdrop(b) for name, (b, _) in story.BACKGROUNDS.items()}
    )
    loops = await asyncio.to_thread(lambda: {name: wav_loop(t) for name, (t, _) in story.MUSIC.items()})
    media = [
        *(("background", name, images[name], tags) for name, (_, tags) in story.BACKGROUNDS.items()),
        *(("music", name, loops[name], tags) for name, (_, tags) in story.MUSIC.items()),
    ]
    ids: dict[str, str] = {}
    for kind, name, data, tags in media:
        ids[name] = (await services.assets.import_asset(actor, project_id, kind, name, data, tags)).id
    return ids


async def _write_chapters(
    services: Services, actor: Actor, project_id: str, assets: dict[str, str], characters: dict[str, str]
) -> dict[str, str]:
    """Chapters, scenes and lines, in story order. Returns scene title → id."""
    scenes: dict[str, str] = {}
    for chapter_title, music, chapter_scenes in story.CHAPTERS:
        chapter = await services.chapters.add_chapter(actor, project_id, chapter_title)
        await services.chapters.set_chapter_music(actor, chapter.id, assets[music])
        for title, background, is_ending, lines, _ in chapter_scenes:
            scene = await services.scenes.add_scene(actor, chapter.id, title)
            scenes[title] = scene.id
            await services.scenes.set_scene_background(actor, scene.id, assets[background])
            if is_ending:
                await services.scenes.update_scene(actor, scene.id, is_ending=True)
            for speaker, text in lines:
                await services.lines.add_line(actor, scene.id, text, characters[speaker] if speaker else None)
            for speaker, text, condition in story.CONDITIONAL_LINES.get(title, []):
                who = characters[speaker] if speaker else None
                await services.lines.add_line(actor, scene.id, text, who, condition=condition)
            if title in story.ENTRY_EFFECTS:
                await services.scenes.update_scene(actor, scene.id, entry_effects=story.ENTRY_EFFECTS[title])
    return scenes


async def _connect_scenes(services: Services, actor: Actor, scenes: dict[str, str]) -> None:
    """Choices come last: a choice may lead to a scene of a later chapter."""
    for _, _, chapter_scenes in story.CHAPTERS:
        for title, _, _, _, choices in chapter_scenes:
            specs = [ChoiceSpec(label, scenes[target]) for label, target in choices]
            specs += [
                ChoiceSpec(label, scenes[target], condition=condition)
                for label, target, condition in story.CONDITIONAL_CHOICES.get(title, [])
            ]
            if specs:
                await services.scenes.set_choices(actor, scenes[title], specs)

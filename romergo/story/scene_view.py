"""One scene as the editor and the tools show it: lines with speakers, choices, effective media."""

from __future__ import annotations

from sqlmodel import col, select

from romergo.story.base import UnitOfWork
from romergo.story.media_rules import MediaSlot, asset_in_slot, effective_media
from romergo.story.views import AssetSlot, ChoiceView, LineView, SceneView
from storage.tables import Asset, Chapter, Character, Choice, DialogueLine, Scene


async def load_scene_view(uow: UnitOfWork, scene_id: str) -> SceneView:
    scene = await uow.scene(scene_id)
    assert uow.project is not None
    chapter = await uow.chapter(scene.chapter_id)
    lines = await uow.ordered(DialogueLine, col(DialogueLine.scene_id), scene.id)
    choices = await uow.choices_of(scene.id)
    characters = list(
        (await uow.session.exec(select(Character).where(Character.project_id == scene.project_id))).all()
    )
    by_id = {c.id: c for c in characters}
    return SceneView(
        project=uow.project,
        chapter=chapter,
        scene=scene,
        background=await _slot(uow, scene, chapter, "background"),
        music=await _slot(uow, scene, chapter, "music"),
        lines=[_line_view(line, by_id) for line in lines],
        choices=await _choice_views(uow, scene, choices),
        characters=sorted(characters, key=lambda c: c.name.casefold()),
    )


async def _choice_views(uow: UnitOfWork, scene: Scene, choices: list[Choice]) -> list[ChoiceView]:
    wanted = [c.target_scene_id for c in choices if c.target_scene_id]
    if not wanted:
        return [ChoiceView(choice, None, None) for choice in choices]
    statement = select(Scene).where(Scene.project_id == scene.project_id, col(Scene.id).in_(wanted))
    targets = {row.id: row for row in (await uow.session.exec(statement)).all()}
    views = []
    for choice in choices:
        target = targets.get(choice.target_scene_id) if choice.target_scene_id else None
        views.append(
            ChoiceView(choice, target.title if target else None, target.chapter_id if target else None)
        )
    return views


async def _slot(uow: UnitOfWork, scene: Scene, chapter: Chapter, slot: MediaSlot) -> AssetSlot:
    candidates: dict[str, Asset] = {}
    for row in (scene, chapter):
        asset_id = asset_in_slot(row, slot)
        asset = await uow.session.get(Asset, asset_id) if asset_id else None
        if asset is not None and asset.deleted_at is None:
            candidates[asset.id] = asset
    chosen = effective_media(scene, chapter, slot, candidates)
    return AssetSlot(candidates[chosen.asset_id], chosen.source) if chosen.asset_id else AssetSlot(None, None)


def _line_view(line: DialogueLine, characters: dict[str, Character]) -> LineView:
    speaker = characters.get(line.character_id) if line.character_id else None
    return LineView(line, speaker.name if speaker else None, speaker.color if speaker else None)

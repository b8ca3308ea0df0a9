"""One scene as the editor and the tools show it: lines with speakers, choices, effective media."""

from __future__ import annotations

from sqlalchemy import bindparam
from sqlmodel import col, select

from romergo.story.base import UnitOfWork
from romergo.story.media_rules import MEDIA_SLOTS, MediaSlot, asset_in_slot, effective_media
from romergo.story.views import AssetSlot, ChoiceView, LineView, SceneView
from storage.tables import Asset, Chapter, Character, Choice, DialogueLine, Scene


async def load_scene_view(uow: UnitOfWork, scene_id: str) -> SceneView:
    scene, chapter = await uow.scene_in_chapter(scene_id)
    assert uow.project is not None
    lines = await uow.ordered(DialogueLine, col(DialogueLine.scene_id), scene.id)
    choices = await uow.choices_of(scene.id)
    characters = list((await uow.session.exec(_CHARACTERS, params={"project_id": scene.project_id})).all())
    by_id = {c.id: c for c in characters}
    media = await _live_media(uow, scene, chapter)
    return SceneView(
        project=uow.project,
        chapter=chapter,
        scene=scene,
        background=_slot(scene, chapter, "background", media),
        music=_slot(scene, chapter, "music", media),
        lines=[_line_view(line, by_id) for line in lines],
        choices=await _choice_views(uow, scene, choices),
        characters=sorted(characters, key=lambda c: c.name.casefold()),
    )


# Built once: a scene view runs on every `romergo_get_scene` and every editor refresh, and building
# these cost about as much as running them (issue 16).
_CHARACTERS = select(Character).where(col(Character.project_id) == bindparam("project_id"))
_TARGETS = select(col(Scene.id), col(Scene.title), col(Scene.chapter_id)).where(
    col(Scene.project_id) == bindparam("project_id"), col(Scene.id).in_(bindparam("ids", expanding=True))
)
_LIVE_MEDIA = select(Asset).where(
    col(Asset.project_id) == bindparam("project_id"),
    col(Asset.id).in_(bindparam("ids", expanding=True)),
    col(Asset.deleted_at).is_(None),
)


async def _choice_views(uow: UnitOfWork, scene: Scene, choices: list[Choice]) -> list[ChoiceView]:
    wanted = [c.target_scene_id for c in choices if c.target_scene_id]
    if not wanted:
        return [ChoiceView(choice, None, None) for choice in choices]
    found = await uow.session.exec(_TARGETS, params={"project_id": scene.project_id, "ids": wanted})
    # (title, chapter) by scene id: the view needs no more of the target than that.
    targets = {scene_id: (title, chapter_id) for scene_id, title, chapter_id in found.all()}
    views = []
    for choice in choices:
        title, chapter_id = targets.get(choice.target_scene_id or "", (None, None))
        views.append(ChoiceView(choice, title, chapter_id))
    return views


async def _live_media(uow: UnitOfWork, scene: Scene, chapter: Chapter) -> dict[str, Asset]:
    """The undeleted assets the scene's and its chapter's slots name, in one statement."""
    named = {
        asset_id
        for row in (scene, chapter)
        for slot in MEDIA_SLOTS
        if (asset_id := asset_in_slot(row, slot)) is not None
    }
    if not named:
        return {}
    found = await uow.session.exec(_LIVE_MEDIA, params={"project_id": scene.project_id, "ids": list(named)})
    return {asset.id: asset for asset in found.all()}


def _slot(scene: Scene, chapter: Chapter, slot: MediaSlot, media: dict[str, Asset]) -> AssetSlot:
    chosen = effective_media(scene, chapter, slot, media)
    return AssetSlot(media[chosen.asset_id], chosen.source) if chosen.asset_id else AssetSlot(None, None)


def _line_view(line: DialogueLine, characters: dict[str, Character]) -> LineView:
    speaker = characters.get(line.character_id) if line.character_id else None
    return LineView(line, speaker.name if speaker else None, speaker.color if speaker else None)

"""Read side of the story: outlines, scenes with resolved media, asset usage, the story check."""

from __future__ import annotations

from typing import Any

from sqlmodel import col, select

from romergo.actors import Actor
from romergo.clock import iso
from romergo.story import check
from romergo.story.base import StoryBase, UnitOfWork
from romergo.story.views import (
    AssetSlot,
    AssetUse,
    AssetView,
    ChapterOutline,
    ChoiceView,
    LineView,
    Outline,
    ProjectData,
    RevisionView,
    SceneView,
)
from storage.tables import Asset, Chapter, Character, Choice, DialogueLine, Revision, Scene


class StoryReads(StoryBase):
    async def project_data(self, actor: Actor, project_id: str) -> ProjectData:
        async with self._read(actor) as uow:
            return await _load_project(uow, project_id)

    async def project_of(self, actor: Actor, entity_type: str, entity_id: str) -> str:
        """The project an entity belongs to, if the actor owns it (else `not_found`)."""
        async with self._read(actor) as uow:
            if entity_type == "project":
                await uow.project_by_id(entity_id)
            elif entity_type == "chapter":
                await uow.chapter(entity_id)
            elif entity_type == "scene":
                await uow.scene(entity_id)
            elif entity_type == "dialogue_line":
                await uow.line(entity_id)
            elif entity_type == "character":
                await uow.character(entity_id)
            elif entity_type == "asset":
                await uow.asset(entity_id, include_deleted=True)
            else:
                raise ValueError(f"no project lookup for {entity_type}")
            assert uow.project is not None
            return uow.project.id

    async def outline(self, actor: Actor, project_id: str) -> Outline:
        return outline_of(await self.project_data(actor, project_id))

    async def chapter_outline(self, actor: Actor, chapter_id: str) -> ChapterOutline:
        async with self._read(actor) as uow:
            chapter = await uow.chapter(chapter_id)
            scenes = await uow.ordered(Scene, col(Scene.chapter_id), chapter.id)
            return ChapterOutline(chapter, scenes)

    async def scene_view(self, actor: Actor, scene_id: str) -> SceneView:
        async with self._read(actor) as uow:
            scene = await uow.scene(scene_id)
            assert uow.project is not None
            chapter = await uow.chapter(scene.chapter_id)
            lines = await uow.ordered(DialogueLine, col(DialogueLine.scene_id), scene.id)
            choices = await uow.choices_of(scene.id)
            characters = list(
                (
                    await uow.session.exec(select(Character).where(Character.project_id == scene.project_id))
                ).all()
            )
            targets = {
                row.id: row
                for row in (
                    await uow.session.exec(
                        select(Scene).where(
                            Scene.project_id == scene.project_id,
                            col(Scene.id).in_([c.target_scene_id for c in choices if c.target_scene_id]),
                        )
                    )
                ).all()
            }
            background = await _slot(uow, scene.background_asset_id, chapter.background_asset_id)
            music = await _slot(uow, scene.music_asset_id, chapter.music_asset_id)
            by_id = {c.id: c for c in characters}
            return SceneView(
                project=uow.project,
                chapter=chapter,
                scene=scene,
                background=background,
                music=music,
                lines=[_line_view(line, by_id) for line in lines],
                choices=[
                    ChoiceView(
                        c,
                        targets[c.target_scene_id].title if c.target_scene_id in targets else None,
                        targets[c.target_scene_id].chapter_id if c.target_scene_id in targets else None,
                    )
                    for c in choices
                ],
                characters=sorted(characters, key=lambda c: c.name.casefold()),
            )

    async def assets_with_usage(
        self, actor: Actor, project_id: str, kind: str | None = None
    ) -> list[AssetView]:
        data = await self.project_data(actor, project_id)
        usage = asset_usage(data)
        return [
            AssetView(asset, usage.get(asset.id, []))
            for asset in sorted(data.assets, key=lambda a: a.name.casefold())
            if kind is None or asset.kind == kind
        ]

    async def check_story(self, actor: Actor, project_id: str) -> list[check.Problem]:
        return check.check_story(await self.project_data(actor, project_id))

    async def history(self, actor: Actor, project_id: str, limit: int = 200) -> list[RevisionView]:
        async with self._read(actor) as uow:
            await uow.project_by_id(project_id)
            statement = (
                select(Revision)
                .where(Revision.project_id == project_id)
                .order_by(col(Revision.id).desc())
                .limit(limit)
            )
            rows = (await uow.session.exec(statement)).all()
            return [RevisionView(row, _title_of(row)) for row in rows]

    async def published_view(self, actor: Actor, project_id: str) -> dict[str, Any]:
        """The frozen story a published link shows: ids, text and asset references only."""
        data = await self.project_data(actor, project_id)
        characters = {c.id: {"name": c.name, "color": c.color} for c in data.characters}
        chapters: list[dict[str, Any]] = []
        used: set[str] = set()
        for chapter in sorted(data.chapters, key=lambda c: c.position):
            scenes = []
            for scene in data.scenes_of(chapter.id):
                background = scene.background_asset_id or chapter.background_asset_id
                music = scene.music_asset_id or chapter.music_asset_id
                used.update(a for a in (background, music) if a)
                scenes.append(
                    {
                        "id": scene.id,
                        "title": scene.title,
                        "is_start": scene.is_start,
                        "is_ending": scene.is_ending,
                        "background_asset_id": background,
                        "music_asset_id": music,
                        "lines": [
                            {"character_id": line.character_id, "text": line.text}
                            for line in data.lines_of(scene.id)
                        ],
                        "choices": [
                            {"label": c.label, "target_scene_id": c.target_scene_id}
                            for c in data.choices_of(scene.id)
                        ],
                    }
                )
            chapters.append({"id": chapter.id, "title": chapter.title, "scenes": scenes})
        return {
            "title": data.project.title,
            "published_at": iso(data.project.updated_at),
            "characters": characters,
            "chapters": chapters,
            "asset_ids": sorted(used),
        }


def outline_of(data: ProjectData) -> Outline:
    chapters = [
        ChapterOutline(chapter, data.scenes_of(chapter.id))
        for chapter in sorted(data.chapters, key=lambda c: c.position)
    ]
    return Outline(data.project, chapters, sorted(data.characters, key=lambda c: c.name.casefold()))


def asset_usage(data: ProjectData) -> dict[str, list[AssetUse]]:
    usage: dict[str, list[AssetUse]] = {}
    for chapter in data.chapters:
        for slot, asset_id in (
            ("background", chapter.background_asset_id),
            ("music", chapter.music_asset_id),
        ):
            if asset_id:
                usage.setdefault(asset_id, []).append(AssetUse("chapter", chapter.id, chapter.title, slot))  # type: ignore[arg-type]
    for scene in data.scenes:
        for slot, asset_id in (("background", scene.background_asset_id), ("music", scene.music_asset_id)):
            if asset_id:
                usage.setdefault(asset_id, []).append(AssetUse("scene", scene.id, scene.title, slot))  # type: ignore[arg-type]
    return usage


async def _load_project(uow: UnitOfWork, project_id: str) -> ProjectData:
    project = await uow.project_by_id(project_id)
    session = uow.session

    async def rows(model: Any) -> list[Any]:
        return list((await session.exec(select(model).where(model.project_id == project_id))).all())

    assets = [a for a in await rows(Asset) if a.deleted_at is None]
    return ProjectData(
        project=project,
        chapters=await rows(Chapter),
        scenes=await rows(Scene),
        lines=await rows(DialogueLine),
        choices=await rows(Choice),
        characters=await rows(Character),
        assets=assets,
    )


async def _slot(uow: UnitOfWork, own: str | None, inherited: str | None) -> AssetSlot:
    for asset_id, source in ((own, "scene"), (inherited, "chapter")):
        if asset_id:
            asset = await uow.session.get(Asset, asset_id)
            if asset is not None and asset.deleted_at is None:
                return AssetSlot(asset, source)  # type: ignore[arg-type]
    return AssetSlot(None, None)


def _line_view(line: DialogueLine, characters: dict[str, Character]) -> LineView:
    speaker = characters.get(line.character_id) if line.character_id else None
    return LineView(line, speaker.name if speaker else None, speaker.color if speaker else None)


def _title_of(revision: Revision) -> str:
    snapshot = revision.after or revision.before or {}
    for key in ("title", "name", "label", "text"):
        value = snapshot.get(key)
        if isinstance(value, str):
            return value if len(value) <= 60 else value[:57] + "…"
    return revision.entity_id

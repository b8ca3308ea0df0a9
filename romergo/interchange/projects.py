"""A stored project as a `StoryDocument`, and a new project made from one in one transaction.

Keys in a document made here are the entities' ids (unique by construction); a project made from a
document gets new ids. Creating writes a "created" revision per entity, like any other write, so
the history shows the import and undo could take it back. The project is written through the story
ledger's transaction in records; a long story's scenes and choices many at once, its lines as rows.
"""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Mapping, Sequence
from typing import Any

from romergo.common.clock import utcnow
from romergo.common.errors import invalid
from romergo.common.ids import new_id
from romergo.interchange.document import (
    AssetDoc,
    ChapterDoc,
    CharacterDoc,
    ChoiceDoc,
    LineDoc,
    SceneDoc,
    StoryDocument,
    VariableDoc,
)
from romergo.story import bulk, snapshots
from romergo.story.base import Mutation
from romergo.story.characters import PALETTE
from romergo.story.ledger import (
    AssetRecord,
    ChapterRecord,
    CharacterRecord,
    ChoiceRecord,
    ProjectRecord,
    SceneRecord,
    VariableRecord,
)
from romergo.story.media_types import decodes, sniff
from romergo.story.projects import new_project
from romergo.story.state.variables import DEFAULTS
from romergo.story.views import ProjectData

SCENES_PER_FLUSH = 100
"""How many scenes (and then their choices) an import writes before it lets the event loop go
(`_let_the_loop_go`)."""


def document_of(data: ProjectData, blobs: Mapping[str, bytes]) -> StoryDocument:
    """The whole project, media bytes included (its live assets only): `data` with its assets'
    bytes by blob id."""
    speakers = {character.id: character.name for character in data.characters}
    chapters = [
        ChapterDoc(
            chapter.title,
            [_scene_doc(data, scene, speakers) for scene in data.scenes_of(chapter.id)],
            chapter.background_asset_id,
            chapter.music_asset_id,
        )
        for chapter in data.chapters_in_order()
    ]
    return StoryDocument(
        title=data.project.title,
        chapters=chapters,
        characters=[
            CharacterDoc(c.name, c.color) for c in sorted(data.characters, key=lambda c: c.created_at)
        ],
        assets=[
            AssetDoc(asset.id, asset.kind, asset.name, blobs[asset.blob_id], list(asset.tags))  # type: ignore[arg-type]
            for asset in sorted(data.assets, key=lambda a: a.created_at)
            if asset.blob_id in blobs
        ],
        variables=[
            VariableDoc(v.name, v.type, v.initial, v.description)
            for v in sorted(data.variables, key=lambda v: v.created_at)
        ],
    )


def _scene_doc(data: ProjectData, scene: SceneRecord, speakers: dict[str, str]) -> SceneDoc:
    return SceneDoc(
        key=scene.id,
        title=scene.title,
        lines=[
            LineDoc(line.text, speakers.get(line.character_id or ""), condition=line.condition)
            for line in data.lines_of(scene.id)
        ],
        choices=[
            ChoiceDoc(c.label, c.target_scene_id, condition=c.condition, effects=c.effects)
            for c in data.choices_of(scene.id)
        ],
        is_start=scene.is_start,
        is_ending=scene.is_ending,
        background=scene.background_asset_id,
        music=scene.music_asset_id,
        entry_effects=scene.entry_effects,
    )


async def create_project(tx: Mutation, document: StoryDocument) -> ProjectRecord:
    """A new project of the actor's holding everything in `document` (checked beforehand with
    `check_document`); dangling choices stay dangling."""
    project = new_project(tx.actor.user_id, document.title)
    await tx.story.add_project(project)
    await tx.project_by_id(project.id)
    tx.record("project", project.id, "created", None, snapshots.project(project))
    assets = await _add_assets(tx, project.id, document.assets)
    characters = await _add_characters(tx, project.id, document.characters)
    await _add_variables(tx, project.id, document.variables)
    scene_ids = {scene.key: new_id("scn") for scene in document.scenes()}
    scenes = await _add_chapters(tx, project.id, document.chapters, scene_ids, assets)
    # Every scene exists before any choice points at one.
    lines: list[dict[str, Any]] = []
    for part in _parts(scenes):
        choices: list[ChoiceRecord] = []
        for scene, scene_doc in part:
            choices += _recorded_choices(tx, scene, scene_doc, scene_ids)
            lines += _line_rows(scene, scene_doc, characters)
        await tx.story.add_choices(choices)
        await _let_the_loop_go()
    # A long story's lines (tens of thousands) as rows, not entities: see `story.bulk`.
    await bulk.created_in_bulk(tx, "dialogue_line", lines, snapshots.line)
    return project


async def _let_the_loop_go() -> None:
    """Let the event loop serve other calls before the import goes on.

    SQLite runs on the loop's thread, so writing a long story (2,000 scenes, ~4,000 choices) at
    once held every other call for a second. Other writers wait their turn meanwhile, as for any
    write transaction (`WriteTurns`); readers see the story once the import commits."""
    await asyncio.sleep(0)


def _parts(scenes: list[tuple[SceneRecord, SceneDoc]]) -> list[list[tuple[SceneRecord, SceneDoc]]]:
    return [scenes[start : start + SCENES_PER_FLUSH] for start in range(0, len(scenes), SCENES_PER_FLUSH)]


async def _add_chapters(
    tx: Mutation,
    project_id: str,
    documents: Sequence[ChapterDoc],
    scene_ids: dict[str, str],
    assets: dict[str, str],
) -> list[tuple[SceneRecord, SceneDoc]]:
    """The chapters, then their scenes (each with the document it was made from)."""
    now = utcnow()
    scenes: list[tuple[SceneRecord, SceneDoc]] = []
    for position, chapter_doc in enumerate(documents):
        chapter = ChapterRecord(
            id=new_id("chp"),
            project_id=project_id,
            title=chapter_doc.title,
            position=position,
            music_asset_id=assets.get(chapter_doc.music or ""),
            background_asset_id=assets.get(chapter_doc.background or ""),
            created_at=now,
            updated_at=now,
        )
        await tx.story.add_chapter(chapter)
        tx.record("chapter", chapter.id, "created", None, snapshots.chapter(chapter))
        scenes += [
            (_scene(chapter, index, scene_doc, scene_ids[scene_doc.key], assets), scene_doc)
            for index, scene_doc in enumerate(chapter_doc.scenes)
        ]
    for part in _parts(scenes):
        await tx.story.add_scenes([scene for scene, _ in part])
        await _let_the_loop_go()
    return scenes


def _scene(
    chapter: ChapterRecord, position: int, doc: SceneDoc, scene_id: str, assets: dict[str, str]
) -> SceneRecord:
    now = utcnow()
    return SceneRecord(
        id=scene_id,
        project_id=chapter.project_id,
        chapter_id=chapter.id,
        title=doc.title,
        position=position,
        is_start=doc.is_start,
        is_ending=doc.is_ending,
        background_asset_id=assets.get(doc.background or ""),
        music_asset_id=assets.get(doc.music or ""),
        entry_effects=doc.entry_effects,
        created_at=now,
        updated_at=now,
    )


def _recorded_choices(
    tx: Mutation, scene: SceneRecord, doc: SceneDoc, scene_ids: dict[str, str]
) -> list[ChoiceRecord]:
    """The scene's choices, recorded with it: they are undone with it."""
    choices = [
        ChoiceRecord(
            id=new_id("cho"),
            project_id=scene.project_id,
            scene_id=scene.id,
            position=index,
            label=choice.label,
            target_scene_id=scene_ids.get(choice.target or ""),
            condition=choice.condition,
            effects=choice.effects,
        )
        for index, choice in enumerate(doc.choices)
    ]
    tx.record("scene", scene.id, "created", None, snapshots.scene(scene, choices))
    return choices


def _line_rows(scene: SceneRecord, doc: SceneDoc, characters: dict[str, str]) -> list[dict[str, Any]]:
    now = utcnow()
    return [
        {
            "id": new_id("lin"),
            "project_id": scene.project_id,
            "scene_id": scene.id,
            "position": index,
            "character_id": characters.get((line_doc.speaker or "").casefold()),
            "text": line_doc.text,
            "condition": line_doc.condition,
            "created_at": now,
            "updated_at": now,
        }
        for index, line_doc in enumerate(doc.lines)
    ]


async def _add_assets(tx: Mutation, project_id: str, documents: Sequence[AssetDoc]) -> dict[str, str]:
    """Asset key → new id, each file decoded whole first, as an upload is."""
    ids: dict[str, str] = {}
    for doc in documents:
        mime = sniff(doc.data)
        if mime is None or not decodes(mime, doc.data):
            raise invalid(f"Asset {doc.name!r} does not decode: the file is damaged or incomplete.")
        asset = AssetRecord(
            id=new_id("ast"),
            project_id=project_id,
            kind=doc.kind,
            name=doc.name,
            tags=list(doc.tags),
            mime=mime,
            size=len(doc.data),
            sha256=hashlib.sha256(doc.data).hexdigest(),
            blob_id=new_id("blb"),
            created_at=utcnow(),
            deleted_at=None,
        )
        await tx.story.add_asset(asset, doc.data)
        tx.record("asset", asset.id, "created", None, snapshots.asset(asset))
        ids[doc.key] = asset.id
    return ids


async def _add_characters(tx: Mutation, project_id: str, documents: Sequence[CharacterDoc]) -> dict[str, str]:
    """Character name (case folded) → new id."""
    ids: dict[str, str] = {}
    now = utcnow()
    for index, doc in enumerate(documents):
        character = CharacterRecord(
            id=new_id("chr"),
            project_id=project_id,
            name=doc.name,
            color=(doc.color or PALETTE[index % len(PALETTE)]).lower(),
            created_at=now,
            updated_at=now,
        )
        await tx.story.add_character(character)
        tx.record("character", character.id, "created", None, snapshots.character(character))
        ids[doc.name.casefold()] = character.id
    return ids


async def _add_variables(tx: Mutation, project_id: str, documents: Sequence[VariableDoc]) -> None:
    now = utcnow()
    for doc in documents:
        variable = VariableRecord(
            id=new_id("var"),
            project_id=project_id,
            name=doc.name,
            type=doc.type,
            initial=DEFAULTS[doc.type] if doc.initial is None else doc.initial,
            description=doc.description,
            created_at=now,
            updated_at=now,
        )
        await tx.story.add_variable(variable)
        tx.record("variable", variable.id, "created", None, snapshots.variable(variable))

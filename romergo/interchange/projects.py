"""A stored project as a `StoryDocument`, and a new project made from one in one transaction.

Keys in a document made here are the entities' ids (unique by construction); a project made from a
document gets new ids. Creating writes a "created" revision per entity, like any other write, so
the history shows the import and undo could take it back.
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
from romergo.story.media_types import decodes, sniff
from romergo.story.records import SceneRecord
from romergo.story.state.variables import DEFAULTS
from romergo.story.views import ProjectData
from storage.core_tables import DIALOGUE_LINES
from storage.tables import (
    Asset,
    AssetBlob,
    Chapter,
    Character,
    Choice,
    Project,
    Scene,
    StoryVariable,
)

SCENES_PER_FLUSH = 100
"""How many scenes' choices an import writes before it lets the event loop go (`_written_so_far`)."""


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


async def create_project(tx: Mutation, document: StoryDocument) -> Project:
    """A new project of the actor's holding everything in `document` (checked beforehand with
    `check_document`); dangling choices stay dangling."""
    now = utcnow()
    project = Project(
        id=new_id("prj"), owner_id=tx.actor.user_id, title=document.title, created_at=now, updated_at=now
    )
    tx.session.add(project)
    tx.project = project
    await tx.session.flush()
    tx.record("project", project.id, "created", None, snapshots.project(project))
    assets = await _add_assets(tx, document.assets)
    characters = _add_characters(tx, document.characters)
    _add_variables(tx, document.variables)
    scene_ids = {scene.key: new_id("scn") for scene in document.scenes()}
    contents: list[tuple[Scene, SceneDoc]] = []
    for position, chapter_doc in enumerate(document.chapters):
        chapter = Chapter(
            id=new_id("chp"),
            project_id=project.id,
            title=chapter_doc.title,
            position=position,
            background_asset_id=assets.get(chapter_doc.background or ""),
            music_asset_id=assets.get(chapter_doc.music or ""),
            created_at=now,
            updated_at=now,
        )
        tx.session.add(chapter)
        tx.record("chapter", chapter.id, "created", None, snapshots.chapter(chapter))
        contents += [
            (_add_scene(tx, chapter, index, scene_doc, scene_ids, assets), scene_doc)
            for index, scene_doc in enumerate(chapter_doc.scenes)
        ]
        await _written_so_far(tx)
    # Every scene exists before any choice points at one (the flush orders no rows by their keys).
    lines: list[dict[str, Any]] = []
    for done, (scene, scene_doc) in enumerate(contents, start=1):
        lines += _add_contents(tx, scene, scene_doc, scene_ids, characters)
        if done % SCENES_PER_FLUSH == 0:
            await _written_so_far(tx)
    await tx.session.flush()
    # A long story's lines (tens of thousands) as rows, not entities: see `story.bulk`.
    await bulk.created_in_bulk(tx, "dialogue_line", DIALOGUE_LINES, lines, snapshots.line)
    return project


async def _written_so_far(tx: Mutation) -> None:
    """Write what was added so far, and let the event loop serve other calls before going on.

    SQLite runs on the loop's thread, so one flush of a long story (2,000 scenes, ~4,000 choices)
    held every other call for a second. Other writers wait their turn meanwhile, as for any write
    transaction (`WriteTurns`); readers see the story once the import commits."""
    await tx.session.flush()
    await asyncio.sleep(0)


def _add_scene(
    tx: Mutation,
    chapter: Chapter,
    position: int,
    doc: SceneDoc,
    scene_ids: dict[str, str],
    assets: dict[str, str],
) -> Scene:
    now = utcnow()
    scene = Scene(
        id=scene_ids[doc.key],
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
    tx.session.add(scene)
    return scene


def _add_contents(
    tx: Mutation, scene: Scene, doc: SceneDoc, scene_ids: dict[str, str], characters: dict[str, str]
) -> list[dict[str, Any]]:
    """The scene's choices (recorded with it: they are undone with it), and its lines' rows."""
    now = utcnow()
    choices = [
        Choice(
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
    tx.session.add_all(choices)
    tx.record("scene", scene.id, "created", None, snapshots.scene(scene, choices))
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


async def _add_assets(tx: Mutation, documents: Sequence[AssetDoc]) -> dict[str, str]:
    """Asset key → new id, each file decoded whole first, as an upload is."""
    assert tx.project is not None
    ids: dict[str, str] = {}
    for doc in documents:
        mime = sniff(doc.data)
        if mime is None or not decodes(mime, doc.data):
            raise invalid(f"Asset {doc.name!r} does not decode: the file is damaged or incomplete.")
        blob = AssetBlob(id=new_id("blb"), data=doc.data)
        asset = Asset(
            id=new_id("ast"),
            project_id=tx.project.id,
            kind=doc.kind,
            name=doc.name,
            tags=list(doc.tags),
            mime=mime,
            size=len(doc.data),
            sha256=hashlib.sha256(doc.data).hexdigest(),
            blob_id=blob.id,
            created_at=utcnow(),
        )
        tx.session.add(blob)
        await tx.session.flush()  # the asset row refers to its blob
        tx.session.add(asset)
        tx.record("asset", asset.id, "created", None, snapshots.asset(asset))
        ids[doc.key] = asset.id
    return ids


def _add_characters(tx: Mutation, documents: Sequence[CharacterDoc]) -> dict[str, str]:
    """Character name (case folded) → new id."""
    assert tx.project is not None
    ids: dict[str, str] = {}
    now = utcnow()
    for index, doc in enumerate(documents):
        character = Character(
            id=new_id("chr"),
            project_id=tx.project.id,
            name=doc.name,
            color=(doc.color or PALETTE[index % len(PALETTE)]).lower(),
            created_at=now,
            updated_at=now,
        )
        tx.session.add(character)
        tx.record("character", character.id, "created", None, snapshots.character(character))
        ids[doc.name.casefold()] = character.id
    return ids


def _add_variables(tx: Mutation, documents: Sequence[VariableDoc]) -> None:
    assert tx.project is not None
    now = utcnow()
    for doc in documents:
        row = StoryVariable(
            id=new_id("var"),
            project_id=tx.project.id,
            name=doc.name,
            type=doc.type,
            initial=DEFAULTS[doc.type] if doc.initial is None else doc.initial,
            description=doc.description,
            created_at=now,
            updated_at=now,
        )
        tx.session.add(row)
        tx.record("variable", row.id, "created", None, snapshots.variable(row))

"""The Romergo archive (`.romergo.zip`): a project exactly, ids and revisions aside.

A zip holding `story.json` (the models below; JSON Schema published as
docs/romergo-archive.schema.json, `format_version` 1) and each media file as `media/<asset key>`,
byte for byte. Reading refuses anything that is not such an archive, in words, before a project is
made: a zip bomb or a damaged zip (`zipped` reads each file with a byte cap while it inflates), a
`story.json` past the import limits or nested too deep (`json_shape` scans it before it is read),
a missing file, a reference to a scene or asset the archive does not hold.
"""

from __future__ import annotations

import io
import zipfile
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from romergo.common.errors import invalid
from romergo.interchange import json_shape, zipped
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

STORY_FILE = "story.json"
MEDIA_DIR = "media/"
MAX_UNPACKED_BYTES = 512 * 1024 * 1024
MAX_STORY_JSON_BYTES = 64 * 1024 * 1024


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ArchiveLine(_Strict):
    text: str
    speaker: str | None = Field(None, description="A character's name; null for narration.")
    condition: str | None = Field(None, description="Shown only when this holds (a condition).")


class ArchiveChoice(_Strict):
    label: str
    target: str | None = Field(description="The key of the scene it leads to; null: nowhere.")
    condition: str | None = Field(None, description="Offered only when this holds.")
    effects: str | None = Field(None, description="`set …` applied when picked.")


class ArchiveScene(_Strict):
    key: str
    title: str
    is_start: bool = False
    is_ending: bool = False
    background: str | None = Field(None, description="An asset key.")
    music: str | None = Field(None, description="An asset key.")
    entry_effects: str | None = Field(None, description="`set …` applied on entering the scene.")
    lines: list[ArchiveLine] = []
    choices: list[ArchiveChoice] = []


class ArchiveChapter(_Strict):
    title: str
    background: str | None = None
    music: str | None = None
    scenes: list[ArchiveScene] = []


class ArchiveCharacter(_Strict):
    name: str
    color: str | None = None


class ArchiveAsset(_Strict):
    key: str = Field(description="Its file in the archive is media/<key>.")
    kind: Literal["background", "music", "sound"]
    name: str
    tags: list[str] = []


class ArchiveVariable(_Strict):
    name: str
    type: Literal["flag", "number", "text"]
    initial: bool | int | float | str | None = None
    description: str = ""


class ArchiveStory(_Strict):
    """`story.json` of a Romergo archive."""

    format: Literal["romergo-archive"] = "romergo-archive"
    format_version: Literal[1] = 1
    title: str
    characters: list[ArchiveCharacter] = []
    assets: list[ArchiveAsset] = []
    variables: list[ArchiveVariable] = []
    chapters: list[ArchiveChapter] = []


def write_archive(document: StoryDocument) -> bytes:
    story = ArchiveStory(
        title=document.title,
        characters=[ArchiveCharacter(name=c.name, color=c.color) for c in document.characters],
        assets=[ArchiveAsset(key=a.key, kind=a.kind, name=a.name, tags=a.tags) for a in document.assets],
        variables=[
            ArchiveVariable(name=v.name, type=v.type, initial=v.initial, description=v.description)
            for v in document.variables
        ],
        chapters=[_chapter(chapter) for chapter in document.chapters],
    )
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(STORY_FILE, story.model_dump_json(indent=2))
        for asset in document.assets:
            # Media are compressed already: stored as they are.
            archive.writestr(MEDIA_DIR + asset.key, asset.data, compress_type=zipfile.ZIP_STORED)
    return buffer.getvalue()


def read_archive(data: bytes, max_media_bytes: int = MAX_UNPACKED_BYTES) -> StoryDocument:
    """The archive's story; each media file may unpack to `max_media_bytes` at most."""
    with zipped.opened(data) as archive:
        entries = {info.filename: info for info in archive.infolist()}
        if STORY_FILE not in entries:
            raise invalid(f"The archive has no {STORY_FILE}.")
        if sum(info.file_size for info in entries.values()) > MAX_UNPACKED_BYTES:
            raise invalid(f"The archive unpacks to more than {MAX_UNPACKED_BYTES:,} bytes.")
        story = _story(zipped.member(archive, entries[STORY_FILE], MAX_STORY_JSON_BYTES))
        media: dict[str, bytes] = {}
        room = MAX_UNPACKED_BYTES
        for asset in story.assets:
            name = MEDIA_DIR + asset.key
            if name not in entries:
                raise invalid(f"The archive lists the asset {asset.name!r} but has no file {name}.")
            media[asset.key] = zipped.member(archive, entries[name], min(max_media_bytes, room))
            room -= len(media[asset.key])
    return StoryDocument(
        title=story.title,
        chapters=[
            ChapterDoc(
                chapter.title,
                [_scene_doc(scene, f"chapter {index + 1}") for scene in chapter.scenes],
                chapter.background,
                chapter.music,
                where=f"chapter {index + 1}",
            )
            for index, chapter in enumerate(story.chapters)
        ],
        characters=[CharacterDoc(c.name, c.color) for c in story.characters],
        assets=[AssetDoc(a.key, a.kind, a.name, media[a.key], list(a.tags)) for a in story.assets],
        variables=[VariableDoc(v.name, v.type, v.initial, v.description) for v in story.variables],
    )


def archive_schema() -> dict[str, object]:
    """The published JSON Schema of `story.json`."""
    schema = ArchiveStory.model_json_schema()
    schema["$id"] = "urn:romergo:archive:1"
    return schema


def _story(raw: bytes) -> ArchiveStory:
    try:
        return ArchiveStory.model_validate(json_shape.loaded(raw, STORY_FILE))
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        raise invalid(f"{STORY_FILE}: {where}: {first['msg']}.") from None


def _chapter(chapter: ChapterDoc) -> ArchiveChapter:
    return ArchiveChapter(
        title=chapter.title,
        background=chapter.background,
        music=chapter.music,
        scenes=[
            ArchiveScene(
                key=scene.key,
                title=scene.title,
                is_start=scene.is_start,
                is_ending=scene.is_ending,
                background=scene.background,
                music=scene.music,
                entry_effects=scene.entry_effects,
                lines=[
                    ArchiveLine(text=line.text, speaker=line.speaker, condition=line.condition)
                    for line in scene.lines
                ],
                choices=[
                    ArchiveChoice(label=c.label, target=c.target, condition=c.condition, effects=c.effects)
                    for c in scene.choices
                ],
            )
            for scene in chapter.scenes
        ],
    )


def _scene_doc(scene: ArchiveScene, chapter: str) -> SceneDoc:
    where = f"{chapter}, scene {scene.key!r}"
    return SceneDoc(
        key=scene.key,
        title=scene.title,
        lines=[
            LineDoc(line.text, line.speaker, f"{where}, line {n}", line.condition)
            for n, line in enumerate(scene.lines, 1)
        ],
        choices=[
            ChoiceDoc(c.label, c.target, f"{where}, choice {n}", c.condition, c.effects)
            for n, c in enumerate(scene.choices, 1)
        ],
        is_start=scene.is_start,
        is_ending=scene.is_ending,
        background=scene.background,
        music=scene.music,
        where=where,
        entry_effects=scene.entry_effects,
    )

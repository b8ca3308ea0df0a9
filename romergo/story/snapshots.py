"""Entity → plain dict: what a Revision stores as before/after and what undo restores."""

from __future__ import annotations

from typing import Any

from storage.tables import Asset, Chapter, Character, Choice, DialogueLine, Project, Scene


def project(row: Project) -> dict[str, Any]:
    return {"id": row.id, "title": row.title, "published": row.published, "share_id": row.share_id}


def chapter(row: Chapter) -> dict[str, Any]:
    return {
        "id": row.id,
        "project_id": row.project_id,
        "title": row.title,
        "position": row.position,
        "music_asset_id": row.music_asset_id,
        "background_asset_id": row.background_asset_id,
    }


def scene(row: Scene, choices: list[Choice] | None = None) -> dict[str, Any]:
    data: dict[str, Any] = {
        "id": row.id,
        "project_id": row.project_id,
        "chapter_id": row.chapter_id,
        "title": row.title,
        "position": row.position,
        "is_start": row.is_start,
        "is_ending": row.is_ending,
        "background_asset_id": row.background_asset_id,
        "music_asset_id": row.music_asset_id,
    }
    if choices is not None:
        data["choices"] = [choice(c) for c in choices]
    return data


def choice(row: Choice) -> dict[str, Any]:
    return {
        "id": row.id,
        "label": row.label,
        "target_scene_id": row.target_scene_id,
        "position": row.position,
    }


def line(row: DialogueLine) -> dict[str, Any]:
    return {
        "id": row.id,
        "scene_id": row.scene_id,
        "position": row.position,
        "character_id": row.character_id,
        "text": row.text,
    }


def character(row: Character) -> dict[str, Any]:
    return {"id": row.id, "project_id": row.project_id, "name": row.name, "color": row.color}


def asset(row: Asset) -> dict[str, Any]:
    return {
        "id": row.id,
        "project_id": row.project_id,
        "kind": row.kind,
        "name": row.name,
        "tags": list(row.tags),
        "mime": row.mime,
        "size": row.size,
        "sha256": row.sha256,
        "deleted": row.deleted_at is not None,
    }

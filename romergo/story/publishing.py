"""Publishing: a frozen, read-only copy of the story behind a share link.

Publishing again refreshes the snapshot and keeps the link; unpublishing kills the link.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, replace
from typing import Any

from romergo.common.actors import Actor
from romergo.common.clock import iso, utcnow
from romergo.common.errors import RomergoError
from romergo.common.ids import new_secret
from romergo.story import snapshots
from romergo.story.base import Mutation, StoryStore
from romergo.story.ledger import AssetRecord, ProjectRecord
from romergo.story.media_rules import effective_media
from romergo.story.projects import as_written, project_record
from romergo.story.reads import load_project
from romergo.story.records import ChapterRecord, SceneRecord
from romergo.story.views import ProjectData


@dataclass(frozen=True)
class PublishingService:
    store: StoryStore

    async def publish_project(self, actor: Actor, project_id: str) -> ProjectRecord:
        """Freeze the story as it is now into a snapshot behind a (kept or new) share link."""
        async with self.store.write(actor) as tx:
            data = await load_project(tx, project_id)
            # Pure Python over the whole story: in a worker thread, while the loop serves others.
            snapshot = await asyncio.to_thread(published_story, data)
            project = await _change_publication(tx, await project_record(tx, project_id), snapshot)
        return as_written(tx, project)

    async def unpublish_project(self, actor: Actor, project_id: str) -> ProjectRecord:
        async with self.store.write(actor) as tx:
            project = await project_record(tx, project_id)
            if not project.published:
                raise RomergoError("conflict", f'Project "{project.title}" is not published.')
            project = await _change_publication(tx, project, None)
        return as_written(tx, project)

    async def published_snapshot(self, share_id: str) -> dict[str, Any] | None:
        """The public, read-only story behind a share link; None when there is none."""
        if not isinstance(share_id, str) or not share_id:
            return None
        return await self.store.ledger.published_story(share_id)

    async def published_asset_content(self, share_id: str, asset_id: str) -> tuple[AssetRecord, bytes] | None:
        """Bytes of an asset that the published snapshot behind `share_id` really uses."""
        snapshot = await self.published_snapshot(share_id)
        if not snapshot or asset_id not in snapshot.get("asset_ids", []):
            return None
        return await self.store.ledger.asset_file(asset_id)


def published_story(data: ProjectData) -> dict[str, Any]:
    """The frozen story a published link shows: ids, text and effective asset references only."""
    live = {asset.id for asset in data.assets}
    chapters: list[dict[str, Any]] = []
    used: set[str] = set()
    for chapter in data.chapters_in_order():
        scenes = [_published_scene(data, chapter, scene, live) for scene in data.scenes_of(chapter.id)]
        used.update(s[slot] for s in scenes for slot in ("background_asset_id", "music_asset_id") if s[slot])
        chapters.append({"id": chapter.id, "title": chapter.title, "scenes": scenes})
    published: dict[str, Any] = {
        "title": data.project.title,
        "published_at": iso(data.project.updated_at),
        "characters": {c.id: {"name": c.name, "color": c.color} for c in data.characters},
        "chapters": chapters,
        "asset_ids": sorted(used),
    }
    if data.variables:  # a story without state publishes exactly what it always did
        published["variables"] = [
            {"name": v.name, "type": v.type, "initial": v.initial} for v in data.variables
        ]
    return published


def _published_scene(
    data: ProjectData, chapter: ChapterRecord, scene: SceneRecord, live: set[str]
) -> dict[str, Any]:
    return {
        "id": scene.id,
        "title": scene.title,
        "is_start": scene.is_start,
        "is_ending": scene.is_ending,
        "background_asset_id": effective_media(scene, chapter, "background", live).asset_id,
        "music_asset_id": effective_media(scene, chapter, "music", live).asset_id,
        "lines": [
            _with_state({"character_id": line.character_id, "text": line.text}, condition=line.condition)
            for line in data.lines_of(scene.id)
        ],
        "choices": [
            _with_state(
                {"label": c.label, "target_scene_id": c.target_scene_id},
                condition=c.condition,
                effects=c.effects,
            )
            for c in data.choices_of(scene.id)
        ],
        **({"entry_effects": scene.entry_effects} if scene.entry_effects else {}),
    }


def _with_state(item: dict[str, Any], **state: str | None) -> dict[str, Any]:
    """`item` with its conditions and effects, only those that are set."""
    return item | {key: value for key, value in state.items() if value}


async def _change_publication(
    tx: Mutation, project: ProjectRecord, snapshot: dict[str, Any] | None
) -> ProjectRecord:
    """Publish `snapshot` (keeping an existing share link), or unpublish with None."""
    await tx.story.put_published_story(project.id, snapshot)
    if snapshot is None:
        changed = replace(project, published=False, share_id=None, published_at=None)
    else:
        changed = replace(
            project, published=True, share_id=project.share_id or new_secret(12), published_at=utcnow()
        )
    await tx.story.save_project(changed)
    tx.record("project", project.id, "updated", snapshots.project(project), snapshots.project(changed))
    return changed

"""Assets: imported media (backgrounds, music, sounds) stored as blobs with sniffed types.

Deleting an asset clears the slots that use it (each a revision, so undo can restore them) and
hides the asset; its bytes stay, because revisions may still point at it (DESIGN.md §2).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Literal, Protocol, TypeVar

from romergo.common.actors import Actor
from romergo.common.clock import utcnow
from romergo.common.config import Limits
from romergo.common.errors import invalid, too_large
from romergo.common.ids import new_id
from romergo.story import snapshots, validation
from romergo.story.base import Mutation, StoryStore
from romergo.story.ledger import AssetRecord, ChapterRecord, SceneRecord
from romergo.story.media_rules import MEDIA_SLOTS, Furnished, asset_in_slot
from romergo.story.media_types import ASSET_KINDS, AssetKind, accepted_types, decodes, describe, sniff
from romergo.story.reads import whole_project
from romergo.story.views import AssetUse, AssetView, ProjectData

Cleared = TypeVar("Cleared", SceneRecord, ChapterRecord)


@dataclass(frozen=True)
class AssetService:
    store: StoryStore
    limits: Limits

    async def import_asset(
        self,
        actor: Actor,
        project_id: str,
        kind: str,
        name: str,
        data: bytes,
        tags: Sequence[str] = (),
        max_bytes: int | None = None,
    ) -> AssetRecord:
        """Checks kind, name, size (`max_bytes` narrows the configured limit) and the real type."""
        asset_kind = _kind(kind)
        clean_name = validation.title(name, self.limits, "Asset name")
        clean_tags = validation.tags(tags)
        limit = self.limits.max_image_bytes if asset_kind == "background" else self.limits.max_audio_bytes
        if max_bytes is not None:
            limit = min(limit, max_bytes)
        if not isinstance(data, bytes | bytearray):
            raise invalid("The file must be given as bytes.")
        if not data:
            raise invalid("The file is empty.")
        if len(data) > limit:
            raise too_large(
                f"The file has {len(data):,} bytes; the limit for a {asset_kind} is {limit:,} bytes."
            )
        mime = sniff(bytes(data))
        if mime not in accepted_types(asset_kind):
            found = f"looks like {mime}" if mime else "is not a recognised media file"
            raise invalid(f"A {asset_kind} must be {describe(asset_kind)}; this file {found}.")
        if not decodes(mime, bytes(data)):
            raise invalid(f"This file starts like {mime} but does not decode: it is damaged or incomplete.")
        async with self.store.write(actor) as tx:
            await tx.project_by_id(project_id)
            asset = AssetRecord(
                id=new_id("ast"),
                project_id=project_id,
                kind=asset_kind,
                name=clean_name,
                tags=clean_tags,
                mime=mime,
                size=len(data),
                sha256=hashlib.sha256(data).hexdigest(),
                blob_id=new_id("blb"),
                created_at=utcnow(),
                deleted_at=None,
            )
            await tx.story.add_asset(asset, bytes(data))
            tx.record("asset", asset.id, "created", None, snapshots.asset(asset))
        return asset

    async def update_asset(
        self, actor: Actor, asset_id: str, name: str | None = None, tags: Sequence[str] | None = None
    ) -> AssetRecord:
        clean_name = None if name is None else validation.title(name, self.limits, "Asset name")
        clean_tags = None if tags is None else validation.tags(tags)
        async with self.store.write(actor) as tx:
            asset = await _asset_record(tx, asset_id)
            changed = replace(
                asset,
                name=asset.name if clean_name is None else clean_name,
                tags=asset.tags if clean_tags is None else clean_tags,
            )
            if tx.changed("asset", asset.id, snapshots.asset(asset), snapshots.asset(changed)):
                await tx.story.save_asset(changed)
                asset = changed
        return asset

    async def delete_asset(self, actor: Actor, asset_id: str) -> None:
        async with self.store.write(actor) as tx:
            asset = await _asset_record(tx, asset_id)
            await _clear_scene_slots(tx, asset)
            await _clear_chapter_slots(tx, asset)
            await tx.story.save_asset(replace(asset, deleted_at=utcnow()))
            tx.record("asset", asset.id, "deleted", snapshots.asset(asset), None)

    async def asset_content(self, actor: Actor, asset_id: str) -> tuple[AssetRecord, bytes]:
        """The bytes to serve, for the owner only. Deleted assets stay readable for history."""
        async with self.store.read(actor) as uow:
            await uow.asset(asset_id, include_deleted=True)
            asset = await uow.story.asset(asset_id)
            assert asset is not None, "read in this transaction a moment ago"
            return asset, await uow.story.asset_bytes(asset.blob_id) or b""

    async def find_assets(
        self, actor: Actor, project_id: str, query: str = "", kind: str | None = None
    ) -> list[AssetRecord]:
        if kind is not None:
            kind = _kind(kind)
        if not isinstance(query, str):
            raise invalid("query must be text.")
        async with self.store.read(actor) as uow:
            await uow.project_by_id(project_id)
            rows = await uow.story.live_assets(project_id, kind)
        words = query.casefold().split()
        return [row for row in rows if all(_matches(row, word) for word in words)]

    async def assets_with_usage(
        self, actor: Actor, project_id: str, kind: str | None = None
    ) -> list[AssetView]:
        data = await whole_project(self.store, actor, project_id, shape_only=True)
        usage = asset_usage(data, actor.reach)
        return [
            AssetView(asset, usage.get(asset.id, []))
            for asset in sorted(data.assets, key=lambda a: a.name.casefold())
            if kind is None or asset.kind == kind
        ]


def asset_usage(data: ProjectData, reach: frozenset[str] | None = None) -> dict[str, list[AssetUse]]:
    """Asset id → the chapters and scenes that name it in a slot (their own slots, no fallback);
    with a room's `reach`, only those in the chapters it covers."""
    usage: dict[str, list[AssetUse]] = {}
    for chapter in data.chapters:
        if reach is None or chapter.id in reach:
            _note_slots(usage, "chapter", chapter)
    for scene in data.scenes:
        if reach is None or scene.chapter_id in reach:
            _note_slots(usage, "scene", scene)
    return usage


class _Titled(Furnished, Protocol):
    """A chapter or a scene, as asset usage names it."""

    @property
    def id(self) -> str: ...
    @property
    def title(self) -> str: ...


def _note_slots(
    usage: dict[str, list[AssetUse]], entity_type: Literal["chapter", "scene"], holder: _Titled
) -> None:
    for slot in MEDIA_SLOTS:
        asset_id = asset_in_slot(holder, slot)
        if asset_id:
            usage.setdefault(asset_id, []).append(AssetUse(entity_type, holder.id, holder.title, slot))


async def _asset_record(tx: Mutation, asset_id: str) -> AssetRecord:
    """The actor's live asset (`not_found` otherwise), the unit of work bound to its project."""
    await tx.asset(asset_id)
    found = await tx.story.asset(asset_id)
    assert found is not None, "read in this transaction a moment ago"
    return found


async def _clear_scene_slots(tx: Mutation, asset: AssetRecord) -> None:
    """Each cleared scene is a revision of its own, so undo can put the asset back."""
    for scene in await tx.story.scenes_using_asset(asset.project_id, asset.id):
        choices = await tx.story.choices_of(scene.id)
        cleared = _without(scene, asset.id)
        if tx.changed("scene", scene.id, snapshots.scene(scene, choices), snapshots.scene(cleared, choices)):
            await tx.story.save_scene(cleared)


async def _clear_chapter_slots(tx: Mutation, asset: AssetRecord) -> None:
    for chapter in await tx.story.chapters_using_asset(asset.project_id, asset.id):
        cleared = _without(chapter, asset.id)
        if tx.changed("chapter", chapter.id, snapshots.chapter(chapter), snapshots.chapter(cleared)):
            await tx.story.save_chapter(cleared)


def _without(row: Cleared, asset_id: str) -> Cleared:
    """`row` with the slots that name the asset emptied, stamped as changed."""
    return replace(
        row,
        background_asset_id=None if row.background_asset_id == asset_id else row.background_asset_id,
        music_asset_id=None if row.music_asset_id == asset_id else row.music_asset_id,
        updated_at=utcnow(),
    )


def _kind(kind: object) -> AssetKind:
    if kind not in ASSET_KINDS:
        raise invalid(f'kind must be one of {", ".join(ASSET_KINDS)}; got "{kind}".')
    return kind


def _matches(asset: AssetRecord, word: str) -> bool:
    return word in asset.name.casefold() or any(word in tag for tag in asset.tags) or word == asset.kind

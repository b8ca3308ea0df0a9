"""Which chapters an entity lies in, or (a character, an asset) is used in: what the call guard asks
about a room limited to some chapters (`StoryReads.chapters_of`, `channels.reach`).

The registry of kinds names one of these per kind (`Kind.reach`). A chapter, a scene or a line lies
in one chapter; a character is used where it speaks and an asset where a media slot holds it.
The registry is read by the transaction seam (`base`), so this module imports it only for types.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from romergo.story.base import UnitOfWork

Chapters = Callable[["UnitOfWork", str], Awaitable[frozenset[str]]]
"""(a read of the user's, entity id) -> the chapters; `not_found` for an entity not theirs."""


async def the_chapter(uow: UnitOfWork, chapter_id: str) -> frozenset[str]:
    return frozenset([(await uow.chapter(chapter_id)).id])


async def of_scene(uow: UnitOfWork, scene_id: str) -> frozenset[str]:
    return frozenset([(await uow.scene(scene_id)).chapter_id])


async def of_line(uow: UnitOfWork, line_id: str) -> frozenset[str]:
    line = await uow.line(line_id)
    return frozenset([(await uow.scene(line.scene_id)).chapter_id])


async def speaking(uow: UnitOfWork, character_id: str) -> frozenset[str]:
    return frozenset(await uow.story.chapters_where_speaking(character_id))


async def using_asset(uow: UnitOfWork, asset_id: str) -> frozenset[str]:
    asset = await uow.asset(asset_id, include_deleted=True)
    return frozenset(await uow.story.chapters_using(asset.project_id, asset_id))

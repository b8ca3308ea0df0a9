"""Asset tools: find media with where it is used, import a file, delete one."""

from __future__ import annotations

import base64
import binascii
from collections.abc import Sequence
from typing import Annotated, Literal

from mcp.types import CallToolResult
from pydantic import BaseModel, Field

from mcp_tools.declare import Call, Toolbox
from mcp_tools.envelope import Envelope
from mcp_tools.paging import paged_aside
from mcp_tools.tools.common import (
    ADDS,
    READ_ONLY,
    REPLACES,
    AssetEntity,
    AssetId,
    CommandId,
    Deleted,
    Page,
    PageSize,
    ProjectId,
    RoomListing,
    room_note,
)
from romergo.common.config import MIB
from romergo.common.errors import invalid
from romergo.story.records import AssetRecord
from romergo.story.views import AssetView

Kind = Literal["background", "music", "sound"]


class Use(BaseModel):
    entity_type: Literal["scene", "chapter"]
    id: str
    title: str
    slot: Literal["background", "music"]


class AssetItem(BaseModel):
    id: str
    kind: str
    name: str
    tags: list[str]
    mime: str
    size: int
    used_by: list[Use]


class AssetList(RoomListing):
    assets: list[AssetItem]


def asset_item(view: AssetView) -> AssetItem:
    asset = view.asset
    return AssetItem(
        id=asset.id,
        kind=asset.kind,
        name=asset.name,
        tags=list(asset.tags),
        mime=asset.mime,
        size=asset.size,
        used_by=[
            Use(entity_type=u.entity_type, id=u.entity_id, title=u.title, slot=u.slot) for u in view.used_by
        ],
    )


tools = Toolbox()


@tools.tool(
    "read",
    "Find assets",
    "List a project's media (backgrounds, music, sounds), sorted by name, with the scenes and "
    "chapters that use each one (used_by). `query` keeps assets whose name or tags contain "
    "every word of it; `kind` keeps one kind. Use the ids with romergo_set_scene_background, "
    "romergo_set_scene_music and romergo_set_chapter_music. A long result is cut with "
    "truncated: true; call again with page = next_page for the rest.",
    READ_ONLY,
    target=("project", "project_id"),
)
async def romergo_search_assets(
    call: Call,
    project_id: ProjectId,
    query: Annotated[str, Field(description="Words to look for in names and tags; empty lists all.")] = "",
    kind: Annotated[Kind | None, Field(description="Only this kind; null for every kind.")] = None,
    page: Page = None,
    page_size: PageSize = None,
) -> Annotated[CallToolResult, Envelope[AssetList]]:
    assets, actor = call.services.assets, call.actor
    wanted = {asset.id for asset in await assets.find_assets(actor, project_id, query, kind)}
    views = [v for v in await assets.assets_with_usage(actor, project_id, kind) if v.asset.id in wanted]

    def build(part: Sequence[AssetView]) -> AssetList:
        return AssetList(assets=[asset_item(view) for view in part], room=room_note(call.actor))

    paging_key = f"search_assets:{project_id}:{kind}:{query}"
    return await paged_aside(paging_key, views, [view.asset.id for view in views], build, page, page_size)


@tools.tool(
    "media",
    "Import an asset",
    "Add a media file to a project: a background image (PNG, JPEG or WebP) or music or a "
    "sound (OGG, MP3 or WAV). Send the file's bytes as standard base64 (no line breaks, at "
    "most 3 MB decoded); the type is read from the content, not the name. Returns the new "
    "asset with its id; nothing uses it until you set it on a scene or chapter.",
    ADDS,
    target=("project", "project_id"),
    action=lambda args: (
        f"Import a {args['kind']} asset into project {args['project_id']} "
        f"({len(args['data_base64']) * 3 // 4:,} bytes)"
    ),
    result=AssetEntity,
)
async def romergo_import_asset(
    call: Call,
    project_id: ProjectId,
    kind: Annotated[Kind, Field(description="background (an image), music or sound.")],
    name: Annotated[str, Field(description="A name to find it by: one line, at most 200 characters.")],
    data_base64: Annotated[str, Field(description="The file's bytes in standard base64.")],
    tags: Annotated[list[str], Field(description="Words to find it by (at most 20).")] = [],  # noqa: B006
    command_id: CommandId = None,
) -> AssetRecord:
    data = decode_base64(data_base64)
    limit = call.services.settings.limits.max_tool_import_mb * MIB
    return await call.services.assets.import_asset(
        call.actor, project_id, kind, name, data, list(tags), max_bytes=limit
    )


@tools.tool(
    "delete",
    "Delete an asset",
    "Delete an asset. Scenes and chapters that used it lose it (their background or music "
    "becomes empty, or falls back to the chapter's). The history keeps what was deleted.",
    REPLACES,
    target=("asset", "asset_id"),
    action=lambda args: f"Delete asset {args['asset_id']}",
    result=Deleted,
)
async def romergo_delete_asset(call: Call, asset_id: AssetId, command_id: CommandId = None) -> Deleted:
    await call.services.assets.delete_asset(call.actor, asset_id)
    return Deleted(entity_type="asset", id=asset_id)


def decode_base64(text: str) -> bytes:
    """Standard base64 with padding and nothing else: no spaces, line breaks or URL-safe letters."""
    try:
        return base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        raise invalid(
            "data_base64 is not valid base64 (standard alphabet, padded, no line breaks)."
        ) from None

"""Asset tools: find media with where it is used, import a file, delete one."""

from __future__ import annotations

import base64
import binascii
from collections.abc import Sequence
from typing import Annotated, Any, Literal

from mcp.server.mcpserver import Context, MCPServer
from mcp.types import CallToolResult
from pydantic import BaseModel, Field

from mcp_tools.envelope import Envelope, envelope
from mcp_tools.paging import paged
from mcp_tools.tooling import ToolSpec, add_tool, run_tool
from mcp_tools.tools.common import (
    ADDS,
    READ_ONLY,
    REPLACES,
    AssetEntity,
    AssetId,
    CommandId,
    Deleted,
    Page,
    ProjectId,
    asset_entity,
)
from romergo.actors import Actor
from romergo.errors import invalid
from romergo.services import Services
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


class AssetList(BaseModel):
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


SEARCH_ASSETS = ToolSpec(
    name="romergo_search_assets",
    category="read",
    title="Find assets",
    description=(
        "List a project's media (backgrounds, music, sounds), sorted by name, with the scenes and "
        "chapters that use each one (used_by). `query` keeps assets whose name or tags contain "
        "every word of it; `kind` keeps one kind. Use the ids with romergo_set_scene_background, "
        "romergo_set_scene_music and romergo_set_chapter_music. A long result is cut with "
        "truncated: true; call again with page = next_page for the rest."
    ),
    annotations=READ_ONLY,
    target=("project", "project_id"),
)
IMPORT_ASSET = ToolSpec(
    name="romergo_import_asset",
    category="media",
    title="Import an asset",
    description=(
        "Add a media file to a project: a background image (PNG, JPEG or WebP) or music or a "
        "sound (OGG, MP3 or WAV). Send the file's bytes as standard base64 (no line breaks, at "
        "most 3 MB decoded); the type is read from the content, not the name. Returns the new "
        "asset with its id; nothing uses it until you set it on a scene or chapter."
    ),
    annotations=ADDS,
    target=("project", "project_id"),
    action=lambda args: (
        f"Import a {args['kind']} asset into project {args['project_id']} "
        f"({len(args['data_base64']) * 3 // 4:,} bytes)"
    ),
)
DELETE_ASSET = ToolSpec(
    name="romergo_delete_asset",
    category="delete",
    title="Delete an asset",
    description=(
        "Delete an asset. Scenes and chapters that used it lose it (their background or music "
        "becomes empty, or falls back to the chapter's). The history keeps what was deleted."
    ),
    annotations=REPLACES,
    target=("asset", "asset_id"),
    action=lambda args: f"Delete asset {args['asset_id']}",
)


def register(server: MCPServer[Any], services: Services) -> None:
    import_limit = services.settings.limits.max_tool_import_mb * 1024 * 1024

    async def romergo_search_assets(
        project_id: ProjectId,
        ctx: Context[Any, Any],
        query: Annotated[
            str, Field(description="Words to look for in names and tags; empty lists all.")
        ] = "",
        kind: Annotated[Kind | None, Field(description="Only this kind; null for every kind.")] = None,
        page: Page = None,
    ) -> Annotated[CallToolResult, Envelope[AssetList]]:
        arguments = {"project_id": project_id, "query": query, "kind": kind, "page": page}

        async def body(actor: Actor) -> CallToolResult:
            wanted = {asset.id for asset in await services.assets.find_assets(actor, project_id, query, kind)}
            views = [
                v
                for v in await services.assets.assets_with_usage(actor, project_id, kind)
                if v.asset.id in wanted
            ]

            def build(part: Sequence[AssetView]) -> AssetList:
                return AssetList(assets=[asset_item(view) for view in part])

            call = f"search_assets:{project_id}:{kind}:{query}"
            return paged(call, views, [view.asset.id for view in views], build, page)

        return await run_tool(services, SEARCH_ASSETS, arguments, body, ctx)

    async def romergo_import_asset(
        project_id: ProjectId,
        kind: Annotated[Kind, Field(description="background (an image), music or sound.")],
        name: Annotated[str, Field(description="A name to find it by: one line, at most 200 characters.")],
        data_base64: Annotated[str, Field(description="The file's bytes in standard base64.")],
        ctx: Context[Any, Any],
        tags: Annotated[list[str], Field(description="Words to find it by (at most 20).")] = [],  # noqa: B006
        command_id: CommandId = None,
    ) -> Annotated[CallToolResult, Envelope[AssetEntity]]:
        arguments = {
            "project_id": project_id,
            "kind": kind,
            "name": name,
            "data_base64": data_base64,
            "tags": list(tags),
            "command_id": command_id,
        }

        async def body(actor: Actor) -> CallToolResult:
            data = decode_base64(data_base64)
            asset = await services.assets.import_asset(
                actor, project_id, kind, name, data, list(tags), max_bytes=import_limit
            )
            return envelope(asset_entity(asset))

        return await run_tool(services, IMPORT_ASSET, arguments, body, ctx)

    async def romergo_delete_asset(
        asset_id: AssetId, ctx: Context[Any, Any], command_id: CommandId = None
    ) -> Annotated[CallToolResult, Envelope[Deleted]]:
        async def body(actor: Actor) -> CallToolResult:
            await services.assets.delete_asset(actor, asset_id)
            return envelope(Deleted(entity_type="asset", id=asset_id))

        arguments = {"asset_id": asset_id, "command_id": command_id}
        return await run_tool(services, DELETE_ASSET, arguments, body, ctx)

    add_tool(server, SEARCH_ASSETS, romergo_search_assets)
    add_tool(server, IMPORT_ASSET, romergo_import_asset)
    add_tool(server, DELETE_ASSET, romergo_delete_asset)


def decode_base64(text: str) -> bytes:
    """Standard base64 with padding and nothing else: no spaces, line breaks or URL-safe letters."""
    try:
        return base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        raise invalid(
            "data_base64 is not valid base64 (standard alphabet, padded, no line breaks)."
        ) from None

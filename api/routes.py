"""The endpoints of CONTRACT.md §6: the owner's side of the loop for scripts, the CLI and tests.

No `from __future__ import annotations` here: FastAPI resolves the local `Caller` dependency
alias from the live annotations.
"""

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Header, Query, Response
from fastapi.responses import JSONResponse

from api.auth import Owner, OwnerAuth
from api.schemas import ChannelSettings, Decision, NewChannel, NewCommand, Undo
from romergo.channels import wire
from romergo.channels.owner import KEEP
from romergo.channels.settings_tag import SettingsChangedError, settings_tag
from romergo.channels.waiting import EventNumber
from romergo.common.actors import user_actor
from romergo.common.clock import iso
from romergo.services import Services


def router(services: Services, auth: OwnerAuth) -> APIRouter:
    api = APIRouter()
    Caller = Annotated[Owner, Depends(auth)]
    channels = services.channels

    @api.get("/projects", summary="The projects the account is a member of, with its role in each")
    async def projects(owner: Caller) -> dict[str, Any]:
        rows = await services.projects.projects_with_roles(user_actor(owner.user_id))
        return {
            "projects": [
                {
                    "id": p.id,
                    "title": p.title,
                    "updated_at": iso(p.updated_at),
                    "published": p.published,
                    "role": role.value,
                }
                for p, role in rows
            ]
        }

    @api.post("/channels", status_code=201, summary="Open a channel; the answer holds the join code")
    async def create_channel(body: NewChannel, owner: Caller) -> dict[str, Any]:
        scope = body.scope.model_dump() if body.scope else None
        view = await channels.owner.create_channel(
            owner.user_id, body.project_id, body.permissions, body.confirmation_mode, scope
        )
        return wire.channel(view)

    @api.get("/channels/{channel_id}", summary="A channel with its members and presence")
    async def get_channel(channel_id: str, owner: Caller, response: Response) -> dict[str, Any]:
        view = await channels.owner.get_channel(owner.user_id, channel_id)
        response.headers["ETag"] = settings_tag(view)
        return wire.channel(view)

    @api.patch(
        "/channels/{channel_id}",
        summary="Change permissions (partially), the confirmation mode or the scope; with If-Match, "
        "only if the settings are still those of that ETag (else 412 with the current ones)",
    )
    async def update_channel(
        channel_id: str,
        body: ChannelSettings,
        owner: Caller,
        response: Response,
        if_match: Annotated[str | None, Header()] = None,
    ) -> Any:
        scope: Any = KEEP
        if "scope" in body.model_fields_set:
            scope = body.scope.model_dump() if body.scope else None
        try:
            view = await channels.owner.update_settings(
                owner.user_id, channel_id, body.permissions, body.confirmation_mode, scope, if_match=if_match
            )
        except SettingsChangedError as changed:
            return settings_changed(changed)
        response.headers["ETag"] = settings_tag(view)
        return wire.channel(view)

    @api.delete("/channels/{channel_id}/members/{client_id}", summary="Remove one agent from the channel")
    async def remove_member(channel_id: str, client_id: str, owner: Caller) -> dict[str, Any]:
        return wire.channel(await channels.owner.remove_member(owner.user_id, channel_id, client_id))

    @api.post("/channels/{channel_id}/code", summary="Rotate the join code")
    async def rotate_code(channel_id: str, owner: Caller) -> dict[str, Any]:
        return {"code": await channels.owner.rotate_code(owner.user_id, channel_id)}

    @api.post("/channels/{channel_id}/end", summary="End the channel at once")
    async def end_channel(channel_id: str, owner: Caller) -> dict[str, Any]:
        return wire.channel(await channels.owner.end_channel(owner.user_id, channel_id))

    @api.post("/channels/{channel_id}/commands", status_code=201, summary="Send a command to the agent")
    async def post_command(channel_id: str, body: NewCommand, owner: Caller) -> dict[str, Any]:
        view = await channels.owner.post_command(
            owner.user_id, channel_id, body.text, body.context, body.in_reply_to
        )
        return wire.command(view)

    @api.get("/channels/{channel_id}/events", summary="Events after a sequence number; long-polls with wait")
    async def events(
        channel_id: str,
        owner: Caller,
        after: Annotated[EventNumber, Query()] = 0,
        wait: Annotated[float, Query(ge=0, le=50)] = 0,
    ) -> dict[str, Any]:
        found, cursor = await channels.owner.events(owner.user_id, channel_id, after, wait)
        return {"events": [wire.event(e) for e in found], "cursor": cursor}

    @api.get("/commands/{command_id}", summary="A command and its state")
    async def get_command(command_id: str, owner: Caller) -> dict[str, Any]:
        return wire.command(await channels.owner.get_command(owner.user_id, command_id))

    @api.post("/commands/{command_id}/cancel", summary="Cancel a command")
    async def cancel(command_id: str, owner: Caller) -> dict[str, Any]:
        return wire.command(await channels.owner.cancel_command(owner.user_id, command_id))

    @api.post(
        "/commands/{command_id}/retry",
        status_code=201,
        summary="Retry a stalled, failed or cancelled command",
    )
    async def retry(command_id: str, owner: Caller) -> dict[str, Any]:
        return wire.command(await channels.owner.retry_command(owner.user_id, command_id))

    @api.post("/commands/{command_id}/undo", summary="Undo what a finished command changed in the story")
    async def undo(command_id: str, owner: Caller, body: Undo | None = None) -> dict[str, Any]:
        force = body.force if body else False
        outcome = await services.undo_command(owner.user_id, command_id, force=force)
        return {
            "reverted": outcome.reverted,
            "conflicts": [
                {
                    "entity_type": c.entity_type,
                    "entity_id": c.entity_id,
                    "title": c.title,
                    "changed_by": c.actor_type,
                    "tool": c.tool,
                    "at": iso(c.at) if c.at else None,
                }
                for c in outcome.conflicts
            ],
            "kept": outcome.kept,
        }

    @api.post("/confirmations/{confirmation_id}", summary="Allow once or reject an action waiting for you")
    async def decide(confirmation_id: str, body: Decision, owner: Caller) -> dict[str, Any]:
        view = await channels.confirmations.decide_confirmation(owner.user_id, confirmation_id, body.decision)
        return wire.confirmation(view)

    return api


def settings_changed(changed: SettingsChangedError) -> JSONResponse:
    """412: the settings changed since the tag the caller sent; the current ones and their tag."""
    return JSONResponse(
        {
            "error": {"code": changed.code, "message": changed.message},
            "channel": wire.channel(changed.current),
        },
        status_code=412,
        headers={"ETag": changed.tag},
    )

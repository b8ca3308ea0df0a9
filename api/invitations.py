"""Invitations over the JSON API: the owner makes a one-time link to join a story, lists the open
ones and revokes one. The link's URL is in the answer that makes it, and never again.

No `from __future__ import annotations` here: FastAPI resolves the local `Caller` dependency
alias from the live annotations.
"""

from typing import Annotated, Any

from fastapi import APIRouter, Depends

from api.auth import Owner, OwnerAuth
from api.schemas import NewInvitation
from romergo.common import urls
from romergo.common.actors import user_actor
from romergo.common.clock import iso
from romergo.services import Services
from romergo.story import Invitation


def router(services: Services, auth: OwnerAuth) -> APIRouter:
    api = APIRouter()
    Caller = Annotated[Owner, Depends(auth)]
    invitations = services.invitations

    @api.post(
        "/projects/{project_id}/invitations", status_code=201, summary="A one-time link to join the story"
    )
    async def invite(project_id: str, body: NewInvitation, owner: Caller) -> dict[str, Any]:
        made = await invitations.invite(user_actor(owner.user_id), project_id, body.role, body.username)
        return {
            "invitation_id": made.invitation.invitation_id,
            "url": urls.absolute(services.settings.base_url, made.path),
            "role": made.invitation.role.value,
            "expires_at": iso(made.invitation.expires_at),
        }

    @api.get("/projects/{project_id}/invitations", summary="The story's invitations still open")
    async def open_invitations(project_id: str, owner: Caller) -> dict[str, Any]:
        found = await invitations.open_invitations(user_actor(owner.user_id), project_id)
        return {"invitations": [_invitation(invitation) for invitation in found]}

    @api.delete("/invitations/{invitation_id}", summary="Revoke an invitation: its link admits nobody")
    async def revoke(invitation_id: str, owner: Caller) -> dict[str, Any]:
        await invitations.revoke(user_actor(owner.user_id), invitation_id)
        return {"invitation_id": invitation_id, "revoked": True}

    return api


def _invitation(invitation: Invitation) -> dict[str, Any]:
    return {
        "invitation_id": invitation.invitation_id,
        "role": invitation.role.value,
        "username": invitation.for_username,
        "invited_by": invitation.invited_by,
        "created_at": iso(invitation.created_at),
        "expires_at": iso(invitation.expires_at),
    }

"""A story's members over the JSON API: who works on it, in which role, and handing it over.

No `from __future__ import annotations` here: FastAPI resolves the local `Caller` dependency
alias from the live annotations.
"""

from typing import Annotated, Any

from fastapi import APIRouter, Depends

from api.auth import Owner, OwnerAuth
from api.schemas import Heir, MemberRole, NewMember
from romergo.common.actors import user_actor
from romergo.common.clock import iso
from romergo.services import Services
from romergo.story.members import Member


def router(services: Services, auth: OwnerAuth) -> APIRouter:
    api = APIRouter()
    Caller = Annotated[Owner, Depends(auth)]
    members = services.members

    @api.get("/projects/{project_id}/members", summary="The story's members, the earliest added first")
    async def listed(project_id: str, caller: Caller) -> dict[str, Any]:
        return members_answer(await members.members(user_actor(caller.user_id), project_id))

    @api.post(
        "/projects/{project_id}/members",
        status_code=201,
        summary="An existing account joins the story as editor or viewer (the owner only)",
    )
    async def add(project_id: str, body: NewMember, caller: Caller) -> dict[str, Any]:
        added = await members.add_member(user_actor(caller.user_id), project_id, body.username, body.role)
        return member_answer(added)

    @api.put(
        "/projects/{project_id}/members/{username}",
        summary="A member other than the owner becomes editor or viewer (the owner only)",
    )
    async def change_role(project_id: str, username: str, body: MemberRole, caller: Caller) -> dict[str, Any]:
        changed = await members.change_role(user_actor(caller.user_id), project_id, username, body.role)
        return member_answer(changed)

    @api.delete(
        "/projects/{project_id}/members/{username}",
        summary="A member other than the owner leaves the story (the owner only); the members left",
    )
    async def remove(project_id: str, username: str, caller: Caller) -> dict[str, Any]:
        actor = user_actor(caller.user_id)
        await members.remove_member(actor, project_id, username)
        return members_answer(await members.members(actor, project_id))

    @api.post(
        "/projects/{project_id}/owner",
        summary="Hand the story over to another member; the old owner stays on as editor",
    )
    async def hand_over(project_id: str, body: Heir, caller: Caller) -> dict[str, Any]:
        return members_answer(await members.hand_over(user_actor(caller.user_id), project_id, body.username))

    return api


def members_answer(found: list[Member]) -> dict[str, Any]:
    return {"members": [member_answer(member) for member in found]}


def member_answer(member: Member) -> dict[str, Any]:
    return {"username": member.username, "role": member.role.value, "added_at": iso(member.added_at)}

"""Import and export over the JSON API: a project as a file, a file as a new project.

No `from __future__ import annotations` here: FastAPI resolves the local `Caller` dependency
alias from the live annotations.
"""

import json
from typing import Annotated, Any
from urllib.parse import quote

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import Response

from api.auth import Owner, OwnerAuth
from romergo.common.actors import user_actor
from romergo.services import Services

NOTES_HEADER = "X-Romergo-Notes"
MAX_NOTES_HEADER_CHARS = 4096
"""Clients and proxies refuse long headers (httpx stops at 16 KiB): notes past this are counted."""


def router(services: Services, auth: OwnerAuth) -> APIRouter:
    api = APIRouter()
    Caller = Annotated[Owner, Depends(auth)]
    interchange = services.interchange

    @api.get("/projects/{project_id}/export", summary="A project as a file: archive, twee or yarn")
    async def export(
        project_id: str, owner: Caller, format: Annotated[str, Query(max_length=20)] = "archive"
    ) -> Response:
        made = await interchange.export_project(user_actor(owner.user_id), project_id, format)
        return Response(
            made.data,
            media_type=made.media_type,
            headers={
                "Content-Disposition": f"attachment; filename*=UTF-8''{quote(made.filename)}",
                # What the format leaves out, as a JSON list (ASCII: a header carries no other text).
                NOTES_HEADER: notes_header(made.notes),
            },
        )

    @api.post("/projects/import", status_code=201, summary="A file (the request body) as a new project")
    async def import_file(
        request: Request,
        owner: Caller,
        filename: Annotated[str, Query(min_length=1, max_length=255)],
        format: Annotated[str | None, Query(max_length=20)] = None,
    ) -> dict[str, Any]:
        done = await interchange.import_file(
            user_actor(owner.user_id), filename, await request.body(), format
        )
        return {
            "project": {"id": done.project.id, "title": done.project.title},
            "format": done.format,
            "scenes": done.scenes,
            "notes": done.notes,
        }

    return api


def notes_header(notes: list[str]) -> str:
    """The notes as a JSON list, as many as fit, then one saying how many more there are."""
    shown: list[str] = []
    for index, note in enumerate(notes):
        more = f"… and {len(notes) - index:,} more notes."
        if len(json.dumps([*shown, note, more])) > MAX_NOTES_HEADER_CHARS:
            return json.dumps([*shown, more])
        shown.append(note)
    return json.dumps(shown)

"""Asset bytes for the editor (owner only) and for published stories (assets the snapshot uses)."""

from __future__ import annotations

from fastapi import FastAPI, Request
from fastapi.responses import Response

from romergo.common import urls
from romergo.common.actors import user_actor
from romergo.common.errors import RomergoError
from romergo.services import Services
from ui.web_session import signed_in_user


def add_routes(app: FastAPI, services: Services) -> None:
    @app.get(urls.MEDIA_ROUTE, include_in_schema=False)
    async def asset(request: Request, asset_id: str) -> Response:
        user = await signed_in_user(services, request)
        if user is None:
            return Response("Sign in to see this file.", status_code=401)
        try:
            row, data = await services.assets.asset_content(user_actor(user.id), asset_id)
        except RomergoError:
            return Response("No such file.", status_code=404)
        return _file(data, row.mime, private=True)

    @app.get(urls.PUBLISHED_MEDIA_ROUTE, include_in_schema=False)
    async def published_asset(share_id: str, asset_id: str) -> Response:
        found = await services.publishing.published_asset_content(share_id, asset_id)
        if found is None:
            return Response("No such file.", status_code=404)
        row, data = found
        return _file(data, row.mime, private=False)


def _file(data: bytes, mime: str, *, private: bool) -> Response:
    # Types come from sniffing at import, never from the client; nosniff keeps the browser to them.
    headers = {
        "X-Content-Type-Options": "nosniff",
        "Content-Disposition": "inline",
        "Cache-Control": "private, max-age=3600" if private else "public, max-age=300",
        "Content-Security-Policy": "default-src 'none'; sandbox",
    }
    return Response(data, media_type=mime, headers=headers)

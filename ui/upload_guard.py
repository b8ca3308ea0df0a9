"""Uploads belong to the signed-in tab that shows the upload box.

NiceGUI serves each upload box at `/_nicegui/client/{client id}/upload/{element id}` and checks
only that the client id exists: anyone who learns a tab's id could add files to its project
without a session. So every tab remembers the session it was opened with (`remember_tab_session`,
called by the shell), and `UploadGuard` lets an upload through only when it carries that same
session cookie and the session is still valid. Anything else gets 403 and reaches nothing.
"""

from __future__ import annotations

import hmac
import json
import re

from nicegui import Client
from starlette.requests import Request
from starlette.types import ASGIApp, Receive, Scope, Send

from romergo.services import Services
from ui.web_session import session_token

UPLOAD_PATH = re.compile(r"^/_nicegui/client/(?P<client>[^/]+)/upload/")
REFUSED = "Uploads need the signed-in session of the page that shows the upload box: reload it."

_tab_sessions: dict[str, str] = {}
"""NiceGUI client id → the session token its page was opened with (dropped with the client)."""


def remember_tab_session(client: Client, token: str) -> None:
    _tab_sessions[client.id] = token
    client.on_delete(lambda: _tab_sessions.pop(client.id, None))


class UploadGuard:
    def __init__(self, app: ASGIApp, services: Services) -> None:
        self.app = app
        self.services = services

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        found = UPLOAD_PATH.match(scope["path"]) if scope["type"] == "http" else None
        if found is not None and not await self._allowed(found["client"], Request(scope)):
            await _forbidden(send)
            return
        await self.app(scope, receive, send)

    async def _allowed(self, client_id: str, request: Request) -> bool:
        expected = _tab_sessions.get(client_id)
        sent = session_token(request)
        if expected is None or sent is None or not hmac.compare_digest(sent, expected):
            return False
        return await self.services.accounts.session_user(sent) is not None


async def _forbidden(send: Send) -> None:
    body = json.dumps({"detail": REFUSED}).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": 403, "headers": headers})
    await send({"type": "http.response.body", "body": body})

"""docs/security.md, "Web UI": behind an HTTPS public URL the session cookie is `Secure`."""

from __future__ import annotations

import re

import httpx

from tests.support.oauth import PASSWORD, post_form
from tests.support.server import RunningServer

SERVER_ENV = {"ROMERGO_PUBLIC_URL": "https://romergo.example"}
PUBLIC = {"Host": "romergo.example"}


async def test_the_session_cookie_is_secure_when_served_over_https(server: RunningServer):
    # As a TLS-terminating proxy hands the request on: the public host, the public origin.
    async with httpx.AsyncClient(base_url=server.base_url, headers=PUBLIC) as http:
        form = (await http.get("/login")).text
        token = re.search(r'"name":"csrf","value":"([^"]+)"', form)
        assert token
        answer = await post_form(
            http,
            "/login",
            [("username", "ada"), ("password", PASSWORD), ("csrf", token.group(1))],
            origin="https://romergo.example",
        )
    assert answer.status_code == 303 and "error" not in answer.headers["location"], answer.headers
    cookie = answer.headers["set-cookie"].lower()
    assert "secure" in cookie and "httponly" in cookie and "samesite=lax" in cookie

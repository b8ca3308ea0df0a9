"""Forwarding headers are believed only from configured proxies.

The attack: the registration rate limit keyed on `X-Forwarded-For` from a loopback peer, so a client
got a fresh limit by changing a header. With no `ROMERGO_TRUSTED_PROXIES` (the default) the peer's
own address counts, whatever the headers say.
"""

from __future__ import annotations

import httpx

from tests.support.server import RunningServer

SERVER_ENV = {"ROMERGO_REGISTRATIONS_PER_MINUTE": "2"}


async def test_a_forged_x_forwarded_for_does_not_reset_the_registration_limit(server: RunningServer):
    body = {"client_name": "Flood", "redirect_uris": ["http://127.0.0.1:9/cb"]}
    async with httpx.AsyncClient(base_url=server.base_url) as http:
        answers = [
            await http.post("/register", json=body, headers={"X-Forwarded-For": f"203.0.113.{n}"})
            for n in range(4)
        ]
    assert [answer.status_code for answer in answers] == [201, 201, 429, 429]

"""Agent access: OAuth clients, consent, codes, access and refresh tokens, personal access tokens.

The MCP adapter puts the SDK's OAuth routes on top of this; nothing here knows about HTTP.

- A **grant** is one user's consent to one client (or one personal token). Every code and token is
  issued under a grant, so revoking the grant (from the settings page, `/revoke`, or because a
  code or refresh token was replayed) kills all of them at once.
- Codes are single use: a second exchange fails and revokes what the first exchange issued.
- Refresh tokens rotate: each is used once; presenting a used one revokes its whole family.
- Every random secret (codes, tokens, pending-request handles) is stored as its SHA-256 only.
- Access tokens carry the audience they were issued for (`{base_url}/mcp`).
"""

from __future__ import annotations

from romergo.agents.clients import ClientOps
from romergo.agents.personal import PersonalOps
from romergo.agents.tokens import TokenOps


class AgentService(ClientOps, TokenOps, PersonalOps):
    pass

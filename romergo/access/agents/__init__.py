"""Agent access: who an agent is, what its token may do, and how it got the token.

OAuth 2.1 clients (dynamic registration, consent, codes, rotating refresh tokens) and personal
access tokens, all stored hashed. The MCP adapter wraps this with the SDK's HTTP routes.
"""

from romergo.access.agents.identity import AgentIdentity, AgentKind, VerifiedToken
from romergo.access.agents.personal import parse_scopes
from romergo.access.agents.records import (
    CodeInfo,
    Connection,
    IssuedTokens,
    PendingAuthorization,
    RefreshInfo,
    RegisteredClient,
)
from romergo.access.agents.service import AgentService

__all__ = [
    "AgentIdentity",
    "AgentKind",
    "AgentService",
    "CodeInfo",
    "Connection",
    "IssuedTokens",
    "PendingAuthorization",
    "RefreshInfo",
    "RegisteredClient",
    "VerifiedToken",
    "parse_scopes",
]

"""What makes a client's metadata document usable, whether Romergo fetched it or an administrator
trusted it from a file: the URL that names it, the document's own checks (its `client_id` is that
URL, redirect URIs follow the rules of `/register`, a public client, at most `MAX_DOCUMENT_BYTES`),
and the agent client kept for it so grants can name it.
"""

from __future__ import annotations

import ipaddress
import json
from typing import Any
from urllib.parse import urlsplit

from romergo.access.agents import redirects
from romergo.access.agents.base import client_name
from romergo.access.agents.document_fetch import MAX_DOCUMENT_BYTES
from romergo.access.agents.ledger import AgentClientRecord, ClientLedger
from romergo.access.agents.records import RegisteredClient, registered_client
from romergo.access.agents.scopes import OAUTH_SCOPES, ordered
from romergo.common.clock import utcnow
from romergo.common.errors import RomergoError, invalid

MAX_URL_CHARS = 500
TOO_LARGE = f"A client's metadata document has at most {MAX_DOCUMENT_BYTES // 1024} KB."


def is_document_url(client_id: object) -> bool:
    """Whether a `client_id` names a metadata document rather than a registered client."""
    return isinstance(client_id, str) and client_id.startswith(("https://", "http://"))


def url_problem(url: str, *, allow_private: bool) -> str | None:
    """Why `url` cannot name a metadata document, or None."""
    parts = urlsplit(url)
    loopback_http = allow_private and parts.scheme == "http" and _is_loopback_name(parts.hostname)
    if len(url) > MAX_URL_CHARS or (parts.scheme != "https" and not loopback_http):
        return f"A client_id URL must be an https:// URL of at most {MAX_URL_CHARS} characters."
    try:
        parts.port  # noqa: B018 - a port out of range raises here, before any lookup
    except ValueError:
        return "A client_id URL's port must be a number from 1 to 65535."
    if not parts.hostname or parts.username or parts.password or parts.fragment or parts.path in ("", "/"):
        return "A client_id URL names a document by its path, without credentials or fragment."
    return None


async def keep_client(clients: ClientLedger, url: str, document: dict[str, Any]) -> RegisteredClient:
    """Store (or refresh) the client of a document, so its grants and codes can name it."""
    kept = await clients.keep_document_client(
        AgentClientRecord(
            id=url,
            name=client_name(document.get("client_name") or urlsplit(url).hostname),
            redirect_uris=tuple(document["redirect_uris"]),
            scopes=tuple(ordered(_scopes(document))),
            registration=document,
            created_at=utcnow(),
        )
    )
    if kept is None:
        raise RomergoError("conflict", "This client id is taken.")
    return registered_client(kept)


def checked_document(url: str, body: bytes) -> dict[str, Any]:
    """The document in `body` if Romergo may use it for the client_id `url`, fetched or trusted."""
    if len(body) > MAX_DOCUMENT_BYTES:
        raise invalid(TOO_LARGE)
    try:
        document = json.loads(body)
    except (ValueError, RecursionError):
        raise invalid("The client's metadata document is not JSON.") from None
    if not isinstance(document, dict) or document.get("client_id") != url:
        raise invalid("The client's metadata document must name its own URL as client_id.")
    if document.get("token_endpoint_auth_method", "none") != "none":
        raise invalid("Romergo accepts public clients only: token_endpoint_auth_method must be none.")
    uris = document.get("redirect_uris")
    if not isinstance(uris, list) or not all(isinstance(uri, str) for uri in uris):
        raise invalid("The client's metadata document must list its redirect_uris.")
    redirects.check_redirect_uris(uris)
    return document


def _scopes(document: dict[str, Any]) -> list[str]:
    asked = document.get("scope")
    if not isinstance(asked, str):
        return list(OAUTH_SCOPES)
    return [scope for scope in asked.split() if scope in OAUTH_SCOPES] or list(OAUTH_SCOPES)


def _is_loopback_name(host: str | None) -> bool:
    if host is None:
        return False
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False

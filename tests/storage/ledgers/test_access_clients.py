"""Registered clients: an OAuth client is registered once under its id and found again only as an
OAuth client; a metadata document's client is kept, refreshed in place, and never takes an id
another kind of client holds."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

from romergo.common.clock import utcnow
from romergo.services import Services
from storage.access.clients import StoredClients
from storage.access.personal import StoredPersonalTokens
from storage.access.records import AgentClientRecord

URL = "https://agent.example/client.json"


def client(client_id: str, name: str = "Agent") -> AgentClientRecord:
    return AgentClientRecord(
        id=client_id,
        name=name,
        redirect_uris=("http://127.0.0.1:9/cb",),
        scopes=("romergo:read",),
        registration={"client_name": name},
        created_at=utcnow(),
    )


async def test_an_oauth_client_is_registered_once_and_found_again(services: Services) -> None:
    clients = StoredClients(services.db)
    assert await clients.oauth_client("agt_a") is None
    assert await clients.register(client("agt_a"))
    assert not await clients.register(client("agt_a", "Impostor"))
    found = await clients.oauth_client("agt_a")
    assert found is not None
    assert (found.id, found.name, found.redirect_uris, found.scopes, found.registration) == (
        "agt_a",
        "Agent",
        ("http://127.0.0.1:9/cb",),
        ("romergo:read",),
        {"client_name": "Agent"},
    )


async def test_a_personal_token_or_document_client_is_no_oauth_client(services: Services) -> None:
    clients = StoredClients(services.db)
    await services.accounts.create_user("ada")
    assert await StoredPersonalTokens(services.db).add(
        "ada",
        client_id="agt_script",
        grant_id="grt_script",
        token_hash="tok_script",
        name="Script",
        scopes=["romergo:read"],
        created_at=utcnow(),
        expires_at=utcnow() + timedelta(days=1),
    )
    assert await clients.keep_document_client(client(URL)) is not None
    assert await clients.oauth_client("agt_script") is None
    assert await clients.oauth_client(URL) is None
    assert not await clients.register(client("agt_script"))


async def test_a_document_client_is_refreshed_in_place_keeping_its_creation(services: Services) -> None:
    clients = StoredClients(services.db)
    first = await clients.keep_document_client(client(URL, "Old"))
    assert first is not None
    later = replace(
        client(URL, "New"), redirect_uris=("http://127.0.0.1:8/cb",), created_at=utcnow() + timedelta(hours=1)
    )
    kept = await clients.keep_document_client(later)
    assert kept is not None
    assert (kept.name, kept.redirect_uris, kept.registration) == (
        "New",
        ("http://127.0.0.1:8/cb",),
        {"client_name": "New"},
    )
    assert kept.created_at == first.created_at


async def test_a_document_client_never_takes_the_id_of_another_kind(services: Services) -> None:
    clients = StoredClients(services.db)
    assert await clients.register(client(URL, "Registered"))
    assert await clients.keep_document_client(client(URL, "Document")) is None
    registered = await clients.oauth_client(URL)
    assert registered is not None and registered.name == "Registered"

"""Trusted client documents: kept (and replaced) under their URL, listed by URL, forgotten, and
read with the client kept under the same id."""

from __future__ import annotations

from datetime import timedelta

from romergo.common.clock import utcnow
from romergo.services import Services
from storage.access.trusted_documents import StoredTrustedDocuments
from storage.tables import AgentClient

URL = "https://agent.example/client.json"


async def test_a_document_is_kept_replaced_listed_and_forgotten(services: Services) -> None:
    trusted = StoredTrustedDocuments(services.db)
    now = utcnow()
    await trusted.keep(URL, {"client_name": "Old"}, now)
    await trusted.keep(URL, {"client_name": "New"}, now + timedelta(seconds=1))
    await trusted.keep("https://a.example/c.json", {"client_name": "A"}, now)
    listed = await trusted.listed()
    assert [(kept.url, kept.document) for kept in listed] == [
        ("https://a.example/c.json", {"client_name": "A"}),
        (URL, {"client_name": "New"}),
    ]
    assert await trusted.forget(URL)
    assert not await trusted.forget(URL)
    assert [kept.url for kept in await trusted.listed()] == ["https://a.example/c.json"]


async def test_a_document_is_read_with_the_client_kept_under_its_url(services: Services) -> None:
    trusted = StoredTrustedDocuments(services.db)
    assert await trusted.with_client(URL) is None
    await trusted.keep(URL, {"client_name": "Agent"}, utcnow())
    found = await trusted.with_client(URL)
    assert found is not None and found[0].document == {"client_name": "Agent"} and found[1] is None
    async with services.db.write() as session:
        session.add(
            AgentClient(
                id=URL,
                kind="oauth",
                name="Agent",
                redirect_uris=["http://127.0.0.1/cb"],
                scopes=["romergo:read"],
                registration={"client_name": "Agent"},
                created_at=utcnow(),
            )
        )
    found = await trusted.with_client(URL)
    assert found is not None and found[1] is not None
    client = found[1]
    assert (client.id, client.redirect_uris, client.registration) == (
        URL,
        ("http://127.0.0.1/cb",),
        {"client_name": "Agent"},
    )

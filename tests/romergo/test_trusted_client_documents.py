"""A metadata document trusted from a file wins over its URL: while it is trusted the URL is never
fetched, even when it answers, and after `untrust` the URL is fetched again."""

from __future__ import annotations

import json

import pytest

from romergo.access.agents.client_documents import ClientDocuments, UnreachableDocument
from romergo.access.agents.trusted_documents import TrustedDocuments
from romergo.services import Services, agent_ledgers
from tests.romergo.test_client_documents import GOOD, URL, Site, public_lookup

DATABASES = ("sqlite",)
"""The database side is the ledgers' contract, run on both (tests/storage/ledgers/test_access_*.py)."""


async def test_a_trusted_document_is_used_instead_of_fetching_until_untrusted(services: Services):
    site = Site({**GOOD, "client_name": "What the URL says"}, cache_control="no-store")
    ledgers = agent_ledgers(services.db)
    trusted = TrustedDocuments(ledgers.trusted_documents, ledgers.clients)
    resolver = ClientDocuments(
        ledgers.clients, allow_private=False, fetch=site, lookup=public_lookup, trusted=trusted
    )
    await trusted.trust(URL, json.dumps({**GOOD, "client_name": "What the file says"}).encode())

    for _ in range(2):
        assert (await resolver.resolve(URL)).name == "What the file says"
    assert site.asked == 0 and not resolver.will_fetch(URL)

    await trusted.untrust(URL)
    assert (await resolver.resolve(URL)).name == "What the URL says"
    assert site.asked == 1


async def test_a_document_trusted_while_its_fetch_is_remembered_as_failed_is_used_at_once(services: Services):
    site = Site(status=404)
    ledgers = agent_ledgers(services.db)
    trusted = TrustedDocuments(ledgers.trusted_documents, ledgers.clients)
    resolver = ClientDocuments(
        ledgers.clients, allow_private=False, fetch=site, lookup=public_lookup, trusted=trusted
    )
    with pytest.raises(UnreachableDocument, match="could not be fetched"):
        await resolver.resolve(URL)  # and the failure is remembered for a while
    await trusted.trust(URL, json.dumps(GOOD).encode())
    assert (await resolver.resolve(URL)).name == "Example Agent"
    assert site.asked == 1

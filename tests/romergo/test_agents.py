"""Agent access in the core: registration policy, consent, single-use codes, refresh rotation,
revocation, personal tokens and the settings page's list (real services on a real SQLite file)."""

from __future__ import annotations

import asyncio
import base64
import hashlib
import sqlite3
from datetime import timedelta
from urllib.parse import parse_qs, urlsplit

import pytest
from sqlalchemy import update
from sqlmodel import col, select

from romergo.access.agents import AgentService, parse_scopes, redirects
from romergo.access.agents.records import Connection
from romergo.access.agents.scopes import CONTROL, DELETE, EDIT, MEDIA, OAUTH_SCOPES, PUBLISH, READ
from romergo.common.clock import utcnow
from romergo.common.errors import RomergoError
from storage.tables import AgentGrant, AgentToken
from tests.support.statements import counting
from tests.support.waiting import until

DATABASES = ("sqlite",)
"""The database side is the ledgers' contract, run on both (tests/storage/ledgers/test_access_*.py)."""

CALLBACK = "http://127.0.0.1:33418/callback"
CHALLENGE = base64.urlsafe_b64encode(hashlib.sha256(b"verifier" * 8).digest()).decode().rstrip("=")


@pytest.mark.parametrize(
    "uri",
    [
        "https://chatgpt.com/connector_platform_oauth_redirect",
        "http://127.0.0.1:6276/oauth/callback",
        "http://localhost:3334/oauth/callback",
        "http://[::1]:8000/cb",
        "http://127.0.0.1/cb?tenant=7",
    ],
)
def test_registration_accepts_https_and_loopback_http(uri):
    assert redirects.check_redirect_uri(uri) == uri


@pytest.mark.parametrize(
    ("uri", "reason"),
    [
        ("javascript:alert(1)", "https://"),
        ("http://evil.example/cb", "must point at this machine"),
        ("http://127.0.0.1.evil.example/cb", "must point at this machine"),
        ("https://app.example/cb#frag", "fragment"),
        ("https://user:pw@app.example/cb", "user name or password"),
        ("https://app.example/a/../cb", "dot segments"),
        ("https://app.example/a/%2e%2e/cb", "dot segments"),
        ("https://app.example/cb?code=planted", "response parameter"),
        ("https://app.example/c b", "printable ASCII"),
        ("custom-scheme:/cb", "https://"),
        ("https://", "needs a host"),
    ],
)
def test_registration_refuses_dangerous_redirect_uris(uri, reason):
    with pytest.raises(RomergoError) as refused:
        redirects.check_redirect_uri(uri)
    assert refused.value.code == "invalid_argument"
    assert reason in refused.value.message


def test_loopback_redirects_match_on_any_port_but_nothing_else_differs():
    assert redirects.matches(CALLBACK, "http://127.0.0.1:51234/callback")
    assert redirects.matches("http://localhost/cb", "http://localhost:9/cb")
    assert not redirects.matches(CALLBACK, "http://localhost:33418/callback")  # another host spelling
    assert not redirects.matches(CALLBACK, "http://127.0.0.1:33418/other")
    assert not redirects.matches(CALLBACK, "http://127.0.0.1:33418/callback?x=1")
    assert redirects.matches("https://app.example/cb", "https://app.example/cb")
    assert not redirects.matches("https://app.example/cb", "https://app.example:444/cb")
    assert not redirects.matches("https://app.example/cb", "https://app.example/cb#x")


def test_the_response_carries_exactly_one_of_each_server_made_parameter():
    url = redirects.with_response("https://app.example/cb?tenant=7&state=old", {"code": "c", "state": "s"})
    query = parse_qs(urlsplit(url).query)
    assert query == {"tenant": ["7"], "code": ["c"], "state": ["s"]}


async def register(agents: AgentService, *, scopes=None, uris=(CALLBACK,), name="Test agent"):
    return await agents.clients.register(
        client_id=f"client-{len(uris)}-{name}-{scopes}",
        name=name,
        redirect_uris=list(uris),
        scopes=list(scopes or OAUTH_SCOPES),
        registration={"client_name": name},
    )


async def consented(agents: AgentService, user_id: str, *, scopes=(EDIT, MEDIA), state="st-1", client=None):
    client = client or await register(agents)
    request_id = await agents.consent.start_authorization(
        client.client_id,
        redirect_uri="http://127.0.0.1:40001/callback",
        redirect_uri_explicit=True,
        state=state,
        scope=None,
        code_challenge=CHALLENGE,
        resource=agents.site.resource,
    )
    location = await agents.consent.approve(request_id, user_id, list(scopes))
    code = parse_qs(urlsplit(location).query)["code"][0]
    return client, code, location


async def test_consent_issues_one_code_that_buys_tokens_once(services, author):
    agents = services.agents
    client, code, location = await consented(agents, author.id)

    query = parse_qs(urlsplit(location).query)
    assert location.startswith("http://127.0.0.1:40001/callback?")
    assert query["state"] == ["st-1"] and query["iss"] == [agents.site.issuer]
    loaded = await agents.tokens.load_code(client.client_id, code)
    assert loaded is not None and loaded.code_challenge == CHALLENGE
    assert loaded.redirect_uri == "http://127.0.0.1:40001/callback"
    assert set(loaded.scopes) == {READ, EDIT, MEDIA}

    tokens = await agents.tokens.exchange_code(client.client_id, code)
    verified = await agents.tokens.verify(tokens.access_token)
    assert verified is not None
    assert verified.resource == agents.site.resource
    assert verified.identity.user_id == author.id and verified.identity.kind == "oauth"
    assert verified.identity.client_name == "Test agent"
    assert verified.identity.scopes == frozenset({READ, EDIT, MEDIA})

    # The replay fails and takes down what the first exchange issued.
    assert await agents.tokens.load_code(client.client_id, code) is None
    with pytest.raises(RomergoError):
        await agents.tokens.exchange_code(client.client_id, code)
    assert await agents.tokens.verify(tokens.access_token) is None
    assert await agents.tokens.load_refresh(client.client_id, tokens.refresh_token) is None


async def test_a_code_belongs_to_its_client(services, author):
    agents = services.agents
    client, code, _ = await consented(agents, author.id)
    other = await register(agents, name="Other")
    assert await agents.tokens.load_code(other.client_id, code) is None
    with pytest.raises(RomergoError):
        await agents.tokens.exchange_code(other.client_id, code)
    assert await agents.tokens.exchange_code(client.client_id, code)  # the real client still can


async def test_refresh_rotates_and_a_reused_refresh_token_revokes_the_family(services, author):
    agents = services.agents
    client, code, _ = await consented(agents, author.id)
    first = await agents.tokens.exchange_code(client.client_id, code)

    second = await agents.tokens.rotate_refresh(client.client_id, first.refresh_token, [READ])
    assert second.refresh_token != first.refresh_token
    assert (await agents.tokens.verify(second.access_token)).identity.scopes == frozenset({READ})
    # The rotated refresh token keeps the grant's full scopes.
    third = await agents.tokens.rotate_refresh(client.client_id, second.refresh_token, [READ, EDIT])
    assert (await agents.tokens.verify(third.access_token)).identity.scopes == frozenset({READ, EDIT})

    assert await agents.tokens.load_refresh(client.client_id, first.refresh_token) is None  # reuse
    for token in (first.access_token, second.access_token, third.access_token):
        assert await agents.tokens.verify(token) is None
    with pytest.raises(RomergoError):
        await agents.tokens.rotate_refresh(client.client_id, third.refresh_token, [READ])


async def test_a_refresh_cannot_widen_the_scopes(services, author):
    agents = services.agents
    client, code, _ = await consented(agents, author.id, scopes=())
    tokens = await agents.tokens.exchange_code(client.client_id, code)
    with pytest.raises(RomergoError) as refused:
        await agents.tokens.rotate_refresh(client.client_id, tokens.refresh_token, [READ, PUBLISH])
    assert refused.value.code == "invalid_argument"


async def test_revoking_any_token_revokes_its_whole_grant(services, author):
    agents = services.agents
    client, code, _ = await consented(agents, author.id)
    tokens = await agents.tokens.exchange_code(client.client_id, code)
    assert await agents.tokens.revoke(tokens.refresh_token)
    assert await agents.tokens.verify(tokens.access_token) is None
    assert await agents.tokens.load_refresh(client.client_id, tokens.refresh_token) is None
    assert not await agents.tokens.revoke("rga_not-a-token")


async def test_consent_is_single_use_and_grants_only_what_was_offered(services, author):
    agents = services.agents
    client = await register(agents, scopes=[READ, EDIT])
    request_id = await agents.consent.start_authorization(
        client.client_id,
        redirect_uri=CALLBACK,
        redirect_uri_explicit=True,
        state=None,
        scope="romergo:read romergo:edit",
        code_challenge=CHALLENGE,
        resource=None,
    )
    pending = await agents.consent.pending_authorization(request_id)
    assert pending.offered_scopes == (READ, EDIT)
    assert pending.redirect_host == "127.0.0.1:33418"

    with pytest.raises(RomergoError) as refused:
        await agents.consent.approve(request_id, author.id, [PUBLISH])
    assert refused.value.code == "invalid_argument"
    assert (
        await agents.consent.pending_authorization(request_id) is not None
    )  # a refused answer changes nothing

    location = await agents.consent.deny(request_id)
    assert parse_qs(urlsplit(location).query) == {
        "error": ["access_denied"],
        "error_description": ["The user denied access."],
        "iss": [agents.site.issuer],
    }
    with pytest.raises(RomergoError) as again:
        await agents.consent.approve(request_id, author.id, [EDIT])
    assert again.value.code == "conflict"
    assert await agents.consent.pending_authorization(request_id) is None


@pytest.mark.parametrize(
    ("overrides", "reason"),
    [
        ({"scope": CONTROL}, "never granted"),
        ({"scope": "romergo:read romergo:admin"}, "Unknown scope"),
        ({"code_challenge_method": "plain"}, "S256"),
        ({"code_challenge": "short"}, "43 base64url"),
        ({"resource": "http://elsewhere.example/mcp"}, "only for"),
        ({"redirect_uri": "http://127.0.0.1:1/elsewhere"}, "not one this agent registered"),
        ({"state": "s" * 1001}, "state"),
    ],
)
async def test_authorization_requests_are_checked_before_anything_happens(services, overrides, reason):
    agents = services.agents
    client = await register(agents)
    request = {
        "redirect_uri": CALLBACK,
        "scope": None,
        "code_challenge": CHALLENGE,
        "code_challenge_method": "S256",
        "resource": agents.site.resource,
        "state": "x",
    } | overrides
    with pytest.raises(RomergoError) as refused:
        agents.consent.check_authorization(client, **request)
    assert reason in refused.value.message


async def test_registration_refuses_control_bad_names_and_bad_redirects(services):
    agents = services.agents
    with pytest.raises(RomergoError, match="not romergo:control"):
        await register(agents, scopes=[READ, CONTROL])
    with pytest.raises(RomergoError, match="at most 100"):
        await register(agents, name="x" * 101)
    with pytest.raises(RomergoError, match="invisible formatting"):
        await register(agents, name="Claude\u202eedoC")
    with pytest.raises(RomergoError, match="fragment"):
        await register(agents, uris=("https://a.example/cb#x",))
    with pytest.raises(RomergoError, match="at least one"):
        await register(agents, uris=())
    assert await agents.clients.get("client-1-Test agent-None") is None  # nothing was stored


async def test_personal_tokens_are_their_own_clients_and_only_bearer_tokens(services, author):
    agents = services.agents
    token, client_id = await agents.personal.create("writer", name="CI bot")
    other_token, other_id = await agents.personal.create("writer", scopes=[READ, CONTROL], expires_days=1)
    assert client_id != other_id and token.startswith("rgp_")

    verified = await agents.tokens.verify(token)
    assert verified.identity.kind == "personal" and verified.identity.client_name == "CI bot"
    assert verified.identity.scopes == frozenset({READ, EDIT, MEDIA})
    assert verified.resource is None
    assert (await agents.tokens.identity(other_token)).scopes == frozenset({READ, CONTROL})
    # Not an OAuth client, not a refresh token: useless at /authorize and /token.
    assert await agents.clients.get(client_id) is None
    assert await agents.tokens.load_refresh(client_id, token) is None

    assert await agents.grants.revoke_client(author.id, client_id) == 1
    assert await agents.tokens.verify(token) is None
    assert await agents.tokens.verify(other_token) is not None


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"expires_days": 0}, "1 to 3650 days"),
        ({"expires_days": 5000}, "1 to 3650 days"),
        ({"scopes": []}, "at least one scope"),
        ({"name": "x" * 200}, "at most 100"),
    ],
)
async def test_bad_personal_token_requests_change_nothing(services, author, kwargs, message):
    with pytest.raises(RomergoError, match=message):
        await services.agents.personal.create("writer", **kwargs)
    assert await services.agents.grants.connections(author.id) == []


async def test_personal_tokens_for_unknown_users_are_refused(services):
    with pytest.raises(RomergoError, match='User "ghost" does not exist'):
        await services.agents.personal.create("ghost")


async def test_expired_personal_tokens_stop_working(services, author):
    agents = services.agents
    token, _ = await agents.personal.create("writer")
    async with services.db.write() as session:
        await session.exec(update(AgentToken).values(expires_at=utcnow() - timedelta(seconds=1)))
    assert await agents.tokens.verify(token) is None
    assert await agents.grants.connections(author.id) == []


async def test_last_use_is_recorded_at_most_once_a_minute(services, author):
    agents = services.agents
    token, client_id = await agents.personal.create("writer")
    await agents.tokens.verify(token)
    first = (await agents.grants.connections(author.id))[0].last_used_at
    assert first is not None
    await agents.grants.last_uses.write()  # as it is a few seconds later
    await agents.tokens.verify(token)
    assert (await agents.grants.connections(author.id))[0].last_used_at == first

    async with services.db.write() as session:
        await session.exec(
            update(AgentGrant)
            .where(col(AgentGrant.client_id) == client_id)
            .values(last_used_at=first - timedelta(minutes=2))
        )
    await agents.tokens.verify(token)
    assert (await agents.grants.connections(author.id))[0].last_used_at > first


async def test_last_uses_are_written_together_and_shown_before_they_are(services, author, monkeypatch):
    monkeypatch.setattr(services.agents.grants.last_uses, "every", 60.0)  # written when asked, however slow
    agents = services.agents
    tokens = [(await agents.personal.create("writer", name=f"token {n}"))[0] for n in range(3)]

    with counting(services) as seen:
        for token in tokens:
            assert await agents.tokens.verify(token) is not None
    assert not [sql for sql in seen.sql if not sql.startswith("SELECT")], str(seen)  # checks only read
    shown = await agents.grants.connections(author.id)
    assert len(shown) == 3 and all(connection.last_used_at is not None for connection in shown)
    async with services.db.read() as session:
        assert all(grant.last_used_at is None for grant in (await session.exec(select(AgentGrant))).all())

    with counting(services) as seen:
        await agents.grants.last_uses.write()
    assert seen.transactions == 1 and len(seen.sql) == 1, str(seen)  # every stamp in one statement
    async with services.db.read() as session:
        written = {grant.last_used_at for grant in (await session.exec(select(AgentGrant))).all()}
    assert written == {connection.last_used_at for connection in shown}
    assert await agents.grants.connections(author.id) == shown


async def test_a_use_noted_while_the_stamps_are_written_goes_in_the_next_write(services, author, monkeypatch):
    monkeypatch.setattr(services.agents.grants.last_uses, "every", 0.01)
    agents = services.agents
    first, second = [(await agents.personal.create("writer", name=f"token {n}"))[0] for n in range(2)]
    writing = services.db.write_rows
    seen_during_write: list[Connection] = []

    async def write_rows(work):
        if not seen_during_write:  # the first write: a use comes in while it is under way
            await agents.tokens.verify(second)
            seen_during_write.extend(await agents.grants.connections(author.id))
        return await writing(work)

    monkeypatch.setattr(services.db, "write_rows", write_rows)
    await agents.tokens.verify(first)

    async def both_written():
        async with services.db.read() as session:
            grants = (await session.exec(select(AgentGrant))).all()
        return len(grants) == 2 and all(grant.last_used_at is not None for grant in grants)

    await until(both_written, what="both grants stamped, the second by the write after the first")
    # While the first write ran, the page showed both: the one being written and the one just noted.
    assert len(seen_during_write) == 2 and all(c.last_used_at is not None for c in seen_during_write)


async def test_a_failed_write_of_last_uses_keeps_them_for_the_next(services, author, monkeypatch):
    monkeypatch.setattr(services.agents.grants.last_uses, "every", 60.0)  # written when asked
    agents = services.agents
    token, _ = await agents.personal.create("writer")
    await agents.tokens.verify(token)
    noted = (await agents.grants.connections(author.id))[0].last_used_at
    writing = services.db.write_rows

    async def fails(work):
        raise sqlite3.OperationalError("disk I/O error")

    monkeypatch.setattr(services.db, "write_rows", fails)
    with pytest.raises(sqlite3.OperationalError):
        await agents.grants.last_uses.write()
    assert (await agents.grants.connections(author.id))[0].last_used_at == noted  # still shown

    monkeypatch.setattr(services.db, "write_rows", writing)
    await agents.grants.last_uses.write()
    assert await _stamps(services) == [noted]


async def test_a_stop_during_the_write_of_last_uses_still_writes_them(services, author, monkeypatch):
    monkeypatch.setattr(services.agents.grants.last_uses, "every", 0.01)
    agents = services.agents
    token, _ = await agents.personal.create("writer")
    writing = services.db.write_rows
    entered = asyncio.Event()

    async def stalls_the_first(work):
        if not entered.is_set():
            entered.set()
            await asyncio.Event().wait()  # a write the stop interrupts
        return await writing(work)

    monkeypatch.setattr(services.db, "write_rows", stalls_the_first)
    await agents.tokens.verify(token)
    noted = (await agents.grants.connections(author.id))[0].last_used_at
    await asyncio.wait_for(entered.wait(), 5)
    await agents.grants.last_uses.close()
    assert await _stamps(services) == [noted]


async def _stamps(services) -> list[object]:
    async with services.db.read() as session:
        return [grant.last_used_at for grant in (await session.exec(select(AgentGrant))).all()]


async def test_the_settings_list_shows_live_connections_only(services, author):
    agents = services.agents
    client, code, _ = await consented(agents, author.id, scopes=(EDIT, DELETE))
    await agents.tokens.exchange_code(client.client_id, code)
    _, pat_id = await agents.personal.create("writer", name="Script")
    gone, _ = await agents.personal.create("writer", name="Old")
    await agents.tokens.revoke(gone)

    listed = {c.client_id: c for c in await agents.grants.connections(author.id)}
    assert set(listed) == {client.client_id, pat_id}
    assert listed[client.client_id].scopes == (READ, EDIT, DELETE)
    assert listed[client.client_id].kind == "oauth"
    assert listed[pat_id].kind == "personal" and listed[pat_id].expires_at is not None

    other = await services.accounts.create_user("someone")
    assert await agents.grants.connections(other.id) == []
    assert await agents.grants.revoke_client(other.id, client.client_id) == 0  # not theirs to revoke
    assert client.client_id in {c.client_id for c in await agents.grants.connections(author.id)}


@pytest.mark.parametrize("database", ["sqlite"])  # it reads the database file's bytes
async def test_no_secret_is_stored_in_plain_text(services, author, tmp_path):
    agents = services.agents
    client, code, _ = await consented(agents, author.id)
    tokens = await agents.tokens.exchange_code(client.client_id, code)
    personal, _ = await agents.personal.create("writer")
    await services.close()
    raw = b"".join(path.read_bytes() for path in tmp_path.glob("romergo.db*"))
    for secret in (code, tokens.access_token, tokens.refresh_token, personal):
        assert secret.encode() not in raw
    with sqlite3.connect(tmp_path / "romergo.db") as db:
        hashes = {row[0] for row in db.execute("SELECT token_hash FROM agent_tokens")}
    assert hashlib.sha256(personal.encode()).hexdigest() in hashes


def test_scope_lists_from_the_command_line():
    assert parse_scopes("read, edit,romergo:media") == [READ, EDIT, MEDIA]
    assert parse_scopes("control,read") == [READ, CONTROL]
    with pytest.raises(RomergoError, match='Unknown scope "admin"'):
        parse_scopes("read,admin")
    with pytest.raises(RomergoError, match="at least one scope"):
        parse_scopes(" , ")

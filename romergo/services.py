"""Every service of the core, built once by the composition root and handed to the adapters."""

from __future__ import annotations

import secrets
from dataclasses import dataclass

from romergo.access.accounts.identities import IdentitySignIn
from romergo.access.accounts.ledger import User
from romergo.access.accounts.people import People
from romergo.access.accounts.service import AccountService
from romergo.access.agents import AgentService
from romergo.access.agents.ledger import AgentLedgers
from romergo.access.secrets import server_secret
from romergo.channels import ChannelService
from romergo.channels.vocabulary import UNDOABLE_STATES
from romergo.common.actors import user_actor
from romergo.common.bus import EventBus
from romergo.common.clock import Clock
from romergo.common.config import Settings
from romergo.common.errors import RomergoError
from romergo.interchange.service import InterchangeService
from romergo.story import (
    AssetService,
    ChapterService,
    CharacterService,
    CopyService,
    HistoryReads,
    InvitationsService,
    LineService,
    MembersService,
    ProjectService,
    PublishingService,
    SceneService,
    StoryReads,
    StorySearch,
    StoryStore,
    UndoOutcome,
    UndoService,
)
from romergo.story.ledger import StoryLedger
from romergo.story.on_scene import ScenePresence
from romergo.story.pattern_workers import PatternWorkers
from romergo.story.state.variables import VariableService
from storage import Database
from storage.access.accounts import Accounts
from storage.access.activity import StoredActivity
from storage.access.clients import StoredClients
from storage.access.consent import StoredConsent
from storage.access.expiry import AccessExpiry
from storage.access.grants import StoredGrants
from storage.access.identities import Identities
from storage.access.personal import StoredPersonalTokens
from storage.access.rate_counts import RateCounts
from storage.access.settings import ServerSettings
from storage.access.tokens import StoredTokens
from storage.access.trusted_documents import StoredTrustedDocuments
from storage.channels import DatabaseChannelLedger
from storage.migrate import upgrade
from storage.story.ledger import DatabaseStoryLedger
from storage.wakeups import PostgresWakeups


@dataclass
class Services:
    settings: Settings
    secret: str
    db: Database
    bus: EventBus
    story_ledger: StoryLedger
    """The story's reads as stored (`romergo.story.ledger`)."""
    projects: ProjectService
    members: MembersService
    invitations: InvitationsService
    publishing: PublishingService
    chapters: ChapterService
    scenes: SceneService
    lines: LineService
    characters: CharacterService
    copies: CopyService
    assets: AssetService
    reads: StoryReads
    undo: UndoService
    history: HistoryReads
    search: StorySearch
    patterns: PatternWorkers
    """The worker processes that compile and run search patterns (`search` uses them)."""
    interchange: InterchangeService
    variables: VariableService
    on_scene: ScenePresence
    """Who is on each scene now: tabs, the lines they edit, agents at work (this process only)."""
    accounts: AccountService
    identities: IdentitySignIn
    """Sign-in with the team's OpenID Connect provider (off unless `oidc_issuer` is set)."""
    people: People
    """The accounts as an administrator manages them (/settings/people, `romergo user …`)."""
    channels: ChannelService
    agents: AgentService
    wakeups: PostgresWakeups | None = None

    async def revoke_agent(self, user_id: str, client_id: str) -> int:
        """ "Revoke" on the settings page: the agent's tokens die, then its channel memberships
        end (its waits are released and the panel says so). Returns how many grants were live."""
        revoked = await self.agents.grants.revoke_client(user_id, client_id)
        await self.channels.owner.agent_revoked(user_id, client_id)
        return revoked

    async def deactivate_account(self, by: str | None, username: str) -> User:
        """ "Deactivate": the account can no longer sign in and its browser sessions end (`people`),
        then every agent it let in is revoked as "Revoke" does it, rooms included."""
        user = await self.people.deactivate(by, username)
        for client_id in await self.agents.grants.live_clients(user.id):
            await self.revoke_agent(user.id, client_id)
        return user

    async def refused_revoked_call(self, token: str, tool: str) -> None:
        """A tool call with a token of a revoked grant was refused: record it on the room the
        agent was revoked from, and as its last refused call (within the agent's rate limit)."""
        identity = await self.agents.tokens.revoked_identity(token)
        if identity is None or not await self.channels.guard.tool_calls.allow(identity.client_id):
            return
        await self.channels.guard.record_revoked_call(
            identity.user_id, identity.client_id, identity.client_name, tool
        )
        await self.agents.activity.refused(identity.user_id, identity.client_id, tool, "unauthorized")

    async def undo_command(
        self, user_id: str, command_id: str, *, force: bool = False, redo: bool = False
    ) -> UndoOutcome:
        """ "Undo this command" (and its redo): only the owner's, only once the agent is done with it."""
        command = await self.channels.owner.get_command(user_id, command_id)
        if command.state not in UNDOABLE_STATES:
            raise RomergoError("conflict", "The agent is still working on this command: cancel it first.")
        outcome = await self.undo.undo(user_actor(user_id), f"command:{command_id}", force=force, redo=redo)
        if outcome.reverted:
            await self.channels.owner.command_undone(
                user_id, command_id, undone=not redo, reverted=outcome.reverted
            )
        return outcome

    async def start_wakeups(self) -> None:
        """On PostgreSQL, wake-ups cross to the other processes on the database (LISTEN/NOTIFY);
        SQLite serves one process and needs none. The server calls this at start-up."""
        if self.wakeups is None and not self.db.is_sqlite:
            self.wakeups = PostgresWakeups(self.db.url, self.bus.deliver, self._database_back)
            await self.wakeups.start()
            self.bus.relay = self.wakeups

    async def _database_back(self) -> None:
        """The listening connection was lost and is back: the database may have restarted, so the
        pooled connections go (they are not pinged before each use: that would cost a round trip
        per transaction), then every waiter and page re-reads what it may have missed."""
        await self.db.drop_pooled_connections()
        self.bus.wake_all()

    async def close(self) -> None:
        await self.channels.store.settled()  # reads' tool events still on their way
        await self.patterns.close()
        await self.agents.grants.last_uses.close()
        await self.agents.activity.accepted_calls.close()
        await self.channels.agent.presence.close()
        if self.wakeups is not None:
            self.bus.relay = None
            await self.wakeups.stop()
            self.wakeups = None
        await self.db.dispose()


def build_services(settings: Settings, clock: Clock | None = None, secret: str | None = None) -> Services:
    """Build the services without touching the database.

    Engines connect lazily, in the event loop that first uses them (the server's, not the CLI's).
    `clock` is the time the channels decide by (tests move it instead of sleeping). `secret` is the
    database's server secret (`prepare_database`) for a server; a CLI command or a test that
    passes none gets one of its own, since nothing it signs outlives it.
    """
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    db = Database(settings.resolved_database_url)
    bus = EventBus()
    story_ledger = DatabaseStoryLedger(db)
    store = StoryStore(db, bus, story_ledger)
    limits = settings.limits
    reads = StoryReads(store, story_ledger)
    patterns = PatternWorkers()  # no process yet: the first search starts one
    on_scene = ScenePresence(bus)
    accounts_ledger = Accounts(db)
    accounts = AccountService(accounts_ledger, db, settings)
    return Services(
        settings=settings,
        secret=secret or secrets.token_hex(32),
        db=db,
        bus=bus,
        story_ledger=story_ledger,
        projects=ProjectService(store, limits),
        members=MembersService(store),
        invitations=InvitationsService(store, settings.invitation_days),
        publishing=PublishingService(store),
        chapters=ChapterService(store, limits),
        scenes=SceneService(store, limits),
        lines=LineService(store, limits),
        characters=CharacterService(store, limits),
        copies=CopyService(store, limits),
        assets=AssetService(store, limits),
        reads=reads,
        undo=UndoService(store),
        history=HistoryReads(story_ledger),
        search=StorySearch(store, limits, patterns),
        patterns=patterns,
        interchange=InterchangeService(store, story_ledger, limits),
        variables=VariableService(store, limits),
        on_scene=on_scene,
        accounts=accounts,
        identities=IdentitySignIn(Identities(db), accounts, settings),
        people=People(accounts_ledger, accounts),
        channels=ChannelService.build(
            db, bus, settings, clock, reads, on_scene, ledger=DatabaseChannelLedger(db)
        ),
        agents=AgentService(db, settings, agent_ledgers(db)),
    )


def agent_ledgers(db: Database) -> AgentLedgers:
    return AgentLedgers(
        clients=StoredClients(db),
        grants=StoredGrants(db),
        activity=StoredActivity(db),
        expiry=AccessExpiry(db),
        personal=StoredPersonalTokens(db),
        trusted_documents=StoredTrustedDocuments(db),
        rate_counts=RateCounts(db),
        consent=StoredConsent(db),
        tokens=StoredTokens(db),
    )


async def migrate(settings: Settings) -> None:
    await upgrade(settings.resolved_database_url)


async def prepare_database(settings: Settings) -> str:
    """Before a server builds its app: migrate the database to head and return the server secret
    every instance on it shares (created by the first). Runs in a loop of its own, on an engine
    of its own, disposed before the server's loop starts."""
    await migrate(settings)
    db = Database(settings.resolved_database_url)
    try:
        return await server_secret(ServerSettings(db), settings.data_dir)
    finally:
        await db.dispose()


async def open_services(settings: Settings) -> Services:
    """Migrate the database to head, then build the services on it (CLI commands and tests)."""
    await migrate(settings)
    return build_services(settings)


async def first_start(services: Services) -> tuple[User, bool]:
    """On a database without users: create `author` and seed the demo project for them.

    Returns the user the printed sign-in link is for (the first account) and whether it was new.
    """
    from romergo.demo.seed import seed_demo

    user, created = await services.accounts.ensure_first_user()
    if created:
        await seed_demo(services, user.id)
    return user, created

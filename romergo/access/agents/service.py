"""Agent access: OAuth clients, consent, codes, access and refresh tokens, personal access tokens.

The MCP adapter puts the SDK's OAuth routes on top of this; nothing here knows about HTTP. Each
part is a small service with its own dependencies, wired together here once:

- `trusted_documents`: client metadata documents an administrator stored from files, used instead
  of fetching them (agents that name themselves by a URL connect without internet access);
- `clients`: dynamic registration (rate-limited per address) and finding a client again, also by
  the URL of its metadata document (fetches rate-limited per address);
- `consent`: `/authorize` checks, the pending request, the user's answer (a grant and a code);
- `tokens`: codes for tokens, refresh rotation, bearer verification, revocation by token;
- `personal`: personal access tokens;
- `grants`: the settings page's connections and its "Revoke";
- `activity`: each agent's last accepted and last refused call (the settings page);
- `housekeeping`: forgetting expired requests, codes and tokens.

Every random secret (codes, tokens, pending-request handles) is stored as its SHA-256 only.
"""

from __future__ import annotations

from datetime import timedelta

from romergo.access.agents.activity import ActivityLog
from romergo.access.agents.client_documents import FETCHES_PER_MINUTE, ClientDocuments
from romergo.access.agents.clients import Clients
from romergo.access.agents.consent import Consent
from romergo.access.agents.grants import Grants
from romergo.access.agents.housekeeping import Housekeeping
from romergo.access.agents.ledger import AgentLedgers
from romergo.access.agents.personal import PersonalTokens
from romergo.access.agents.site import OAuthSite
from romergo.access.agents.tokens import Tokens
from romergo.access.agents.trusted_documents import TrustedDocuments
from romergo.access.ratelimit import rate_limit
from romergo.common.config import Settings
from storage import Database


class AgentService:
    def __init__(self, db: Database, settings: Settings, ledgers: AgentLedgers) -> None:
        self.site = OAuthSite.from_settings(settings)
        self.housekeeping = Housekeeping(ledgers.expiry, ledgers.rate_counts)
        self.grants = Grants(ledgers.grants)
        self.trusted_documents = TrustedDocuments(ledgers.trusted_documents, ledgers.clients)
        self.clients = Clients(
            ledgers.clients,
            registrations=rate_limit(
                settings, db, "registrations", limit=settings.registrations_per_minute, window_seconds=60
            ),
            documents=ClientDocuments(
                ledgers.clients,
                allow_private=settings.cimd_allow_private,
                trusted=self.trusted_documents,
                fetches=rate_limit(
                    settings, db, "document_fetches", limit=FETCHES_PER_MINUTE, window_seconds=60
                ),
            ),
        )
        self.consent = Consent(ledgers.consent, self.site, self.clients, self.housekeeping)
        self.tokens = Tokens(
            ledgers.tokens,
            self.grants,
            access_lifetime=timedelta(minutes=settings.access_token_minutes),
            refresh_lifetime=timedelta(days=settings.refresh_token_days),
        )
        self.personal = PersonalTokens(ledgers.personal)
        self.activity = ActivityLog(ledgers.activity)

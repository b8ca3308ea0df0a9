"""What every page of the signed-in shell knows: the services, the user, their session, their place."""

from __future__ import annotations

from dataclasses import dataclass, field

from romergo.access import csrf
from romergo.access.accounts.ledger import User
from romergo.common.actors import Actor, user_actor
from romergo.services import Services
from ui.edits import EditHistory
from ui.place import Place


@dataclass(frozen=True)
class PageContext:
    """One per browser tab, made by the shell; sub pages share it while the author moves around."""

    services: Services
    user: User
    session_token: str
    place: Place = field(default_factory=Place)
    """Where this tab is and what is selected: the agent panel's command context (ui/place.py)."""
    edits: EditHistory = field(default_factory=EditHistory)
    """The author's own changes made in this tab, for Ctrl+Z (ui/edits.py)."""

    @property
    def actor(self) -> Actor:
        return user_actor(self.user.id, self.user.username)

    def csrf(self, purpose: str) -> str:
        return csrf.session_token(self.services.secret, purpose, self.session_token)

    async def still_signed_in(self) -> bool:
        """Checked before every change from a page: a session ended elsewhere stops this tab too."""
        user = await self.services.accounts.session_user(self.session_token)
        return user is not None and user.id == self.user.id

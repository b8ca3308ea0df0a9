"""The NiceGUI adapter: everything a browser sees of Romergo.

- `shell`: the signed-in tab (header, agent panel drawer, sub pages routed by `romergo.common.urls`);
  `context`, `place`, `selection`: what a tab knows (user, session, where the author is and what
  they selected: the agent's command context).
- `frame` and `live`: how a project page loads, says "not found" and follows changes.
- `pages/`: one module per page path; `components/`: the parts pages share; `panel/`: the agent panel.
- `actions`: running a change from a page; `forms`, `media`: the plain HTTP routes (sign-in and
  sign-out forms, asset bytes); `provider_sign_in`: signing in with the team's identity
  provider; `web_session`: the session cookie and the same-origin check;
  `upload_guard`: NiceGUI's upload URLs accept only the session of the tab that shows the box.

`mount()` must run after every other adapter has added its routes to the app: NiceGUI mounts
itself at `/` and would hide anything added later.
"""

from __future__ import annotations

from fastapi import FastAPI
from nicegui import app as nicegui_app
from nicegui import storage, ui

from romergo.services import Services
from ui import forms, media, provider_sign_in
from ui.pages import agents, consent, invitation, login, published
from ui.panel import DemoLauncher
from ui.shell import build_root
from ui.upload_guard import UploadGuard


def mount(app: FastAPI, services: Services, demo: DemoLauncher | None = None) -> None:
    # Browser storage beside the database, not in whatever directory the server was started from.
    storage.Storage.path = (services.settings.data_dir / "nicegui").resolve()
    app.add_middleware(UploadGuard, services=services)
    forms.add_routes(app, services)
    media.add_routes(app, services)
    consent.add_routes(app, services)
    invitation.add_routes(app, services)
    agents.add_routes(app, services)
    # On NiceGUI's app, whose session middleware keeps the sign-in flow's state and nonce.
    provider_sign_in.add_routes(nicegui_app, services)
    login.register(services)
    consent.register(services)
    invitation.register(services)
    published.register(services)
    ui.run_with(
        app,
        root=build_root(services, demo),
        title="Romergo",
        favicon="📖",
        storage_secret=services.secret,
        show_welcome_message=False,
        reconnect_timeout=10.0,
    )

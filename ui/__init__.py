"""The NiceGUI adapter: pages, components and the browser's own HTTP routes.

`mount()` must run after every other adapter has added its routes to the app: NiceGUI mounts
itself at `/` and would hide anything added later.
"""

from __future__ import annotations

from fastapi import FastAPI
from nicegui import storage, ui

from romergo.services import Services
from ui import forms, media
from ui.pages import agents, consent, login, published
from ui.panel import DemoLauncher
from ui.shell import build_root


def mount(app: FastAPI, services: Services, demo: DemoLauncher | None = None) -> None:
    # Browser storage beside the database, not in whatever directory the server was started from.
    storage.Storage.path = (services.settings.data_dir / "nicegui").resolve()
    forms.add_routes(app, services)
    media.add_routes(app, services)
    consent.add_routes(app, services)
    agents.add_routes(app, services)
    login.register(services)
    consent.register(services)
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

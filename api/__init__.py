"""The JSON API adapter (`/api/v1`), with its own OpenAPI document at `/api/v1/openapi.json`."""

from __future__ import annotations

from fastapi import FastAPI

from api import errors, interchange, invitations, members
from api.auth import BearerVerifier, OwnerAuth
from api.routes import router
from romergo.services import Services


def mount(app: FastAPI, services: Services, verify_bearer: BearerVerifier) -> None:
    api = FastAPI(
        title="Romergo API",
        version="1",
        description="The owner's side of the Builder loop (channels, commands, events), import/export "
        "and a story's members.",
        docs_url="/docs",
        redoc_url=None,
        openapi_url="/openapi.json",
    )
    errors.install(api)
    auth = OwnerAuth(services, verify_bearer)
    api.include_router(router(services, auth))
    api.include_router(interchange.router(services, auth))
    api.include_router(members.router(services, auth))
    api.include_router(invitations.router(services, auth))
    app.mount("/api/v1", api)

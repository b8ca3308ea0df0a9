"""A certified OpenID Connect provider (oidc-provider, tests/oidc/provider.mjs) on loopback, and a
Romergo server configured to sign in with it. `scripts/bootstrap test` installs the provider."""

from __future__ import annotations

import json
import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.support.server import RunningServer

HERE = Path(__file__).parent
NODE_22 = HERE.parent / "conformance" / "node_modules" / ".bin" / "node"
CLIENT_ID = "romergo-team"
CLIENT_SECRET = "a-client-secret-the-provider-and-romergo-share"
PROVIDER_NAME = "Team ID"


@pytest.fixture(scope="module")
def issuer() -> Iterator[str]:
    """The provider's issuer URL, once its discovery document is served."""
    assert (HERE / "node_modules" / "oidc-provider").exists(), "scripts/bootstrap test installs oidc-provider"
    node = str(NODE_22) if NODE_22.exists() else shutil.which("node") or "node"
    config = {
        "client_id": CLIENT_ID,
        "client_secret": CLIENT_SECRET,
        "redirect_uri": "http://127.0.0.1/login/oidc/callback",
    }
    process = subprocess.Popen(
        [node, str(HERE / "provider.mjs"), json.dumps(config)],
        cwd=HERE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        yield _discovered(_announced_issuer(process))
    finally:
        process.terminate()
        process.wait(10)


@pytest.fixture(scope="module")
def team_server(tmp_path_factory: pytest.TempPathFactory, issuer: str) -> Iterator[RunningServer]:
    """Romergo signing in with the provider: team.example addresses only, accounts made on first
    sign-in."""
    env = {
        "ROMERGO_OIDC_ISSUER": issuer,
        "ROMERGO_OIDC_CLIENT_ID": CLIENT_ID,
        "ROMERGO_OIDC_CLIENT_SECRET": CLIENT_SECRET,
        "ROMERGO_OIDC_PROVIDER_NAME": PROVIDER_NAME,
        "ROMERGO_OIDC_ALLOWED_DOMAINS": "team.example",
        "ROMERGO_OIDC_CREATE_ACCOUNTS": "1",
    }
    running = RunningServer(tmp_path_factory.mktemp("team"), env=env).start()
    yield running
    running.stop()


def _announced_issuer(process: subprocess.Popen[str]) -> str:
    assert process.stdout is not None
    for line in process.stdout:
        if line.startswith("Issuer: "):
            return line.removeprefix("Issuer: ").strip()
    raise RuntimeError("the identity provider stopped before it listened")


def _discovered(issuer: str, timeout: float = 20) -> str:
    deadline = time.monotonic() + timeout
    while True:
        try:
            if httpx.get(f"{issuer}/.well-known/openid-configuration", timeout=2).status_code == 200:
                return issuer
        except httpx.TransportError:
            if time.monotonic() > deadline:
                raise
        if time.monotonic() > deadline:
            raise RuntimeError("the identity provider never served its discovery document")
        time.sleep(0.05)

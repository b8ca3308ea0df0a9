"""Test authors: an account with a password and its own copy of the demo, made with the real CLI."""

from __future__ import annotations

import re
from dataclasses import dataclass

from tests.support.cli import romergo_here
from tests.support.server import RunningServer

PASSWORD = "correct horse battery"
DEMO_TITLE = "The Lighthouse Keeper's Secret"


@dataclass(frozen=True)
class NewAuthor:
    username: str
    password: str
    demo_id: str


def new_author(server: RunningServer, username: str) -> NewAuthor:
    """`romergo user add` then `romergo seed-demo`, against the running server's data dir."""
    added = romergo_here(
        "user", "add", username, data_dir=server.data_dir, stdin=PASSWORD + "\n", env=server.extra_env
    )
    assert added.returncode == 0, added.stderr
    seeded = romergo_here("seed-demo", "--user", username, data_dir=server.data_dir, env=server.extra_env)
    assert seeded.returncode == 0, seeded.stderr
    found = re.search(r"(prj_[a-z0-9]+)", seeded.stdout)
    assert found, seeded.stdout
    return NewAuthor(username, PASSWORD, found.group(1))


def sign_in_link(server: RunningServer, username: str) -> str:
    """A fresh one-time sign-in link for `username` (`romergo login-link`), on the server's own
    address: a browser that follows it is signed in without the form and its password check."""
    made = romergo_here("login-link", "--user", username, data_dir=server.data_dir, env=server.extra_env)
    assert made.returncode == 0, made.stderr
    found = re.search(r"/login\?token=(\S+)", made.stdout)
    assert found, made.stdout
    return f"{server.base_url}/login?token={found.group(1)}"

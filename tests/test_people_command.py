"""`romergo user list | admin | deactivate | reactivate`, as the server's operator runs them: the
first account administers, the last active administrator is kept, a deactivated account cannot
sign in; a bad case is one line on stderr, exit 1, and nothing changed."""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path

import pytest

from tests.support.cli import romergo

pytestmark = pytest.mark.long

PASSWORD = "correct horse battery\n"


def standing(data_dir: Path) -> list[tuple[str, bool, bool]]:
    """(name, administrator, deactivated) of every account, by name."""
    with sqlite3.connect(data_dir / "romergo.db") as db:
        rows = db.execute("SELECT username, administrator, deactivated_at FROM users ORDER BY username")
        return [
            (name, bool(administrator), deactivated is not None) for name, administrator, deactivated in rows
        ]


def ok(*args: str, data_dir: Path, stdin: str | None = None) -> str:
    done = romergo(*args, data_dir=data_dir, stdin=stdin)
    assert done.returncode == 0, done.stderr
    return done.stdout


def refused(*args: str, data_dir: Path) -> str:
    done = romergo(*args, data_dir=data_dir)
    assert done.returncode == 1 and done.stdout == "", done.stdout + done.stderr
    assert len(done.stderr.splitlines()) == 1
    return done.stderr


def test_accounts_are_listed_and_administrators_made_and_unmade(tmp_path):
    ok("user", "add", "ada", data_dir=tmp_path, stdin=PASSWORD)
    ok("user", "add", "bob", data_dir=tmp_path, stdin=PASSWORD)

    listed = ok("user", "list", data_dir=tmp_path).splitlines()
    assert [line.split("\t")[:3] for line in listed] == [
        ["ada", "administrator", "active"],
        ["bob", "member", "active"],
    ]
    assert re.fullmatch(r"created \d{4}-\d\d-\d\d \d\d:\d\d UTC", listed[0].split("\t")[3])
    assert listed[0].split("\t")[4] == "last sign-in never"

    assert ok("user", "admin", "bob", data_dir=tmp_path) == "bob is now an administrator.\n"
    assert ok("user", "admin", "ada", "--remove", data_dir=tmp_path) == "ada is no longer an administrator.\n"
    assert "last active administrator" in refused("user", "admin", "bob", "--remove", data_dir=tmp_path)
    assert 'User "ghost" does not exist' in refused("user", "admin", "ghost", data_dir=tmp_path)
    assert standing(tmp_path) == [("ada", False, False), ("bob", True, False)]


def test_a_deactivated_account_cannot_sign_in_until_reactivated(tmp_path):
    ok("user", "add", "ada", data_dir=tmp_path, stdin=PASSWORD)
    ok("user", "add", "bob", data_dir=tmp_path, stdin=PASSWORD)
    ok("login-link", "--user", "bob", data_dir=tmp_path)

    said = ok("user", "deactivate", "bob", data_dir=tmp_path)
    assert said == "bob deactivated; their browser sessions were ended and their agents revoked.\n"
    assert standing(tmp_path) == [("ada", True, False), ("bob", False, True)]
    with sqlite3.connect(tmp_path / "romergo.db") as db:
        assert db.execute("SELECT count(*) FROM signin_links WHERE used_at IS NULL").fetchone() == (0,)
    assert "deactivated" in refused("login-link", "--user", "bob", data_dir=tmp_path)
    assert "deactivated" in refused("token", "create", "bob", data_dir=tmp_path)
    assert "last active administrator" in refused("user", "deactivate", "ada", data_dir=tmp_path)
    assert 'User "ghost" does not exist' in refused("user", "deactivate", "ghost", data_dir=tmp_path)

    assert ok("user", "reactivate", "bob", data_dir=tmp_path) == "bob can sign in again.\n"
    assert standing(tmp_path) == [("ada", True, False), ("bob", False, False)]
    assert ok("login-link", "--user", "bob", data_dir=tmp_path).startswith("Sign in: ")

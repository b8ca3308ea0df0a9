"""The `romergo` command line, run as a user would (subprocesses on a real data dir); the accounts
a test needs before the command under test are made in this process (`romergo_here`: quicker)."""

from __future__ import annotations

import hashlib
import json
import re
import sqlite3

import pytest

from tests.support.cli import romergo, romergo_here

pytestmark = pytest.mark.long


def users(data_dir) -> list[tuple[str, bool]]:
    if not (data_dir / "romergo.db").exists():
        return []
    with sqlite3.connect(data_dir / "romergo.db") as db:
        return [
            (name, hashed is not None)
            for name, hashed in db.execute("SELECT username, password_hash FROM users ORDER BY username")
        ]


def test_user_add_with_a_piped_password_and_passwd(tmp_path):
    added = romergo("user", "add", "ada", data_dir=tmp_path, stdin="correct horse battery\n")
    assert added.returncode == 0, added.stderr
    assert "correct horse battery" not in added.stdout + added.stderr
    assert users(tmp_path) == [("ada", True)]

    changed = romergo("user", "passwd", "ada", data_dir=tmp_path, stdin="another long password\n")
    assert changed.returncode == 0, changed.stderr
    with sqlite3.connect(tmp_path / "romergo.db") as db:
        (stored,) = db.execute("SELECT password_hash FROM users WHERE username = 'ada'").fetchone()
    assert stored.startswith("$argon2id$")


def test_a_short_password_is_refused_and_no_user_is_made(tmp_path):
    result = romergo("user", "add", "bob", data_dir=tmp_path, stdin="short\n")
    assert result.returncode == 1
    assert "at least 12 characters" in result.stderr
    assert users(tmp_path) == []


def test_passwd_for_an_unknown_user_fails_clearly(tmp_path):
    result = romergo("user", "passwd", "ghost", data_dir=tmp_path, stdin="a long enough password\n")
    assert result.returncode == 1
    assert 'User "ghost" does not exist' in result.stderr


def test_seed_demo_is_idempotent(tmp_path):
    romergo_here("user", "add", "author", data_dir=tmp_path, stdin="correct horse battery\n")
    first = romergo("seed-demo", data_dir=tmp_path)
    second = romergo("seed-demo", "--user", "author", data_dir=tmp_path)
    assert first.returncode == 0 and second.returncode == 0, first.stderr + second.stderr
    assert first.stdout.startswith("Seeded demo project prj_")
    assert second.stdout.startswith("Already there:")
    with sqlite3.connect(tmp_path / "romergo.db") as db:
        (count,) = db.execute("SELECT count(*) FROM projects").fetchone()
        (scenes,) = db.execute("SELECT count(*) FROM scenes").fetchone()
        kinds = dict(db.execute("SELECT kind, count(*) FROM assets GROUP BY kind").fetchall())
    assert count == 1
    assert scenes >= 10
    assert kinds["background"] >= 4 and kinds["music"] >= 3


def test_seed_demo_for_an_unknown_user_fails(tmp_path):
    result = romergo("seed-demo", "--user", "ghost", data_dir=tmp_path)
    assert result.returncode == 1
    assert "ghost" in result.stderr


def test_bad_settings_are_reported_with_the_variable(tmp_path, monkeypatch):
    monkeypatch.setenv("ROMERGO_MAX_LINE_CHARS", "lots")
    result = romergo("seed-demo", data_dir=tmp_path)
    assert result.returncode == 2
    assert "ROMERGO_MAX_LINE_CHARS" in result.stderr


def test_the_demo_media_are_real_files(tmp_path):
    romergo_here("user", "add", "author", data_dir=tmp_path, stdin="correct horse battery\n")
    romergo("seed-demo", data_dir=tmp_path)
    with sqlite3.connect(tmp_path / "romergo.db") as db:
        rows = db.execute(
            "SELECT a.kind, a.mime, b.data FROM assets a JOIN asset_blobs b ON b.id = a.blob_id"
        ).fetchall()
    images = {bytes(data) for kind, mime, data in rows if kind == "background"}
    loops = {bytes(data) for kind, mime, data in rows if kind == "music"}
    assert len(images) >= 4 and len(loops) >= 3  # distinct files, not copies
    assert all(mime == "image/png" for kind, mime, _ in rows if kind == "background")
    assert all(mime == "audio/wav" for kind, mime, _ in rows if kind == "music")
    import io
    import wave

    for data in loops:
        with wave.open(io.BytesIO(data)) as clip:
            assert clip.getnframes() / clip.getframerate() >= 2.0  # a loop of a few seconds


def test_token_create_prints_only_the_token_and_stores_its_hash(tmp_path):
    romergo_here("user", "add", "ada", data_dir=tmp_path, stdin="correct horse battery\n")
    made = romergo(
        "token",
        "create",
        "ada",
        "--name",
        "CI",
        "--scopes",
        "read,publish",
        "--expires-days",
        "7",
        data_dir=tmp_path,
    )
    assert made.returncode == 0, made.stderr
    assert re.fullmatch(r"rgp_[A-Za-z0-9_-]{43}\n", made.stdout)
    token = made.stdout.strip()
    default = romergo("token", "create", "ada", data_dir=tmp_path)
    with sqlite3.connect(tmp_path / "romergo.db") as db:
        rows = db.execute(
            "SELECT c.name, c.kind, t.scopes, t.token_hash, "
            "julianday(t.expires_at) - julianday(t.created_at) "
            "FROM agent_tokens t JOIN agent_clients c ON c.id = t.client_id ORDER BY t.created_at"
        ).fetchall()
    assert [(name, kind, json.loads(scopes)) for name, kind, scopes, _, _ in rows] == [
        ("CI", "personal", ["romergo:read", "romergo:publish"]),
        ("Personal access token", "personal", ["romergo:read", "romergo:edit", "romergo:media"]),
    ]
    assert rows[0][3] == hashlib.sha256(token.encode()).hexdigest()
    assert round(rows[0][4]) == 7 and round(rows[1][4]) == 90
    assert default.stdout.strip() != token


def test_token_create_refuses_bad_requests_and_stores_nothing(tmp_path):
    romergo_here("user", "add", "ada", data_dir=tmp_path, stdin="correct horse battery\n")
    cases = [
        (("token", "create", "ghost"), 'User "ghost" does not exist'),
        (("token", "create", "ada", "--scopes", "read,admin"), 'Unknown scope "admin"'),
        (("token", "create", "ada", "--expires-days", "0"), "1 to 3650 days"),
        (("token", "create", "ada", "--name", "x" * 101), "at most 100 characters"),
    ]
    for args, message in cases:
        result = romergo(*args, data_dir=tmp_path)
        assert result.returncode == 1, args
        assert message in result.stderr and result.stdout == ""
    with sqlite3.connect(tmp_path / "romergo.db") as db:
        assert db.execute("SELECT count(*) FROM agent_tokens").fetchone() == (0,)


def test_login_link_prints_a_fresh_link_without_a_restart(tmp_path):
    romergo_here("user", "add", "ada", data_dir=tmp_path, stdin="correct horse battery\n")
    first = romergo("login-link", "--port", "9123", data_dir=tmp_path)
    second = romergo("login-link", "--user", "ada", data_dir=tmp_path)
    assert first.returncode == 0 and second.returncode == 0, first.stderr + second.stderr
    links = [
        re.fullmatch(r"Sign in: (http://\S+)/login\?token=(\S+)\n", done.stdout) for done in (first, second)
    ]
    assert links[0] and links[1], first.stdout + second.stdout
    assert links[0].group(1) == "http://127.0.0.1:9123" and links[1].group(1) == "http://127.0.0.1:8080"
    with sqlite3.connect(tmp_path / "romergo.db") as db:
        stored = {hashed for (hashed,) in db.execute("SELECT token_hash FROM signin_links")}
    assert {hashlib.sha256(link.group(2).encode()).hexdigest() for link in links} == stored


def test_login_link_refuses_an_unknown_user_or_an_empty_database(tmp_path):
    empty = romergo("login-link", data_dir=tmp_path)
    assert empty.returncode == 1 and "no account yet" in empty.stderr
    romergo_here("user", "add", "ada", data_dir=tmp_path, stdin="correct horse battery\n")
    ghost = romergo("login-link", "--user", "ghost", data_dir=tmp_path)
    assert ghost.returncode == 1 and 'User "ghost" does not exist' in ghost.stderr
    with sqlite3.connect(tmp_path / "romergo.db") as db:
        assert db.execute("SELECT count(*) FROM signin_links").fetchone() == (0,)


def test_version(tmp_path):
    done = romergo("--version", data_dir=tmp_path)
    assert done.returncode == 0 and re.fullmatch(r"romergo \d+\.\d+\.\d+\n", done.stdout), done.stderr

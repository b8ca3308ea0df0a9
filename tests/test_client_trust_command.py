"""`romergo client trust | list | untrust`, as an administrator runs them: a client's metadata
document stored from a file, with the checks a fetched document gets; bad input is one line on
stderr, exit 1, and nothing stored."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.cli import romergo

pytestmark = pytest.mark.long

URL = "https://claude.ai/oauth/claude-code-client-metadata"


def document(client_id: str = URL, **changes: object) -> dict[str, object]:
    return {
        "client_id": client_id,
        "client_name": "Claude Code",
        "redirect_uris": ["http://localhost/callback", "http://127.0.0.1/callback"],
        "token_endpoint_auth_method": "none",
        **changes,
    }


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    folder = tmp_path / "data"
    folder.mkdir()
    return folder


def written(folder: Path, content: object, name: str = "client.json") -> Path:
    path = folder / name
    path.write_text(content if isinstance(content, str) else json.dumps(content))
    return path


def test_a_trusted_document_is_listed_until_it_is_untrusted(data_dir: Path, tmp_path: Path):
    file = written(tmp_path, document())
    trusted = romergo("client", "trust", URL, "--document", str(file), data_dir=data_dir)
    assert trusted.returncode == 0, trusted.stderr
    assert URL in trusted.stdout

    listed = romergo("client", "list", data_dir=data_dir)
    assert listed.returncode == 0, listed.stderr
    assert URL in listed.stdout and "Claude Code" in listed.stdout

    untrusted = romergo("client", "untrust", URL, data_dir=data_dir)
    assert untrusted.returncode == 0, untrusted.stderr
    assert URL not in romergo("client", "list", data_dir=data_dir).stdout


def test_trusting_again_replaces_the_document(data_dir: Path, tmp_path: Path):
    first = written(tmp_path, document(), "first.json")
    second = written(tmp_path, document(client_name="Claude Code, renamed"), "second.json")
    assert romergo("client", "trust", URL, "--document", str(first), data_dir=data_dir).returncode == 0
    assert romergo("client", "trust", URL, "--document", str(second), data_dir=data_dir).returncode == 0
    listed = romergo("client", "list", data_dir=data_dir).stdout
    assert "Claude Code, renamed" in listed and listed.count(URL) == 1


@pytest.mark.parametrize(
    ("url", "content", "says"),
    [
        (URL, "{not json", "not JSON"),
        (URL, document("https://someone.example/client.json"), "must name its own URL as client_id"),
        ("http://claude.ai/oauth/claude-code-client-metadata", document(), "https://"),
        (URL, document(redirect_uris=["http://evil.example/cb"]), "this machine"),
        (URL, document(token_endpoint_auth_method="client_secret_basic"), "public clients only"),
        (URL, document(client_name="x" * 6000), "5 KB"),
    ],
    ids=["not-json", "wrong-client-id", "not-https", "bad-redirect-uri", "confidential-client", "too-big"],
)
def test_a_bad_document_is_refused_in_one_line_and_nothing_is_stored(
    data_dir: Path, tmp_path: Path, url: str, content: object, says: str
):
    file = written(tmp_path, content)
    refused = romergo("client", "trust", url, "--document", str(file), data_dir=data_dir)
    assert refused.returncode == 1
    assert says in refused.stderr
    assert len(refused.stderr.strip().splitlines()) == 1 and "Traceback" not in refused.stderr
    assert url not in romergo("client", "list", data_dir=data_dir).stdout


def test_a_missing_file_is_refused_in_one_line(data_dir: Path, tmp_path: Path):
    refused = romergo("client", "trust", URL, "--document", str(tmp_path / "absent.json"), data_dir=data_dir)
    assert refused.returncode == 1
    assert "cannot be read" in refused.stderr and len(refused.stderr.strip().splitlines()) == 1


def test_untrusting_a_url_that_is_not_trusted_is_refused(data_dir: Path):
    refused = romergo("client", "untrust", URL, data_dir=data_dir)
    assert refused.returncode == 1
    assert "is not trusted" in refused.stderr and len(refused.stderr.strip().splitlines()) == 1

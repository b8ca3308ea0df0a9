"""Twee and Yarn files are read in time linear in their size: a file of more passages than an
import may hold is refused at once, whatever its size, and one long hostile line (one that makes a
backtracking pattern try every split of it) costs no more than its length."""

from __future__ import annotations

import time

import pytest

from tests.support.hostile_imports import (
    imported,
    owner_api,
    project_ids,
    refusal,
    twee_passages,
    yarn_nodes,
)
from tests.support.server import RunningServer

LONG = 200_000
"""Characters of one hostile line (a pattern that backtracks takes hours on it)."""


@pytest.mark.parametrize(
    ("filename", "data"),
    [
        ("many.twee", twee_passages(20_000)),
        ("huge.twee", twee_passages(300_000)),
        ("many.yarn", yarn_nodes(20_000)),
    ],
    ids=["twee-20k", "twee-300k", "yarn-20k"],
)
async def test_more_passages_than_an_import_holds_are_refused_at_once(
    server: RunningServer, filename: str, data: bytes
):
    async with owner_api(server) as http:
        projects = await project_ids(http)
        started = time.monotonic()
        message = refusal(await imported(http, filename, data))
        took = time.monotonic() - started
        assert await project_ids(http) == projects
    assert "at most 10,000 scenes" in message or "may have at most 1,000,000" in message  # lines
    assert took < 5, f"the refusal took {took:.1f} s"


@pytest.mark.parametrize(
    ("filename", "data"),
    [
        ("header.twee", b":: Start\nHi\n:: a" + b" " * LONG + b"]\n"),
        ("links.twee", b":: Start\n" + b"[[" * LONG + b"\n"),
        ("tags.yarn", b"title: Start\n---\nHi" + b" #a" * LONG + b" x\n==="),
        ("condition.yarn", b"title: Start\n---\nHi " + b"<<if " * LONG + b">>\n==="),
        ("set.yarn", b"title: Start\n---\n<<set $a to " + b" " * LONG + b"x>>\n==="),
    ],
    ids=["twee-header", "twee-links", "yarn-tags", "yarn-condition", "yarn-set"],
)
async def test_one_long_hostile_line_is_read_in_linear_time(
    server: RunningServer, filename: str, data: bytes
):
    async with owner_api(server) as http:
        started = time.monotonic()
        answer = await imported(http, filename, data)
        took = time.monotonic() - started
    assert answer.status_code in (201, 400), answer.text[:300]
    assert took < 5, f"{filename} took {took:.1f} s"

"""Which addresses a metadata document may be fetched from: IPv6 forms that carry an IPv4 address
are judged by the address inside; multicast and link-local never pass."""

from __future__ import annotations

import pytest

from romergo.access.agents.public_addresses import may_fetch_from


@pytest.mark.parametrize(
    "address",
    [
        "64:ff9b::a9fe:a9fe",  # NAT64 of the cloud metadata address
        "64:ff9b::7f00:1",  # NAT64 of loopback
        "64:ff9b:1::a00:1",  # local-use NAT64 of a private address
        "2002:a9fe:a9fe::",  # 6to4 of link-local
        "2002:7f00:1::",  # 6to4 of loopback
        "::127.0.0.1",  # IPv4-compatible loopback
        "::a9fe:a9fe",  # IPv4-compatible link-local
        "::ffff:10.0.0.1",  # IPv4-mapped private
        "2001:0:4136:e378:8000:63bf:3fff:fdd2",  # Teredo to a documentation address
        "224.0.0.1",
        "ff02::1",
        "127.0.0.1",
        "::1",
        "10.1.2.3",
        "192.168.1.1",
        "169.254.169.254",
        "fe80::1",
        "0.0.0.0",
        "::",
        "240.0.0.1",
        "not an address",
    ],
)
def test_addresses_that_lead_inside_are_refused(address: str):
    assert not may_fetch_from(address, allow_private=False)


@pytest.mark.parametrize(
    "address", ["93.184.215.14", "2606:4700::1111", "64:ff9b::808:808", "::ffff:8.8.8.8"]
)
def test_public_addresses_pass_in_any_form(address: str):
    assert may_fetch_from(address, allow_private=False)


@pytest.mark.parametrize(
    ("address", "passes"),
    [
        ("127.0.0.1", True),
        ("::1", True),
        ("10.1.2.3", True),
        ("fd00::1", True),
        ("64:ff9b::7f00:1", True),
        ("169.254.169.254", False),
        ("64:ff9b::a9fe:a9fe", False),
        ("fe80::1", False),
        ("224.0.0.1", False),
        ("ff02::1", False),
        ("240.0.0.1", False),
    ],
)
def test_allowing_private_documents_opens_loopback_and_private_networks_only(address: str, passes: bool):
    assert may_fetch_from(address, allow_private=True) is passes

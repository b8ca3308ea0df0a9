"""The ledger of open connections behind the per-address and total caps (`hardening.connections`)."""

from __future__ import annotations

import asyncio

from hardening.connections import ConnectionLedger, ConnectionRules, total_for_open_files


class Connection(asyncio.BaseTransport):
    def __init__(self) -> None:
        super().__init__()
        self.closing = False

    def is_closing(self) -> bool:
        return self.closing


def test_the_total_cap_leaves_a_fifth_of_the_open_files_and_a_reserve():
    assert total_for_open_files(1024) == 755
    assert total_for_open_files(65536) == 52364
    assert total_for_open_files(20) == 16  # never fewer than a handful


def test_an_address_at_its_cap_is_refused_until_one_of_its_connections_closes():
    ledger = ConnectionLedger(ConnectionRules(total=100, per_address=2))
    first, second = Connection(), Connection()
    assert ledger.admit("192.0.2.1", first) is None
    assert ledger.admit("192.0.2.1", second) is None
    assert ledger.admit("192.0.2.1", Connection()) == (
        "Too many connections from your address; close some and try again."
    )
    assert ledger.admit("192.0.2.2", Connection()) is None  # another address is not held to it
    ledger.release("192.0.2.1", first)
    assert ledger.admit("192.0.2.1", Connection()) is None


def test_a_connection_handed_to_another_protocol_is_forgotten_once_closed():
    """A WebSocket takes its connection over and never releases it: a cap forgets it once closed."""
    ledger = ConnectionLedger(ConnectionRules(total=2, per_address=1))
    upgraded = Connection()
    assert ledger.admit("192.0.2.1", upgraded) is None
    assert ledger.admit("192.0.2.1", Connection()) is not None
    upgraded.closing = True
    assert ledger.admit("192.0.2.1", Connection()) is None
    assert ledger.count == 1


def test_the_total_cap_holds_for_every_address():
    ledger = ConnectionLedger(ConnectionRules(total=2, per_address=5))
    assert ledger.admit("192.0.2.1", Connection()) is None
    assert ledger.admit("192.0.2.2", Connection()) is None
    assert (
        ledger.admit("192.0.2.3", Connection()) == "Too many connections to this server; try again shortly."
    )


def test_a_trusted_proxy_is_held_only_to_the_total_cap():
    ledger = ConnectionLedger(ConnectionRules(total=10, per_address=1, uncapped_networks=("10.0.0.0/24",)))
    assert all(ledger.admit("10.0.0.5", Connection()) is None for _ in range(10))
    assert ledger.admit("10.0.0.5", Connection()) is not None

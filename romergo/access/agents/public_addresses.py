"""Which addresses Romergo may fetch an agent's metadata document from.

An IPv6 address can lead to an IPv4 one: NAT64 (`64:ff9b::/96`, and the local-use
`64:ff9b:1::/48`), 6to4 (`2002::/16`), Teredo (`2001::/32`), IPv4-mapped (`::ffff:0:0/96`) and
IPv4-compatible (`::/96`) forms. Such an address is judged by every address it leads to, so
`[64:ff9b::a9fe:a9fe]` is the cloud metadata address it translates to, not a public IPv6 one (and
a Teredo address must be sound at both its server and its client).

By default only globally reachable addresses pass. A developer may allow loopback and private
networks too (`ROMERGO_CIMD_ALLOW_PRIVATE`); multicast, link-local and unspecified addresses never
pass.
"""

from __future__ import annotations

from ipaddress import IPv4Address, IPv4Network, IPv6Address, IPv6Network, ip_address, ip_network

IPAddress = IPv4Address | IPv6Address

NAT64 = ip_network("64:ff9b::/96")
LOCAL_NAT64 = ip_network("64:ff9b:1::/48")
IPV4_MAPPED = ip_network("::ffff:0:0/96")
IPV4_COMPATIBLE = ip_network("::/96")
_CARRIERS_OF_THE_LAST_32_BITS = (NAT64, LOCAL_NAT64, IPV4_MAPPED, IPV4_COMPATIBLE)
_NOT_CARRIERS = (IPv6Address("::"), IPv6Address("::1"))
"""Inside `::/96` but the unspecified and loopback addresses themselves."""
LOCAL_NETWORKS: tuple[IPv4Network | IPv6Network, ...] = tuple(
    ip_network(network)
    for network in ("127.0.0.0/8", "10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "::1/128", "fc00::/7")
)
"""What a developer's `ROMERGO_CIMD_ALLOW_PRIVATE` opens: loopback and private networks only."""


def may_fetch_from(address: str, *, allow_private: bool) -> bool:
    """Whether a document may be fetched from `address` (as a resolver gives it)."""
    try:
        ip = ip_address(address)
    except ValueError:
        return False
    return all(_allowed(each, allow_private) for each in leads_to(ip))


def leads_to(ip: IPAddress) -> list[IPAddress]:
    """Where `ip` leads: the IPv4 addresses it carries inside, or else itself."""
    if isinstance(ip, IPv4Address) or ip in _NOT_CARRIERS:
        return [ip]
    inner: list[IPAddress] = []
    if any(ip in carrier for carrier in _CARRIERS_OF_THE_LAST_32_BITS):
        inner.append(IPv4Address(int(ip) & 0xFFFFFFFF))
    if ip.sixtofour is not None:
        inner.append(ip.sixtofour)
    if ip.teredo is not None:
        inner.extend(ip.teredo)
    return inner or [ip]


def _allowed(ip: IPAddress, allow_private: bool) -> bool:
    if ip.is_multicast or ip.is_link_local or ip.is_unspecified:
        return False
    if allow_private and any(ip in network for network in LOCAL_NETWORKS):
        return True
    return ip.is_global

"""Which network addresses a server-side fetch may reach (SSRF protection).

A URL a model hands to a tool must not reach the machine KinBot runs on or its private
network: loopback, private, link-local, shared, unspecified, multicast and reserved
addresses are refused, in every spelling (IPv4, IPv6, IPv4-mapped or -embedded IPv6, and the
legacy decimal, octal and hexadecimal IPv4 forms the system resolver accepts). An
administrator may open some networks anyway (``fetch_allowed_networks``).

The check must apply to the address actually connected to: ``guarded_resolver`` plugs it
into aiohttp, so the addresses checked are the ones aiohttp connects to (no second DNS
lookup an attacker could answer differently). This module does not import aiohttp (a fifth
of a second and 20 MB at start-up): the fetches that use it do.
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
from collections.abc import Iterable
from typing import Any

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network
#: A resolved address to connect to: its family and its socket address.
SocketAddress = tuple[socket.AddressFamily, tuple[Any, ...]]

#: IPv6 prefixes that carry an IPv4 address in their last 32 bits (NAT64).
_NAT64 = (ipaddress.ip_network("64:ff9b::/96"), ipaddress.ip_network("64:ff9b:1::/48"))


class BlockedAddress(Exception):
    """The URL's host is, or resolves to, an address outside the public internet."""


def parse_networks(entries: Iterable[str]) -> tuple[IPNetwork, ...]:
    """Addresses or CIDR ranges (``127.0.0.1``, ``10.0.0.0/8``, ``::1``) as networks.

    Raises ``ValueError`` naming the entry that is neither.
    """
    networks: list[IPNetwork] = []
    for entry in entries:
        try:
            networks.append(ipaddress.ip_network(entry.strip(), strict=False))
        except ValueError:
            raise ValueError(f"{entry!r} is not an IP address or CIDR network") from None
    return tuple(networks)


def embedded_ipv4(address: IPAddress) -> ipaddress.IPv4Address | None:
    """The IPv4 address an IPv6 address stands for (mapped, compatible, 6to4, Teredo, NAT64)."""
    if not isinstance(address, ipaddress.IPv6Address):
        return None
    if address.ipv4_mapped is not None:
        return address.ipv4_mapped
    if address.sixtofour is not None:
        return address.sixtofour
    if address.teredo is not None:
        return address.teredo[1]
    if any(address in network for network in _NAT64):
        return ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
    packed = address.packed
    if packed[:12] == bytes(12) and int(address) > 1:  # deprecated IPv4-compatible ::a.b.c.d
        return ipaddress.IPv4Address(packed[12:])
    return None


def why_blocked(address: IPAddress) -> str | None:
    """Why ``address`` is not a public internet address, or ``None`` when it is one."""
    inner = embedded_ipv4(address)
    if inner is not None:
        reason = why_blocked(inner)
        return f"{reason} (inside the IPv6 address {address})" if reason else None
    checks = (
        ("unspecified", address.is_unspecified),
        ("loopback", address.is_loopback),
        ("link-local", address.is_link_local),
        ("multicast", address.is_multicast),
        ("private", address.is_private),
        ("reserved", address.is_reserved),
    )
    for name, matched in checks:
        if matched:
            return f"{address} is a {name} address"
    if not address.is_global:
        return f"{address} is not a public address"
    return None


class AddressPolicy:
    """Public addresses only, except the networks an administrator allowed."""

    def __init__(self, allowed: Iterable[IPNetwork] = ()) -> None:
        self.allowed = tuple(allowed)

    def check(self, address: str | IPAddress) -> IPAddress:
        """The parsed address if it may be reached; ``BlockedAddress`` otherwise."""
        if isinstance(address, str):
            address = address.split("%")[0]  # an IPv6 zone index
        parsed = ipaddress.ip_address(address)
        if any(parsed.version == net.version and parsed in net for net in self.allowed):
            return parsed
        reason = why_blocked(parsed)
        if reason is not None:
            raise BlockedAddress(f"Refused: {reason}.")
        return parsed

    async def check_literal(self, host: str, port: int) -> bool:
        """For a host aiohttp takes as an IP address (and so connects to without resolving,
        in any spelling the system accepts: ``2130706433``, ``0177.0.0.1``, ``::ffff:…``):
        check every address it means and return ``True``. ``False`` for a host name."""
        from aiohttp.helpers import is_ip_address

        if not is_ip_address(host):
            return False
        loop = asyncio.get_running_loop()
        try:
            infos = await loop.getaddrinfo(
                host, port, type=socket.SOCK_STREAM, flags=socket.AI_NUMERICHOST
            )
        except socket.gaierror:
            raise BlockedAddress(f"Refused: {host!r} is not a valid address.") from None
        for info in infos:
            self.check(str(info[4][0]))
        return True


async def resolve_checked(policy: AddressPolicy, host: str, port: int) -> list[SocketAddress]:
    """Resolve ``host`` (a name, or an address literal in any spelling the system accepts)
    and check every address it resolves to: the addresses to connect to, in order.

    ``BlockedAddress`` when any of them is blocked (naming the host when it is a name);
    ``socket.gaierror`` when it does not resolve.
    """
    loop = asyncio.get_running_loop()
    try:
        infos = await loop.getaddrinfo(
            host, port, type=socket.SOCK_STREAM, flags=socket.AI_ADDRCONFIG
        )
    except UnicodeError:
        raise socket.gaierror(socket.EAI_NONAME, f"{host!r} is not a valid host name") from None
    addresses: list[SocketAddress] = []
    for family, _type, _proto, _name, sockaddr in infos:
        try:
            policy.check(str(sockaddr[0]))
        except BlockedAddress as blocked:
            if str(sockaddr[0]) == host:
                raise
            raise BlockedAddress(f"{blocked} ({host} resolves to it)") from None
        if (family, sockaddr) not in addresses:
            addresses.append((family, sockaddr))
    return addresses

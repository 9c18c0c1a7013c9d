"""Who a per-address limit counts: the client's address, IPv6 grouped by /64.

A home connection gets one IPv4 address but a whole IPv6 /64 (often more): counted one
address at a time, one household would have 2⁶⁴ addresses to spread a flood over. So every
per-address bound (open connections, Engine.IO handshakes, logins and sign-ups) counts a
`group`: an IPv4 address, or the /64 of an IPv6 one (an IPv4-mapped IPv6 address is its
IPv4 address). docs/hosting.md «On the open internet».
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable

IPV6_PREFIX = 64


def group(address: str) -> str:
    """The unit `address` is counted in; a text that is no address stays itself."""
    try:
        ip = ipaddress.ip_address(address.split("%", 1)[0])
    except ValueError:
        return address
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.IPv6Network((ip, IPV6_PREFIX), strict=False))
    return str(ip)


def matches(address: str, networks: Iterable[str]) -> bool:
    """`address` is one of `networks` (addresses or CIDR ranges, e.g. a proxy's)."""
    try:
        ip = ipaddress.ip_address(address.split("%", 1)[0])
    except ValueError:
        return False
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return any(ip in ipaddress.ip_network(n, strict=False) for n in networks)

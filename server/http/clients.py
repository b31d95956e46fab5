"""Client addresses as every per-client limit counts them.

Each limit per client address (the rate limits, the creation limit, the mail
limits per creating client, the event streams and the open connections per
client) counts a client by :func:`client_key`: an IPv4 address as it is, an
IPv4-mapped IPv6 address (``::ffff:203.0.113.7``, what a dual-stack socket
sees) as that IPv4 address, and any other IPv6 address by its ``/64``. One
IPv6 subscriber is given a ``/64`` at least and may send from any of its
2^64 addresses: counted by the full address, every request could come from
a new client.

    >>> client_key("203.0.113.7"), client_key("::ffff:203.0.113.7")
    ('203.0.113.7', '203.0.113.7')
    >>> client_key("2001:db8:1:2:a::1"), client_key("2001:DB8:1:2:b::9%eth0")
    ('2001:db8:1:2::/64', '2001:db8:1:2::/64')
    >>> client_key(None), client_key("")
    ('unknown', 'unknown')
"""

from __future__ import annotations

import ipaddress
from functools import lru_cache

from flask import request

#: Bits of an IPv6 address that name one client (a subscriber's network).
IPV6_CLIENT_BITS = 64


@lru_cache(maxsize=4096)
def client_key(address: str | None) -> str:
    """The client ``address`` counts as, for every limit per client (see the module); the
    latest few thousand addresses' answers are kept (each request asks it several times)."""
    if not address:
        return "unknown"
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:  # not an IP address (a Unix socket's peer): itself
        return address
    if ip.version == 4:
        return str(ip)
    if ip.ipv4_mapped is not None:
        return str(ip.ipv4_mapped)
    network = ipaddress.IPv6Network((int(ip), IPV6_CLIENT_BITS), strict=False)
    return str(network)


def current_client() -> str:
    """The :func:`client_key` of the request's client address."""
    return client_key(request.remote_addr)

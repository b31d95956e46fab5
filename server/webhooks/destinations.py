"""Where webhooks may go: http(s) URLs whose every address the operator allows.

A webhook URL is given by whoever creates a game, so it must not turn the
server into a way to reach what only the server can reach (its loopback,
the private network behind it, a cloud metadata address). Rules:

- the scheme is ``http`` or ``https``; no user or password in the URL;
- ``TURNPOST_WEBHOOK_HOSTS`` (comma-separated, ``*.example.org`` matches any
  subdomain), when set, lists the only host names allowed;
- every address the host resolves to must be a public (global) address,
  or inside one of ``TURNPOST_WEBHOOK_NETWORKS`` (comma-separated CIDR
  networks the operator allows, e.g. ``10.0.0.0/8`` or ``127.0.0.1/32``);
  loopback, private, link-local, multicast and reserved addresses are
  refused by default;
- an IPv6 address that carries an IPv4 address is judged as that IPv4
  address: IPv4-mapped (``::ffff:127.0.0.1``), NAT64 (``64:ff9b::/96``, and
  ``64:ff9b:1::/48`` where every RFC 6052 place the IPv4 address may sit is
  judged), 6to4 (``2002::/16``) and Teredo (``2001::/32``: its server and its
  de-obfuscated client); the deprecated forms are refused: IPv4-compatible
  (``::127.0.0.1``), SIIT's IPv4-translated (``::ffff:0:127.0.0.1``) and
  site-local (``fec0::/10``). An IPv6 network the operator lists is allowed
  as it is written.

The host is resolved when a delivery is made, every address is checked, and
the connection goes to the checked address itself (with the host name in
``Host`` and for TLS), so a DNS answer that changes between the check and the
connection (DNS rebinding) cannot send the request elsewhere.

    >>> allowed = Destinations.from_settings("", "10.1.0.0/16").address_allowed
    >>> allowed(ip_address("93.184.216.34")), allowed(ip_address("10.1.2.3"))
    (True, True)
    >>> allowed(ip_address("127.0.0.1")), allowed(ip_address("::ffff:10.9.0.1"))
    (False, False)
    >>> allowed(ip_address("64:ff9b::93.184.216.34")), allowed(ip_address("2002:7f00:1::1"))
    (True, False)
"""

from __future__ import annotations

import os
import socket
from collections.abc import Mapping
from dataclasses import dataclass
from fnmatch import fnmatchcase
from ipaddress import IPv4Address, IPv6Address, ip_address, ip_network
from typing import Any
from urllib.parse import urlsplit

from engines.phrases import N_, Phrase, english, phrase

IPAddress = IPv4Address | IPv6Address
#: The longest URL accepted.
MAX_URL_LENGTH = 2000
#: IPv6 forms retired by their RFCs, refused whatever they carry: IPv4-compatible (RFC 4291),
#: SIIT's IPv4-translated (RFC 2765) and site-local (RFC 3879).
DEPRECATED_IPV6 = tuple(ip_network(net) for net in ("::/96", "::ffff:0:0:0/96", "fec0::/10"))
#: NAT64 prefixes (RFC 6052, RFC 8215) and the lengths their operators may give them.
NAT64_PREFIXES = (
    (ip_network("64:ff9b::/96"), (96,)),
    (ip_network("64:ff9b:1::/48"), (48, 56, 64, 96)),
)


class Refused(Exception):
    """A destination the rules refuse; ``words`` say why (a phrase read in the reader's
    language; the exception's message is its English)."""

    def __init__(self, words: Phrase) -> None:
        super().__init__(english(words))
        self.words = words


#: The refusals that name what is posted, by :attr:`Destinations.label`.
LABELLED_REFUSALS = {
    "webhook": {
        "long": N_("A webhook URL has at most %(most)s characters."),
        "scheme": N_("A webhook URL is http:// or https:// with a host."),
        "credentials": N_("A webhook URL carries no user name or password."),
        "hosts": N_("This server posts webhooks only to: %(hosts)s."),
        "address": N_("This server does not post webhooks to %(address)s."),
    },
    "push message": {
        "long": N_("A push message URL has at most %(most)s characters."),
        "scheme": N_("A push message URL is http:// or https:// with a host."),
        "credentials": N_("A push message URL carries no user name or password."),
        "hosts": N_("This server posts push messages only to: %(hosts)s."),
        "address": N_("This server does not post push messages to %(address)s."),
    },
}


@dataclass(frozen=True)
class Target:
    """A checked destination: connect to ``address``, speak to ``host``."""

    scheme: str
    host: str
    port: int
    path: str
    address: str

    @property
    def host_header(self) -> str:
        """The ``Host`` header: the host, with the port unless it is the scheme's default."""
        default = {"http": 80, "https": 443}[self.scheme]
        name = f"[{self.host}]" if ":" in self.host else self.host
        return name if self.port == default else f"{name}:{self.port}"


@dataclass(frozen=True)
class Destinations:
    """The operator's rules for webhook destinations (see the module docstring).

    Push endpoints (:mod:`server.push.subscriptions`) follow the same rules, with
    their own ``label`` in the refusals.
    """

    hosts: tuple[str, ...] = ()
    networks: tuple[Any, ...] = ()
    #: What is posted, as the refusals name it (a key of :data:`LABELLED_REFUSALS`).
    label: str = "webhook"

    @classmethod
    def from_settings(cls, hosts: str, networks: str, label: str = "webhook") -> Destinations:
        """The rules from ``TURNPOST_WEBHOOK_HOSTS`` and ``TURNPOST_WEBHOOK_NETWORKS``."""
        return cls(
            tuple(host.strip().lower() for host in hosts.split(",") if host.strip()),
            tuple(
                ip_network(net.strip(), strict=False) for net in networks.split(",") if net.strip()
            ),
            label,
        )

    def address_allowed(self, address: IPAddress) -> bool:
        """Whether the server may connect to ``address`` (see the module docstring)."""
        if any(address in network for network in self.networks):
            return True
        if isinstance(address, IPv6Address):
            if any(address in network for network in DEPRECATED_IPV6):
                return False
            carried = embedded_ipv4(address)
            if carried:
                return all(self.address_allowed(ipv4) for ipv4 in carried)
        return address.is_global and not address.is_multicast

    def check_url(self, url: str) -> tuple[str, str, int, str]:
        """``(scheme, host, port, path)`` of an allowed URL, or :class:`Refused`.

        Checks what can be checked without resolving: the scheme, no
        credentials, the host names allowed, and a literal address.
        """
        if len(url) > MAX_URL_LENGTH:
            raise self.refused("long", most=MAX_URL_LENGTH)
        try:
            parts = urlsplit(url)
            port = parts.port
        except ValueError:
            raise Refused(phrase("Not a URL.")) from None
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise self.refused("scheme")
        if parts.username is not None or parts.password is not None:
            raise self.refused("credentials")
        host = parts.hostname.rstrip(".").lower()
        if self.hosts and not any(fnmatchcase(host, pattern) for pattern in self.hosts):
            raise self.refused("hosts", hosts=", ".join(self.hosts))
        literal = _literal_address(host)
        if literal is not None and not self.address_allowed(literal):
            raise self.refused("address", address=str(literal))
        path = parts.path or "/"
        if parts.query:
            path += f"?{parts.query}"
        return parts.scheme, host, port or {"http": 80, "https": 443}[parts.scheme], path

    def resolve(self, url: str) -> Target:
        """Where to post ``url`` now: its host resolved and every address checked."""
        scheme, host, port, path = self.check_url(url)
        try:
            found = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
        except (OSError, UnicodeError) as error:
            why = str(error)
            raise Refused(phrase("Cannot resolve %(host)s: %(why)s", host=host, why=why)) from None
        addresses = [ip_address(info[4][0].split("%")[0]) for info in found]
        refused = [str(address) for address in addresses if not self.address_allowed(address)]
        if refused or not addresses:
            raise Refused(
                phrase(
                    "%(host)s resolves to addresses this server does not post to: %(refused)s",
                    host=host,
                    refused=str(refused),
                )
            )
        return Target(scheme, host, port, path, str(addresses[0]))

    def refused(self, refusal: str, **args: str | int) -> Refused:
        """The refusal ``refusal`` (a key of :data:`LABELLED_REFUSALS`) naming what is posted."""
        return Refused(phrase(LABELLED_REFUSALS[self.label][refusal], **args))


def configured(config: Mapping[str, Any]) -> Destinations:
    """The rules of an app's config, or of the environment where the config has none."""
    hosts, networks = (
        config.get(name, os.environ.get(name, ""))
        for name in ("TURNPOST_WEBHOOK_HOSTS", "TURNPOST_WEBHOOK_NETWORKS")
    )
    return Destinations.from_settings(hosts, networks)


def _literal_address(host: str) -> IPAddress | None:
    """``host`` as an address if it is one (``10.0.0.1``, ``::1``), else ``None``."""
    try:
        return ip_address(host)
    except ValueError:
        return None


def embedded_ipv4(address: IPv6Address) -> list[IPv4Address]:
    """The IPv4 addresses an IPv6 address carries (mapped, NAT64, 6to4, Teredo); ``[]`` if none.

    >>> embedded_ipv4(ip_address("64:ff9b::127.0.0.1"))
    [IPv4Address('127.0.0.1')]
    >>> [str(a) for a in embedded_ipv4(ip_address("2001:0:4136:e378:8000:63bf:3fff:fdd2"))]
    ['65.54.227.120', '192.0.2.45']
    """
    if address.ipv4_mapped is not None:
        return [address.ipv4_mapped]
    if address.sixtofour is not None:
        return [address.sixtofour]
    if address.teredo is not None:
        return list(address.teredo)
    for prefix, lengths in NAT64_PREFIXES:
        if address in prefix:
            return [_rfc6052_ipv4(address.packed, length) for length in lengths]
    return []


def _rfc6052_ipv4(packed: bytes, prefix_length: int) -> IPv4Address:
    """The IPv4 address RFC 6052 places after a prefix of that length (skipping bits 64-71)."""
    if prefix_length == 96:
        return IPv4Address(packed[12:])
    start = prefix_length // 8
    head = packed[start:8]
    return IPv4Address(head + packed[9 : 9 + 4 - len(head)])

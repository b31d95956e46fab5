"""``deploy/nginx/turnpost.conf`` in front of a real Turnpost server, over https on loopback.

nginx (Debian's package, installed when missing) runs the repository's site
file with only its addresses, ports and certificate changed; Turnpost runs
with ``TURNPOST_PROXY_HOPS=1``. Through it: each visitor is known by their own
address (rate limits), links say https and the proxy's host and port, cookies
are ``Secure``, and an event stream gets a move at once (nothing buffered).
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import requests
import urllib3

from tests.mail.push_service import self_signed
from tests.servers import running_nginx
from tests.support import ROOT, BackgroundServer, free_port, start_background

SITE = ROOT / "deploy" / "nginx" / "turnpost.conf"
#: Requests one client address may make per minute in this test's server.
PER_ADDRESS = 20


@dataclass(frozen=True)
class Proxied:
    """nginx on loopback in front of a Turnpost server."""

    url: str
    plain_url: str
    certificate: Path
    server: BackgroundServer

    def pool(self, source: str) -> urllib3.HTTPSConnectionPool:
        """A connection pool to the proxy from the loopback address ``source`` (``::1``: over
        IPv6)."""
        port = int(self.url.rsplit(":", 1)[1])
        return urllib3.HTTPSConnectionPool(
            "::1" if ":" in source else "127.0.0.1",
            port,
            source_address=(source, 0),
            ca_certs=str(self.certificate),
            retries=False,
        )


#: A page added for the tests, saying what the site counts a client's connections by.
CLIENT_NET_PAGE = 'location = /client-net { return 200 "$client_net"; }'


def replace_once(text: str, old: str, new: str) -> str:
    """``text`` with the one line holding ``old`` replaced (the site file keeps its shape)."""
    assert text.count(old) == 1, f"{SITE.name} should have {old!r} once"
    return text.replace(old, new)


def loopback_site(upstream: int, https: int, plain: int, cert: Path, key: Path) -> str:
    """The repository's site file with loopback addresses and ports and a test certificate."""
    site = SITE.read_text()
    site = re.sub(r"^\s*listen \[::\].*\n", "", site, flags=re.M)
    for old, new in [
        ("server 127.0.0.1:8000;", f"server 127.0.0.1:{upstream};"),
        ("listen 80;", f"listen 127.0.0.1:{plain};"),
        ("listen 443 ssl;", f"listen 127.0.0.1:{https} ssl; listen [::1]:{https} ssl;"),
        ("    location / {", f"    {CLIENT_NET_PAGE}\n    location / {{"),
        ("/etc/letsencrypt/live/turnpost.example.org/fullchain.pem", str(cert)),
        ("/etc/letsencrypt/live/turnpost.example.org/privkey.pem", str(key)),
    ]:
        site = replace_once(site, old, new)
    return site


@pytest.fixture(scope="module")
def proxied(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Proxied]:
    """Turnpost behind nginx, with a low limit per client address."""
    folder = tmp_path_factory.mktemp("proxied")
    server = start_background(
        str(folder / "turnpost.db"),
        environment={
            "TURNPOST_PROXY_HOPS": "1",
            "TURNPOST_RATELIMIT_IP": f"{PER_ADDRESS}/minute",
        },
    )
    cert, key = self_signed(folder)
    https, plain = free_port(), free_port()
    upstream = int(server.url.rsplit(":", 1)[1])
    try:
        with running_nginx(loopback_site(upstream, https, plain, cert, key), https):
            yield Proxied(f"https://127.0.0.1:{https}", f"http://127.0.0.1:{plain}", cert, server)
    finally:
        server.stop()


def test_plain_http_is_sent_to_https(proxied: Proxied) -> None:
    answer = requests.get(f"{proxied.plain_url}/games?x=1", allow_redirects=False, timeout=10)
    assert answer.status_code == 301
    assert answer.headers["Location"] == "https://127.0.0.1/games?x=1"


def test_links_say_https_and_cookies_are_secure(proxied: Proxied) -> None:
    browser = requests.Session()
    browser.verify = str(proxied.certificate)
    browser.trust_env = False  # else REQUESTS_CA_BUNDLE would win over ``verify``
    lobby = browser.get(f"{proxied.url}/", timeout=10)
    assert lobby.status_code == 200
    assert "Secure" in lobby.headers["Set-Cookie"], lobby.headers["Set-Cookie"]
    csrf = re.search(r'name="csrf_token" value="([^"]+)"', lobby.text).group(1)
    form = {"csrf_token": csrf, "engine": "siam", "name0": "Ann", "name1": "Bob"}
    # the CSRF check over https wants a Referer of the same origin: scheme, host and port
    created = browser.post(
        f"{proxied.url}/games",
        data=form,
        headers={"Referer": f"{proxied.url}/"},
        allow_redirects=False,
        timeout=10,
    )
    assert created.status_code == 303, created.text[:2000]
    assert "Secure" in created.headers["Set-Cookie"]
    page = browser.get(f"{proxied.url}{created.headers['Location']}", timeout=10)
    assert page.status_code == 200
    links = re.findall(r"https?://[^\s\"'<]+/seat/", page.text)
    assert links and all(link.startswith(f"{proxied.url}/games/") for link in links), links


def test_each_visitor_is_known_by_their_own_address(proxied: Proxied) -> None:
    """Two addresses behind one proxy have a limit each; a forged X-Forwarded-For is ignored."""
    first, second = proxied.pool("127.0.0.2"), proxied.pool("127.0.0.3")
    statuses = [first.request("GET", "/api/v1/engines").status for _ in range(PER_ADDRESS + 1)]
    assert statuses[:PER_ADDRESS] == [200] * PER_ADDRESS and statuses[-1] == 429
    forged = first.request("GET", "/api/v1/engines", headers={"X-Forwarded-For": "127.0.0.9"})
    assert forged.status == 429
    assert second.request("GET", "/api/v1/engines").status == 200
    log = proxied.server.log()  # the request lines name each visitor, never the forged one
    assert "client=127.0.0.2" in log and "client=127.0.0.3" in log
    assert "127.0.0.9" not in log


def test_connections_are_counted_per_ipv4_address_and_per_ipv6_64(proxied: Proxied) -> None:
    """``limit_conn`` keys a client by its IPv4 address, or by the /64 of its IPv6 address
    (a host holds a whole /64: keyed by the full address, it had 2^64 allowances)."""
    ipv4 = proxied.pool("127.0.0.2").request("GET", "/client-net")
    assert ipv4.status == 200 and ipv4.data == bytes([127, 0, 0, 2])
    ipv6 = proxied.pool("::1").request("GET", "/client-net")
    assert ipv6.status == 200 and ipv6.data == bytes(8), "::1's /64: ::/64"
    assert proxied.pool("::1").request("GET", "/api/v1/engines").status == 200


def test_an_event_stream_gets_a_move_through_the_proxy_at_once(proxied: Proxied) -> None:
    api = f"{proxied.url}/api/v1"
    body = {"engine": "siam", "players": [{"name": "Ann"}, {"name": "Bob"}]}
    game = requests.post(f"{api}/games", json=body, verify=proxied.certificate, timeout=10).json()
    token = game["players"][0]["token"]
    with requests.get(
        f"{api}/games/{game['id']}/events",
        stream=True,
        verify=proxied.certificate,
        timeout=10,
    ) as stream:
        assert stream.status_code == 200
        assert stream.headers["Content-Type"].startswith("text/event-stream")
        time.sleep(0.5)  # the stream is open before the move
        moved = requests.post(
            f"{api}/games/{game['id']}/moves",
            json={"notation": "enter a1 N"},
            headers={"Authorization": f"Bearer {token}"},
            verify=proxied.certificate,
            timeout=10,
        )
        assert moved.status_code == 201, moved.text
        started = time.monotonic()
        data = next(
            line for line in stream.iter_lines(decode_unicode=True) if line.startswith("data: ")
        )
    assert json.loads(data.removeprefix("data: "))["notation"] == "enter a1 N"
    assert time.monotonic() - started < 5
